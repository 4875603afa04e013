/*
Copyright 2026 The provider-coder Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package packagerbac holds the RBAC a Crossplane v2 installation gives
// provider-coder's package, so tests can run the provider with exactly that
// and nothing more.
//
// Crossplane's RBAC manager grants a provider's ServiceAccount one "system"
// ClusterRole. Its rules are not computed here: test/crossplane installs the
// package through the real Crossplane (built from the module proxy: the
// newest release the package admits in `make test`, the oldest in
// `make crossplane-floor`), reads the ClusterRole its RBAC manager created,
// and compares it with RecordedFile, which `go test ./test/crossplane -run
// TestCrossplaneInstallsTheProvider -update` rewrites. The tests that do not
// run Crossplane (the scenario suite, the interleavings, the benchmark)
// grant the recorded rules.
//
// Crossplane v2 reads no permission requests from a package (it dropped
// the v1 field spec.controller.permissionRequests, crossplane/crossplane#6487).
// What provider-coder needs beyond the system role is in
// examples/install/rbac.yaml, a ClusterRole and its binding to the
// provider's ServiceAccount that the operator applies; the tests apply the
// same file.
//
// This package must not grant anything itself: it only loads roles.
package packagerbac

import (
	"bytes"
	_ "embed" // the recorded role
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
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

// loggedDenial matches an RBAC denial of ServiceAccount in a log line,
// JSON-escaped or not.
var loggedDenial = regexp.MustCompile(`forbidden: User \\?"` + regexp.QuoteMeta(User()) + `\\?" cannot [^\n]*`)

// LoggedDenials returns the RBAC denials of ServiceAccount in a provider's
// log. The provider logs a refused request and retries, so a missing rule
// shows up here even where nothing else fails.
func LoggedDenials(logs string) []string {
	return loggedDenial.FindAllString(logs, -1)
}

// missingRole is what the authorizer adds to a denial whose binding names a
// ClusterRole that does not exist, JSON-escaped or not.
var missingRole = regexp.MustCompile(`clusterrole\.rbac\.authorization\.k8s\.io \\?"([^"\\]+)\\?" not found`)

// MissingRole is the ClusterRole a denial says does not exist, such as
// crossplane:provider:<revision>:system when the provider ran before
// Crossplane's RBAC manager created its role: a start-up race, not a rule
// missing from ExtraRBACFile.
func MissingRole(denial string) (string, bool) {
	m := missingRole.FindStringSubmatch(denial)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// The names of the two ClusterRoles. SystemClusterRoleName follows
// Crossplane's pattern crossplane:provider:<revision>:system.
const (
	SystemClusterRoleName = "crossplane:provider:provider-coder:system"
	ExtraClusterRoleName  = "provider-coder-extra"
)

// A Package is the extra RBAC an operator applies from
// examples/install/rbac.yaml.
type Package struct {
	// Extra is the ClusterRole of examples/install/rbac.yaml, and
	// ExtraBinding its binding.
	Extra        *rbacv1.ClusterRole
	ExtraBinding *rbacv1.ClusterRoleBinding
}

// ExtraRBACFile is the operator's RBAC manifest, relative to the checkout.
const ExtraRBACFile = "examples/install/rbac.yaml"

// Load reads ExtraRBACFile of the checkout at root.
func Load(root string) (Package, error) {
	var p Package
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

// RecordedFile holds the rules of the system ClusterRole Crossplane's RBAC
// manager created for the package, relative to the checkout: the same on
// every release the package admits, since test/crossplane compares it on the
// newest and on the oldest.
const RecordedFile = "test/framework/packagerbac/crossplane-system-role.yaml"

//go:embed crossplane-system-role.yaml
var recorded []byte

// SystemRules are the rules of RecordedFile, as Crossplane wrote them.
func SystemRules() []rbacv1.PolicyRule {
	var cr rbacv1.ClusterRole
	if err := sigsyaml.UnmarshalStrict(recorded, &cr); err != nil {
		panic(fmt.Sprintf("%s: %v", RecordedFile, err))
	}
	return cr.Rules
}

// Record rewrites RecordedFile in the checkout at root with rules.
func Record(root string, rules []rbacv1.PolicyRule) error {
	b, err := sigsyaml.Marshal(&rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: SystemClusterRoleName},
		Rules:      rules,
	})
	if err != nil {
		return err
	}
	header := "# The system ClusterRole Crossplane's RBAC manager created for\n" +
		"# provider-coder's package, as test/crossplane read it (make test and\n" +
		"# make crossplane-floor compare it on the newest and the oldest Crossplane\n" +
		"# the package admits). Do not edit: run\n" +
		"#   go test ./test/crossplane -run TestCrossplaneInstallsTheProvider -update\n"
	return os.WriteFile(filepath.Join(root, RecordedFile), append([]byte(header), b...), 0o644) //nolint:gosec // a source file
}

// SystemClusterRole is the ClusterRole Crossplane grants the package.
func (p Package) SystemClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: SystemClusterRoleName},
		Rules:      SystemRules(),
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
