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

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// TopLevelTests are the names of the Test functions in the _test.go files
// of dir, sorted: the tests go test would run there.
func TopLevelTests(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && fn.Recv == nil && IsTestName(fn.Name.Name) && takesT(fn) {
				out = append(out, fn.Name.Name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// IsTestName is go test's rule: Test, then nothing or a character that is
// not a lower-case letter.
func IsTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return false
	}
	return rest == "" || rest[0] < 'a' || rest[0] > 'z'
}

// takesT reports whether fn's one parameter is a *testing.T (TestMain
// takes a *testing.M).
func takesT(fn *ast.FuncDecl) bool {
	ps := fn.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) > 1 {
		return false
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// Split deals tests into at most n shards in turn, so that neighbours
// (tests of one file, often alike in what they wait for) land in different
// shards; every shard also runs the tests in always that the package has.
// No shard is empty.
func Split(tests []string, n int, always []string) [][]string {
	var rest, every []string
	for _, t := range tests {
		if slices.Contains(always, t) {
			every = append(every, t)
		} else {
			rest = append(rest, t)
		}
	}
	n = max(1, min(n, len(rest)))
	out := make([][]string, n)
	for i, t := range rest {
		out[i%n] = append(out[i%n], t)
	}
	for i := range out {
		out[i] = append(out[i], every...)
		sort.Strings(out[i])
	}
	return out
}

// RunPattern is the -test.run pattern that selects exactly names, as
// top-level tests with all their subtests.
func RunPattern(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(q, "|") + ")$"
}
