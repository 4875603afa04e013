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

package argocd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// The families of kinds a reason is written on; each has one script.
const (
	familyManaged = "managed resource"
	familyConfig  = "ProviderConfig"
	familyRecord  = "CleanupRecord"
)

// reasonFamilies says, by package, on which kinds the reasons a package
// defines are written. A package that defines a reason and is not listed
// fails TestEveryReasonTheProviderWritesHasASample: say here where its
// reasons go, and add their samples.
var reasonFamilies = map[string]string{
	// Ready and AIGateway reasons, and the hold's decisions, the Ready
	// reasons while it holds.
	"internal/providerconfig": familyConfig,
	// InsecureTransport reasons.
	"internal/controller/config": familyConfig,
	// Why a record turned Abandoned: in a bounded pass, or by the sweep.
	"internal/deletion": familyRecord,
	// Paused, UnsupportedManagementPolicies: why a resource the managed
	// reconciler leaves alone left its record Abandoned.
	"internal/policy": familyRecord,
	// Coder's failure classes: why a bounded pass left a record Abandoned.
	"internal/clients/coder": familyRecord,
	// RetiringKeyInUse, on AI Gateway keys.
	"internal/controller/aigatewaykey": familyManaged,
	// Why an AI budget or override is refused.
	"internal/controller/aibudget": familyManaged,
	// SpendWarning, on AI budgets and overrides.
	"internal/spendwarning": familyManaged,
}

// crossplaneConditions is the package of Crossplane's managed-resource
// conditions, whose reasons the managed reconciler and the provider write
// on every managed resource.
const crossplaneConditions = "github.com/crossplane/crossplane/apis/v2/core/v2"

// untypedReason is the name of a reason held in a plain string constant.
var untypedReason = regexp.MustCompile(`^(Reason|reason|Why)[A-Z]`)

// A reason is a constant the code defines and writes in a status.
type reason struct {
	pkg, name, value string
}

// TestEveryReasonTheProviderWritesHasASample reads the provider's code and
// Crossplane's condition reasons, and fails for every reason that no
// sample in testdata shows, so that Argo CD's health for it is decided and
// checked with Argo CD's own code (argocdrun), not left to a default.
func TestEveryReasonTheProviderWritesHasASample(t *testing.T) {
	defined := map[string][]reason{}
	for _, r := range reasonsIn(t, "../..", "internal") {
		family, ok := reasonFamilies[r.pkg]
		if !ok {
			t.Errorf("%s.%s (%q) is a reason of a package reasonFamilies does not list: say on which kinds it is written, and add samples for it", r.pkg, r.name, r.value)
			continue
		}
		defined[family] = append(defined[family], r)
	}
	dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", crossplaneConditions).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", crossplaneConditions, err)
	}
	xp := reasonsIn(t, strings.TrimSpace(string(dir)), ".")
	if len(xp) == 0 {
		t.Fatalf("no condition reasons in %s", crossplaneConditions)
	}
	defined[familyManaged] = xp

	shown := sampleReasons(t)
	for _, family := range []string{familyManaged, familyConfig, familyRecord} {
		if len(defined[family]) == 0 {
			t.Errorf("no reasons found for the %s kinds", family)
		}
		for _, r := range defined[family] {
			if !shown[family][r.value] {
				t.Errorf("%s.%s: no %s sample shows the reason %q; add one to samples_test.go with the health Argo CD must show for it", r.pkg, r.name, family, r.value)
			}
		}
	}
}

// reasonsIn parses the Go files (not tests) under root/dir and returns the
// reason constants they define: of a ConditionReason type or Coder's
// failure Class, or untyped and named Reason..., reason... or Why...;
// event reasons (event.Reason) are events, not a status.
func reasonsIn(t *testing.T, root, dir string) []reason {
	t.Helper()
	var out []reason
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		out = append(out, constReasons(t, filepath.ToSlash(rel), f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func constReasons(t *testing.T, pkg string, f *ast.File) []reason {
	t.Helper()
	var out []reason
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			kind := typeName(vs.Type)
			for i, name := range vs.Names {
				isReason := kind == "ConditionReason" || kind == "Class" ||
					(kind == "" && untypedReason.MatchString(name.Name))
				if !isReason {
					continue
				}
				if i >= len(vs.Values) {
					t.Fatalf("%s.%s: a reason without a value", pkg, name.Name)
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s.%s: a reason that is not a string literal; this test reads only literals", pkg, name.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, reason{pkg: pkg, name: name.Name, value: v})
			}
		}
	}
	return out
}

// typeName is the name of a constant's declared type without its package;
// "" for an untyped one.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	default:
		return ""
	}
}

// sampleReasons are the reasons the samples show, by family: every
// condition's reason, and a record's status.reason.
func sampleReasons(t *testing.T) map[string]map[string]bool {
	t.Helper()
	s := newScheme(t)
	family := map[string]string{"CleanupRecord.coder.crossplane.io": familyRecord}
	for _, k := range apis.ManagedKinds() {
		family[gvkOf(t, k.New()).GroupKind().String()] = familyManaged
	}
	for _, gk := range providerconfig.Kinds() {
		family[gk.String()] = familyConfig
	}
	all, err := samples(s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{familyManaged: {}, familyConfig: {}, familyRecord: {}}
	files := make([]string, 0, len(all))
	for f := range all {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, file := range files {
		for _, smp := range all[file] {
			gk := smp.obj.GroupVersionKind().GroupKind()
			fam, ok := family[gk.String()]
			if !ok {
				t.Fatalf("%s: a sample of %s, which is of no family", file, gk)
			}
			conds, _, _ := unstructured.NestedSlice(smp.obj.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok {
					if r, ok := m["reason"].(string); ok {
						out[fam][r] = true
					}
				}
			}
			if r, ok, _ := unstructured.NestedString(smp.obj.Object, "status", "reason"); ok {
				out[fam][r] = true
			}
		}
	}
	return out
}
