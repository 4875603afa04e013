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

package packagerbac

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

func TestRulesAllowThroughWildcardsButNotThroughResourceNames(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"g"}, Resources: []string{"things"}, Verbs: []string{"get"}},
		{APIGroups: []string{"g"}, Resources: []string{"*/finalizers"}, Verbs: []string{"update"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"one"}, Verbs: []string{"get"}},
	}
	cases := map[string]struct {
		group, resource, verb string
		want                  bool
	}{
		"ExactMatch":          {"g", "things", "get", true},
		"OtherVerb":           {"g", "things", "delete", false},
		"OtherGroup":          {"h", "things", "get", false},
		"SubresourceWildcard": {"g", "things/finalizers", "update", true},
		"SubresourceNotBase":  {"g", "things/status", "get", false},
		"VerbWildcard":        {"", "secrets", "deletecollection", true},
		"NamedOnly":           {"", "configmaps", "get", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Allows(rules, tc.group, tc.resource, tc.verb); got != tc.want {
				t.Errorf("Allows(%q, %q, %q) = %v, want %v", tc.group, tc.resource, tc.verb, got, tc.want)
			}
		})
	}
}

// TestExtraRBACAsksOnlyForWhatTheRecordedSystemRoleLacks checks the real
// package: the recorded system role covers every CRD (else it was recorded
// before a CRD was added; test/crossplane says so too, where Crossplane
// runs), and each extra rule asks only for what that role lacks.
func TestExtraRBACAsksOnlyForWhatTheRecordedSystemRoleLacks(t *testing.T) {
	p, err := Load(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	system := p.SystemClusterRole().Rules
	for _, r := range packageResources(t) {
		for _, v := range []string{"get", "list", "watch", "create", "update", "patch"} {
			if !Allows(system, r.Group, r.Plural, v) {
				t.Errorf("the recorded system role does not allow %s on %s.%s; record it again (%s)", v, r.Plural, r.Group, RecordedFile)
			}
		}
		if Allows(system, r.Group, r.Plural, "delete") {
			t.Errorf("the system role allows delete on %s.%s; Crossplane does not grant it", r.Plural, r.Group)
		}
	}
	if len(p.Extra.Rules) == 0 {
		t.Fatal(ExtraRBACFile + " grants nothing; the provider deletes cleanup records and reads namespaces")
	}
	if p.Extra.Name != ExtraClusterRoleName {
		t.Errorf("%s: the ClusterRole is %q, want %q", ExtraRBACFile, p.Extra.Name, ExtraClusterRoleName)
	}
	b := p.ExtraBinding
	if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != p.Extra.Name || len(b.Subjects) != 1 ||
		b.Subjects[0].Kind != rbacv1.ServiceAccountKind || b.Subjects[0].Namespace != ServiceAccountNamespace || b.Subjects[0].Name != ServiceAccountName {
		t.Errorf("%s: the binding %+v does not bind %s to ServiceAccount %s/%s", ExtraRBACFile, b, p.Extra.Name, ServiceAccountNamespace, ServiceAccountName)
	}
	for _, rule := range p.Extra.Rules {
		if len(rule.NonResourceURLs) > 0 {
			t.Errorf("extra rule %v asks for non-resource URLs", rule)
		}
		for _, list := range [][]string{rule.APIGroups, rule.Resources, rule.Verbs} {
			for _, v := range list {
				if v == "*" {
					t.Errorf("extra rule %v uses a wildcard", rule)
				}
			}
		}
		for _, g := range rule.APIGroups {
			for _, res := range rule.Resources {
				for _, v := range rule.Verbs {
					if Allows(system, g, res, v) {
						t.Errorf("extra rule %s on %s in group %q is already granted by Crossplane", v, res, g)
					}
				}
			}
		}
	}
	if !Allows(p.ExtraClusterRole().Rules, "coder.crossplane.io", "cleanuprecords", "delete") {
		t.Errorf("the requests do not allow deleting cleanup records, which the sweep does")
	}
}

type resource struct{ Group, Plural string }

// packageResources reads the group and plural of every CRD in package/crds.
func packageResources(t *testing.T) []resource {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "package", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in package/crds: %v", err)
	}
	var out []resource
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Plural string `json:"plural"`
				} `json:"names"`
			} `json:"spec"`
		}
		if err := sigsyaml.Unmarshal(b, &crd); err != nil {
			t.Fatal(err)
		}
		out = append(out, resource{crd.Spec.Group, crd.Spec.Names.Plural})
	}
	return out
}

func TestLoggedDenialsAreTheServiceAccountsRBACRefusals(t *testing.T) {
	denial := `pods is forbidden: User "` + User() + `" cannot list resource "pods" in API group "" at the cluster scope`
	cases := map[string]struct {
		logs string
		want []string
	}{
		"Klog": {
			logs: `E1129 reflector.go:200] "Failed to watch" err="` + strings.ReplaceAll(denial, `"`, `\"`) + `"` + "\n",
			want: []string{`forbidden: User \"` + User() + `\" cannot list resource \"pods\" in API group \"\" at the cluster scope"`},
		},
		"JSON": {
			logs: `{"level":"error","msg":"cannot list","error":"` + strings.ReplaceAll(denial, `"`, `\"`) + `"}` + "\n",
			want: []string{`forbidden: User \"` + User() + `\" cannot list resource \"pods\" in API group \"\" at the cluster scope"}`},
		},
		"Plain": {
			logs: "first\n" + denial + "\nlast\n",
			want: []string{`forbidden: User "` + User() + `" cannot list resource "pods" in API group "" at the cluster scope`},
		},
		"CoderForbids": {
			logs: "cannot create key: forbidden: by Coder\n",
		},
		"OtherUser": {
			logs: `pods is forbidden: User "system:serviceaccount:default:other" cannot list resource "pods"` + "\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, LoggedDenials(tc.logs)); diff != "" {
				t.Errorf("LoggedDenials(...): -want, +got:\n%s", diff)
			}
		})
	}
}

// A denial whose ClusterRole does not exist yet is the start-up race with
// Crossplane's RBAC manager, not a missing rule: the run says which.
func TestADenialNamingAMissingRoleIsTheStartUpRace(t *testing.T) {
	for _, tc := range []struct {
		log, role string
	}{
		{`E1207 12:02:09.1 reflector.go:205] "Failed to watch" err="failed to list *v1alpha1.CleanupRecord: cleanuprecords.coder.crossplane.io is forbidden: User \"system:serviceaccount:crossplane-system:provider-coder\" cannot list resource \"cleanuprecords\" in API group \"coder.crossplane.io\" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io \"crossplane:provider:provider-coder-dab9130fe6e2:system\" not found"`,
			"crossplane:provider:provider-coder-dab9130fe6e2:system"},
		{`cleanuprecords.coder.crossplane.io is forbidden: User "system:serviceaccount:crossplane-system:provider-coder" cannot list resource "cleanuprecords" in API group "coder.crossplane.io" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "crossplane:provider:provider-coder-1:system" not found`,
			"crossplane:provider:provider-coder-1:system"},
		{`namespaces is forbidden: User "system:serviceaccount:crossplane-system:provider-coder" cannot watch resource "namespaces" in API group "" at the cluster scope`, ""},
	} {
		denials := LoggedDenials(tc.log)
		if len(denials) != 1 {
			t.Fatalf("LoggedDenials(%q) = %q, want one", tc.log, denials)
		}
		role, ok := MissingRole(denials[0])
		if role != tc.role || ok != (tc.role != "") {
			t.Errorf("MissingRole(%q) = %q, %t; want %q", denials[0], role, ok, tc.role)
		}
	}
}
