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

package kind

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// e2eSource is test/e2e's test files as far as spare fake Coders go: its
// package-level functions, and the lengths of its package-level slice
// literals (the cases a scenario ranges over).
type e2eSource struct {
	funcs map[string]*ast.FuncDecl
	lens  map[string]int
}

func parseE2E(t *testing.T) e2eSource {
	t.Helper()
	dir := filepath.Join(crds.RepoRoot(), "test", "e2e")
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s: %v", dir, err)
	}
	src := e2eSource{funcs: map[string]*ast.FuncDecl{}, lens: map[string]int{}}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					src.funcs[d.Name.Name] = d
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					vs, ok := sp.(*ast.ValueSpec)
					if !ok || len(vs.Names) != len(vs.Values) {
						continue
					}
					for i, v := range vs.Values {
						if lit, ok := v.(*ast.CompositeLit); ok {
							src.lens[vs.Names[i].Name] = len(lit.Elts)
						}
					}
				}
			}
		}
	}
	return src
}

// spares counts the SpareCoder calls in node: its own, those of the
// package's functions it calls (each call site once), and those of a loop
// body times the loop's cases when it ranges over a package-level slice
// literal. Any other loop that takes one has no count the source can tell,
// and is an error.
func (src e2eSource) spares(node ast.Node, seen []string) (int, error) {
	n := 0
	var err error
	ast.Inspect(node, func(m ast.Node) bool {
		if err != nil || m == nil || m == node {
			return err == nil
		}
		switch x := m.(type) {
		case *ast.RangeStmt:
			n, err = src.loop(x.Body, x.X, seen, n)
			return false
		case *ast.ForStmt:
			n, err = src.loop(x.Body, nil, seen, n)
			return false
		case *ast.CallExpr:
			switch f := x.Fun.(type) {
			case *ast.SelectorExpr:
				if f.Sel.Name == "SpareCoder" {
					n++
				}
			case *ast.Ident:
				if fd := src.funcs[f.Name]; fd != nil && fd.Body != nil && !slices.Contains(seen, f.Name) {
					k, e := src.spares(fd.Body, append(seen, f.Name))
					n, err = n+k, e
				}
			}
		}
		return true
	})
	return n, err
}

// loop adds to n the spare fake Coders a loop's body takes, times its
// cases: known only for a range over a package-level slice literal.
func (src e2eSource) loop(body *ast.BlockStmt, over ast.Expr, seen []string, n int) (int, error) {
	inner, err := src.spares(body, seen)
	if err != nil || inner == 0 {
		return n, err
	}
	id, ok := over.(*ast.Ident)
	if !ok {
		return n, fmt.Errorf("spare fake Coders taken in a loop whose number of cases is not in the source")
	}
	cases, known := src.lens[id.Name]
	if !known {
		return n, fmt.Errorf("spare fake Coders taken in a loop over %s, whose length is not in the source", id.Name)
	}
	return n + inner*cases, nil
}

// TestScenariosTakeTheSpareCodersTheyDeclare: the kind cluster deploys
// SpareCoders() spare fake Coders, the sum of what Scenarios declare; a
// scenario that takes more than it declares would fail on kind with "all N
// spare fake Coders are in use", which make test would never see.
func TestScenariosTakeTheSpareCodersTheyDeclare(t *testing.T) {
	src := parseE2E(t)
	for _, s := range slices.Concat(Scenarios, FailoverScenarios, MemoryScenarios) {
		fd := src.funcs[s.Test]
		if fd == nil {
			t.Errorf("scenario %s is not a function of test/e2e", s.Test)
			continue
		}
		n, err := src.spares(fd.Body, []string{s.Test})
		if err != nil {
			t.Errorf("%s: %v", s.Test, err)
			continue
		}
		if n != s.Spares {
			t.Errorf("scenario %s takes %d spare fake Coders, declares %d (test/framework/kind/layout.go)", s.Test, n, s.Spares)
		}
	}
}

// TestTheScenarioPatternSelectsTheScenariosAlone: go test -run selects every
// listed scenario and no test whose name merely contains one (a new
// TestHoldX beside TestHold would run on kind with spare fake Coders
// nobody counted), in test/e2e or made up.
func TestTheScenarioPatternSelectsTheScenariosAlone(t *testing.T) {
	re := regexp.MustCompile(ScenarioPattern())
	listed := map[string]bool{}
	for _, s := range Scenarios {
		listed[s.Test] = true
		if !re.MatchString(s.Test) {
			t.Errorf("-run %s does not select %s", ScenarioPattern(), s.Test)
		}
		for _, other := range []string{s.Test + "Again", "X" + s.Test} {
			if re.MatchString(other) {
				t.Errorf("-run %s selects %s, which is not a scenario", ScenarioPattern(), other)
			}
		}
	}
	for name := range parseE2E(t).funcs {
		if strings.HasPrefix(name, "Test") && re.MatchString(name) && !listed[name] {
			t.Errorf("-run %s selects %s of test/e2e, which is not a scenario", ScenarioPattern(), name)
		}
	}
}

// TestTheFailoverScenariosTakeNoMoreSpareCodersThanTheOthers: they run in a
// go test of their own after Scenarios, which hands out the spares from the
// first again; the cluster deploys only as many as Scenarios take.
func TestTheFailoverScenariosTakeNoMoreSpareCodersThanTheOthers(t *testing.T) {
	n := 0
	for _, s := range FailoverScenarios {
		n += s.Spares
	}
	if n > SpareCoders() {
		t.Errorf("the failover scenarios take %d spare fake Coders, the cluster deploys %d", n, SpareCoders())
	}
	m := 0
	for _, s := range MemoryScenarios {
		m += s.Spares
	}
	if m > SpareCoders() {
		t.Errorf("the memory scenarios take %d spare fake Coders, the cluster deploys %d", m, SpareCoders())
	}
	if mem := regexp.MustCompile(MemoryPattern()); slices.ContainsFunc(slices.Concat(Scenarios, FailoverScenarios), func(s Scenario) bool { return mem.MatchString(s.Test) }) {
		t.Errorf("-run %s selects a scenario make e2e runs anyway", MemoryPattern())
	}
	re := regexp.MustCompile(FailoverPattern())
	for _, s := range Scenarios {
		if re.MatchString(s.Test) {
			t.Errorf("-run %s selects %s, which runs with one provider pod", FailoverPattern(), s.Test)
		}
	}
}

// TestTheLayoutDeploysTheSpareCodersAndTheSharedOne: one fake Coder per
// spare the scenarios declare, and the shared one.
func TestTheLayoutDeploysTheSpareCodersAndTheSharedOne(t *testing.T) {
	if got, want := len(CoderNames()), SpareCoders()+1; got != want {
		t.Errorf("%d fake Coders deployed, want %d spares and the shared one", got, SpareCoders())
	}
}

// TestTheFailoverRunsTheInstallGuidesRuntimeConfig: the provider's runtime
// configuration of the guide (not the one named default beside it), two
// replicas with leader election, as written: the package's own image.
func TestTheFailoverRunsTheInstallGuidesRuntimeConfig(t *testing.T) {
	u, err := InstallGuideRuntimeConfig(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	spec := u.Object["spec"].(map[string]any)["deploymentTemplate"].(map[string]any)["spec"].(map[string]any)
	c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if u.GetName() != ProviderName || fmt.Sprint(spec["replicas"]) != "2" || c["image"] != nil ||
		!strings.Contains(fmt.Sprint(c["args"]), "--leader-election") {
		t.Errorf("the failover's runtime configuration = %s with %v replicas, image %v, args %v; want %s, 2, the package's own, --leader-election",
			u.GetName(), spec["replicas"], c["image"], c["args"], ProviderName)
	}
}

// The takeover bound is client-go's: two tries at most RetryPeriod plus 1.2
// times it apart (wait.Jitter with leaderelection.JitterFactor), after the
// lease duration. make e2e measured 19.95 s once, past the 19.8 s of a
// bound that read the jitter as 20%.
func TestTheTakeoverBoundIsTheLeaseDurationAndTwoJitteredRetries(t *testing.T) {
	if got := MaxRetry(); got != 4400*time.Millisecond {
		t.Errorf("MaxRetry() = %s, want 4.4s (2s + 1.2 × 2s)", got)
	}
	if got, want := TakeoverBound(), 15*time.Second+2*4400*time.Millisecond+takeoverSlack; got != want {
		t.Errorf("TakeoverBound() = %s, want %s", got, want)
	}
	if TakeoverBound() < 19950*time.Millisecond {
		t.Errorf("TakeoverBound() = %s, below a takeover make e2e measured (19.95 s)", TakeoverBound())
	}
}

func TestSetMemoryLimitReplacesTheGuidesLimit(t *testing.T) {
	u, err := InstallGuideRuntimeConfig(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	if err := SetMemoryLimit(u, "96Mi"); err != nil {
		t.Fatal(err)
	}
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "deploymentTemplate", "spec", "template", "spec", "containers")
	got, _, _ := unstructured.NestedString(containers[0].(map[string]any), "resources", "limits", "memory")
	req, _, _ := unstructured.NestedString(containers[0].(map[string]any), "resources", "requests", "memory")
	if got != "96Mi" || req != "96Mi" {
		t.Errorf("limit %q, request %q; want 96Mi both (a request above the limit is refused)", got, req)
	}
}
