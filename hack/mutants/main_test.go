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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the module root, from this package's directory.
const root = "../.."

// TestEveryMutationStillApplies keeps the list from rotting: when the code
// a mutation targets changes, its old snippet no longer occurs exactly once
// and this fails, instead of `make mutants` reporting a survivor (or an
// error) long after.
func TestEveryMutationStillApplies(t *testing.T) {
	names := map[string]bool{}
	for _, m := range Mutations {
		if names[m.Name] {
			t.Errorf("mutation %s is listed twice", m.Name)
		}
		names[m.Name] = true
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
		if err != nil {
			t.Errorf("mutation %s: %v", m.Name, err)
			continue
		}
		if n := strings.Count(string(b), m.Old); n != 1 {
			t.Errorf("mutation %s: old snippet occurs %d times in %s, want exactly once", m.Name, n, m.File)
		}
		if m.Old == m.New {
			t.Errorf("mutation %s changes nothing", m.Name)
		}
	}
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)

// TestEveryMutationRunsATest: each -run regexp must select at least one
// test of its packages, or a renamed test would leave the mutant judged by
// nothing.
func TestEveryMutationRunsATest(t *testing.T) {
	for _, m := range Mutations {
		run, err := regexp.Compile(m.Run)
		if err != nil {
			t.Errorf("mutation %s: -run %q: %v", m.Name, m.Run, err)
			continue
		}
		var matched []string
		for _, pkg := range m.Pkgs {
			files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(pkg, "/")), "*_test.go"))
			if err != nil || len(files) == 0 {
				t.Errorf("mutation %s: no test files in %s", m.Name, pkg)
				continue
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, sub := range testFunc.FindAllStringSubmatch(string(b), -1) {
					if run.MatchString(sub[1]) {
						matched = append(matched, sub[1])
					}
				}
			}
		}
		if len(matched) == 0 {
			t.Errorf("mutation %s: -run %q selects no test in %v", m.Name, m.Run, m.Pkgs)
		}
	}
}

func TestAMutantIsKilledOnlyByAFailingTestAndABrokenRunIsAnError(t *testing.T) {
	exit := &os.PathError{Op: "exit", Err: os.ErrInvalid}
	cases := map[string]struct {
		err  error
		out  string
		want verdict
	}{
		"TestFailed":      {err: exit, out: "--- FAIL: TestX (3.00s)\nFAIL\n", want: verdictKilled},
		"SubtestFailed":   {err: exit, out: "    --- FAIL: TestX/a (3.00s)\n--- FAIL: TestX\n", want: verdictKilled},
		"TimedOut":        {err: exit, out: "panic: test timed out after 20m0s\n", want: verdictKilled},
		"Passed":          {out: "ok  \tpkg\t3.1s\n", want: verdictSurvived},
		"NoTestRan":       {out: "ok  \tpkg\t0.1s [no tests to run]\n", want: verdictError},
		"DidNotBuild":     {err: exit, out: "# pkg\nx.go:1: undefined: y\nFAIL\tpkg [build failed]\n", want: verdictError},
		"EnvironmentDown": {err: exit, out: "cannot start the scenario environment: boom\nFAIL\tpkg\t1s\n", want: verdictError},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, judge(tc.err, []byte(tc.out))); diff != "" {
				t.Errorf("judge(...): -want, +got:\n%s", diff)
			}
		})
	}
}
