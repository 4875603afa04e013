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

package main

// The Mermaid diagrams of the deletion design page mirror the pure
// decisions of the code. These tests read the phases, reasons and default
// bounds from the code and look for them in the diagrams, so a new phase or
// reason, or a changed default, fails here until the diagram shows it.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	designPage  = "../../docs/explanation/deletion-design.md"
	holdFile    = "../../internal/providerconfig/hold.go"
	recordTypes = "../../apis/cluster/v1alpha1/cleanuprecord_types.go"
)

// mermaidBlocks returns the Mermaid blocks of a page.
func mermaidBlocks(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// diagram returns the one Mermaid block of the page whose comment says it
// mirrors the named function.
func diagram(t *testing.T, mirrors string) string {
	t.Helper()
	var found []string
	for _, b := range mermaidBlocks(t, designPage) {
		if strings.Contains(b, "%% mirrors "+mirrors+"\n") {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s has %d Mermaid blocks with the comment %q, want 1", designPage, len(found), "%% mirrors "+mirrors)
	}
	return found[0]
}

// transition is one line of a stateDiagram-v2: from --> to, with a label.
var transition = regexp.MustCompile(`^\s*(\S+)\s+-->\s+(\S+)\s*(?::.*)?$`)

// states returns the states a stateDiagram-v2 block moves between.
func states(block string) []string {
	seen := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		if m := transition.FindStringSubmatch(line); m != nil {
			for _, s := range m[1:3] {
				if s != "[*]" {
					seen[s] = true
				}
			}
		}
	}
	return sorted(seen)
}

// constsIn returns the values of the string constants of a Go file whose
// names start with prefix.
func constsIn(t *testing.T, file, prefix string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, prefix) || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					seen[v] = true
				}
			}
		}
	}
	return sorted(seen)
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func TestHoldDiagramShowsEveryPhaseAndReason(t *testing.T) {
	block := diagram(t, "providerconfig.Decide")
	phases := constsIn(t, holdFile, "Phase")
	if len(phases) < 3 {
		t.Fatalf("found the phases %v in %s; the parser is broken", phases, holdFile)
	}
	if got := states(block); strings.Join(got, " ") != strings.Join(phases, " ") {
		t.Errorf("the hold diagram's states are %v, want the phases of package hold %v", got, phases)
	}
	whys := constsIn(t, holdFile, "Why")
	known := map[string]bool{}
	for _, w := range whys {
		known[w] = true
		if !strings.Contains(block, w) {
			t.Errorf("the hold diagram never names the reason %s", w)
		}
	}
	for _, m := range regexp.MustCompile(`\(([A-Z][A-Za-z]+)\)`).FindAllStringSubmatch(block, -1) {
		if !known[m[1]] {
			t.Errorf("the hold diagram names the reason %s, which package hold does not decide", m[1])
		}
	}
}

func TestRecordDiagramShowsEveryPhase(t *testing.T) {
	phases := constsIn(t, recordTypes, "CleanupPhase")
	if len(phases) < 2 {
		t.Fatalf("found the phases %v in %s; the parser is broken", phases, recordTypes)
	}
	// Unwritten is a record without a status (phase ""), which the sweep
	// removes with its resource.
	set := map[string]bool{"Unwritten": true}
	for _, p := range phases {
		set[p] = true
	}
	want := strings.Join(sorted(set), " ")
	if got := strings.Join(states(diagram(t, "deletion.Store and Sweeper.Sweep")), " "); got != want {
		t.Errorf("the record diagram's states are %s, want %s", got, want)
	}
}

// boundInDiagram matches a bound a diagram names with its value.
var boundInDiagram = regexp.MustCompile(`\b(dependentTimeout|liveDependentTimeout|unreachableTimeout|sweep-grace|sync period) (\w+)`)

func TestDiagramBoundsAreTheDefaults(t *testing.T) {
	b, o := providerconfig.DefaultBounds(), provider.DefaultOptions()
	want := map[string]time.Duration{
		"dependentTimeout":     b.DependentTimeout,
		"liveDependentTimeout": b.LiveDependentTimeout,
		"unreachableTimeout":   b.UnreachableTimeout,
		"sweep-grace":          o.SweepGrace,
		"sync period":          o.SyncInterval,
	}
	all := strings.Join(mermaidBlocks(t, designPage), "\n")
	seen := map[string]bool{}
	for _, m := range boundInDiagram.FindAllStringSubmatch(all, -1) {
		seen[m[1]] = true
		if w := shortDuration(want[m[1]]); m[2] != w {
			t.Errorf("a diagram gives %s as %s, the default is %s", m[1], m[2], w)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("no diagram names %s with its default", name)
		}
	}
	first, _ := deletion.NextSweep(time.Hour, 0, true, 0)
	longest, _ := deletion.NextSweep(time.Hour, 64, true, 0)
	for _, s := range []string{
		"min(" + shortDuration(b.GraceMax) + ", " + shortDuration(b.GraceBase) + " + " + shortDuration(b.GracePerDependent) + " x N)",
		"within " + shortDuration(providerconfig.Recheck),
		"retry in " + shortDuration(first) + " doubling to " + shortDuration(longest),
	} {
		if !strings.Contains(all, s) {
			t.Errorf("no diagram says %q", s)
		}
	}
}
