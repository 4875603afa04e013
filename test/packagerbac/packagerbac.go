// Package packagerbac computes the RBAC a Crossplane v2 installation gives
// provider-coder's package, so tests can run the provider with exactly that
// and nothing more.
//
// Crossplane's RBAC manager (v2.1.3, internal/controller/rbac/provider/roles)
// grants a provider's ServiceAccount one "system" ClusterRole:
//
//   - get, list, watch, update, patch and create on every CRD of the package
//     and its status subresource (no delete);
//   - update on */finalizers in the package's API groups;
//   - every verb on secrets, configmaps, events and leases, in the core and
//     coordination.k8s.io groups.
//
// Crossplane v2 reads nothing else from the package: it dropped the v1
// field spec.controller.permissionRequests (crossplane/crossplane#6487) and
// its package parser ignores unknown fields. What provider-coder needs
// beyond the system role is in examples/install/rbac.yaml, a ClusterRole and
// its binding to the provider's ServiceAccount that the operator applies;
// the tests apply the same file.
//
// This package must not grant anything itself: it only computes roles.
package packagerbac

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// ServiceAccount is the identity the tests and the kind installation run the
// provider as: the ServiceAccount a DeploymentRuntimeConfig names in
// crossplane-system.
const (
	ServiceAccountNamespace = "crossplane-system"
	ServiceAccountName      = "provider-coder"
)

// User is the Kubernetes user name of ServiceAccount.
func User() string {
	return "system:serviceaccount:" + ServiceAccountNamespace + ":" + ServiceAccountName
}

// Groups are the groups Kubernetes puts ServiceAccount in.
func Groups() []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + ServiceAccountNamespace, "system:authenticated"}
}

// The names of the two ClusterRoles. SystemClusterRoleName follows
// Crossplane's pattern crossplane:provider:<revision>:system.
const (
	SystemClusterRoleName = "crossplane:provider:provider-coder:system"
	ExtraClusterRoleName  = "provider-coder-extra"
)

// A Resource is an API resource a CRD of the package defines.
type Resource struct {
	Group  string
	Plural string
}

// A Package is what Crossplane reads from package/ to compute RBAC, and the
// extra RBAC an operator applies from examples/install/rbac.yaml.
type Package struct {
	// Resources defined by package/crds.
	Resources []Resource
	// Extra is the ClusterRole of examples/install/rbac.yaml, and
	// ExtraBinding its binding.
	Extra        *rbacv1.ClusterRole
	ExtraBinding *rbacv1.ClusterRoleBinding
}

// ExtraRBACFile is the operator's RBAC manifest, relative to the checkout.
const ExtraRBACFile = "examples/install/rbac.yaml"

// Load reads package/crds and ExtraRBACFile of the checkout at root.
func Load(root string) (Package, error) {
	dir := filepath.Join(root, "package")
	files, err := filepath.Glob(filepath.Join(dir, "crds", "*.yaml"))
	if err != nil {
		return Package{}, err
	}
	if len(files) == 0 {
		return Package{}, fmt.Errorf("no CRDs in %s", filepath.Join(dir, "crds"))
	}
	var p Package
	for _, f := range files {
		var crd struct {
			Kind string `json:"kind"`
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Plural string `json:"plural"`
				} `json:"names"`
			} `json:"spec"`
		}
		if err := decodeFile(f, &crd); err != nil {
			return Package{}, err
		}
		if crd.Kind != "CustomResourceDefinition" || crd.Spec.Group == "" || crd.Spec.Names.Plural == "" {
			return Package{}, fmt.Errorf("%s is not a CustomResourceDefinition with a group and a plural", f)
		}
		p.Resources = append(p.Resources, Resource{Group: crd.Spec.Group, Plural: crd.Spec.Names.Plural})
	}
	extra, err := os.ReadFile(filepath.Join(root, ExtraRBACFile))
	if err != nil {
		return Package{}, err
	}
	d := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(extra), 4096)
	for {
		var raw map[string]any
		if err := d.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return Package{}, fmt.Errorf("cannot decode %s: %w", ExtraRBACFile, err)
		}
		if err := p.addExtra(raw); err != nil {
			return Package{}, fmt.Errorf("%s: %w", ExtraRBACFile, err)
		}
	}
	if p.Extra == nil || p.ExtraBinding == nil {
		return Package{}, fmt.Errorf("%s needs a ClusterRole and a ClusterRoleBinding", ExtraRBACFile)
	}
	return p, nil
}

func (p *Package) addExtra(raw map[string]any) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	switch raw["kind"] {
	case "ClusterRole":
		p.Extra = &rbacv1.ClusterRole{}
		return json.Unmarshal(b, p.Extra)
	case "ClusterRoleBinding":
		p.ExtraBinding = &rbacv1.ClusterRoleBinding{}
		return json.Unmarshal(b, p.ExtraBinding)
	}
	return fmt.Errorf("unexpected kind %v", raw["kind"])
}

func decodeFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096).Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("cannot decode %s: %w", path, err)
	}
	return nil
}

// SystemRules are the rules of the system ClusterRole Crossplane v2.1.3
// binds to a provider that defines rs: one rule per API group (in the order
// Crossplane sorts them), the finalizers rule, and the fixed extras.
func SystemRules(rs []Resource) []rbacv1.PolicyRule {
	if len(rs) == 0 {
		return nil
	}
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b Resource) int { return strings.Compare(a.Plural+a.Group, b.Plural+b.Group) })
	var groups []string
	byGroup := map[string][]string{}
	for _, r := range sorted {
		if _, ok := byGroup[r.Group]; !ok {
			groups = append(groups, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r.Plural, r.Plural+"/status")
	}
	rules := make([]rbacv1.PolicyRule, 0, len(groups)+2)
	for _, g := range groups {
		rules = append(rules, rbacv1.PolicyRule{
			APIGroups: []string{g},
			Resources: byGroup[g],
			Verbs:     []string{"get", "list", "watch", "update", "patch", "create"},
		})
	}
	return append(rules,
		rbacv1.PolicyRule{APIGroups: groups, Resources: []string{"*/finalizers"}, Verbs: []string{"update"}},
		rbacv1.PolicyRule{
			APIGroups: []string{"", "coordination.k8s.io"},
			Resources: []string{"secrets", "configmaps", "events", "leases"},
			Verbs:     []string{"*"},
		},
	)
}

// SystemClusterRole is the ClusterRole Crossplane grants the package.
func (p Package) SystemClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: SystemClusterRoleName},
		Rules:      SystemRules(p.Resources),
	}
}

// ExtraClusterRole is what the provider needs beyond SystemClusterRole,
// from ExtraRBACFile.
func (p Package) ExtraClusterRole() *rbacv1.ClusterRole { return p.Extra.DeepCopy() }

// Bindings bind both ClusterRoles to the provider's ServiceAccount: the one
// Crossplane would create, and the one of ExtraRBACFile.
func (p Package) Bindings() []*rbacv1.ClusterRoleBinding {
	return []*rbacv1.ClusterRoleBinding{{
		ObjectMeta: metav1.ObjectMeta{Name: SystemClusterRoleName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: SystemClusterRoleName},
		Subjects: []rbacv1.Subject{{
			Kind: rbacv1.ServiceAccountKind, Namespace: ServiceAccountNamespace, Name: ServiceAccountName,
		}},
	}, p.ExtraBinding.DeepCopy()}
}

// Allows reports whether rules allow verb on resource (e.g. "secrets" or
// "pods/log") in group, for any object name. It follows Kubernetes' RBAC
// matching for resource rules: "*" matches any group, resource or verb, and
// "*/sub" any resource's subresource sub.
func Allows(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if len(r.ResourceNames) > 0 {
			continue // grants some names only
		}
		if matches(r.APIGroups, group) && resourceMatches(r.Resources, resource) && matches(r.Verbs, verb) {
			return true
		}
	}
	return false
}

func matches(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

func resourceMatches(list []string, resource string) bool {
	if matches(list, resource) {
		return true
	}
	_, sub, ok := strings.Cut(resource, "/")
	return ok && slices.Contains(list, "*/"+sub)
}
