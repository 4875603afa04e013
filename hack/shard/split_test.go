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
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	cases := map[string]struct {
		reason string
		tests  []string
		n      int
		always []string
		want   [][]string
	}{
		"InTurn": {
			reason: "neighbours land in different shards",
			tests:  []string{"TestA", "TestB", "TestC", "TestD", "TestE"},
			n:      2,
			want:   [][]string{{"TestA", "TestC", "TestE"}, {"TestB", "TestD"}},
		},
		"AlwaysInEveryShard": {
			reason: "a test every shard needs runs in each, once",
			tests:  []string{"TestA", "TestB", "TestC", "TestScan"},
			n:      3,
			always: []string{"TestScan", "TestNotInThePackage"},
			want:   [][]string{{"TestA", "TestScan"}, {"TestB", "TestScan"}, {"TestC", "TestScan"}},
		},
		"NoEmptyShard": {
			reason: "more shards than tests: one test each",
			tests:  []string{"TestA", "TestB"},
			n:      5,
			want:   [][]string{{"TestA"}, {"TestB"}},
		},
		"OneShard": {
			reason: "one shard runs everything",
			tests:  []string{"TestA", "TestB"},
			n:      1,
			want:   [][]string{{"TestA", "TestB"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Split(tc.tests, tc.n, tc.always)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: Split() -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRunPatternSelectsExactlyItsTests(t *testing.T) {
	re := regexp.MustCompile(RunPattern([]string{"TestA", "TestB"}))
	for name, want := range map[string]bool{"TestA": true, "TestB": true, "TestAB": false, "TestC": false, "XTestA": false} {
		if got := re.MatchString(name); got != want {
			t.Errorf("%s matches %s: %t, want %t", RunPattern([]string{"TestA", "TestB"}), name, got, want)
		}
	}
}

func TestIsTestName(t *testing.T) {
	for name, want := range map[string]bool{"Test": true, "TestA": true, "Test_a": true, "Testa": false, "TestMain": true, "Helper": false} {
		if got := IsTestName(name); got != want {
			t.Errorf("IsTestName(%q) = %t, want %t", name, got, want)
		}
	}
}

func TestTopLevelTestsAreThoseGoTestRuns(t *testing.T) {
	// This package's own tests, TestMain-free: the parser finds them all.
	got, err := TopLevelTests(".")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestFailuresPrintWhatTheFailedTestsPrinted", "TestIsTestName", "TestRunPatternSelectsExactlyItsTests", "TestSplit", "TestTopLevelTestsAreThoseGoTestRuns"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TopLevelTests(.) -want +got:\n%s", diff)
	}
}

func TestFailuresPrintWhatTheFailedTestsPrinted(t *testing.T) {
	out := strings.Split(`=== RUN   TestOK
    a_test.go:1: fine
--- PASS: TestOK (1.00s)
=== RUN   TestBad
=== RUN   TestBad/sub
=== PAUSE TestBad/sub
=== CONT  TestBad/sub
    a_test.go:2: it broke
--- FAIL: TestBad (2.00s)
    --- FAIL: TestBad/sub (2.00s)
FAIL`, "\n")
	want := []string{"--- FAIL: TestBad", "    a_test.go:2: it broke", "FAIL"}
	if diff := cmp.Diff(want, Failures(out, 200)); diff != "" {
		t.Errorf("Failures() -want +got:\n%s", diff)
	}
	if got := Results(out); len(got) != 2 || got[0].name != "TestOK" || got[1].took != 2 {
		t.Errorf("Results() = %+v, want TestOK 1s and TestBad 2s", got)
	}
}
