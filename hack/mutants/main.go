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

// Command mutants proves the suite guards the deletion contract: it applies
// each mutation of a named list (mutations.go) to a copy of the working
// tree, runs the tests that should catch it, and fails unless every mutant
// is killed. A mutant is killed when a test fails; one that does not build,
// or whose tests never ran, is an error of the list, not a kill. `make
// mutants` runs it from the module root. The checkout itself is never
// touched: each mutant lives in a temporary copy.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// skipped are top-level entries never copied: version control and build
// output.
var skipped = map[string]bool{".git": true, "_output": true, "bin": true}

// testEnv is what `make test` sets: a missing control plane or Coder fails
// the run instead of skipping the scenarios, so it cannot pass as a survivor.
var testEnv = []string{"PROVIDER_CODER_REQUIRE_CONTROLPLANE=1", "PROVIDER_CODER_REQUIRE_CODER=1"}

func main() {
	only := flag.String("only", "", "Run only the mutation of this name.")
	list := flag.Bool("list", false, "List the mutations and exit.")
	root := flag.String("root", ".", "Module root to copy.")
	logs := flag.String("logs", "_output/mutants", "Directory for each mutant's test output.")
	timeout := flag.Duration("timeout", 20*time.Minute, "go test -timeout for each mutant.")
	flag.Parse()

	if *list {
		for _, m := range Mutations {
			fmt.Printf("%-46s %s  (%s -run '%s')\n", m.Name, m.File, strings.Join(m.Pkgs, " "), m.Run)
		}
		return
	}
	ms, err := selected(Mutations, *only)
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(*logs, 0o750); err != nil {
		fail(err)
	}
	start, killed, broken := time.Now(), 0, 0
	for _, m := range ms {
		t0 := time.Now()
		out, v := runMutant(*root, m, *timeout)
		logFile := filepath.Join(*logs, m.Name+".log")
		_ = os.WriteFile(logFile, out, 0o600)
		switch v {
		case verdictKilled:
			killed++
		case verdictError:
			broken++
		}
		fmt.Printf("%-46s %-8s %8s  %s\n", m.Name, v, time.Since(t0).Round(time.Second), logFile)
	}
	fmt.Printf("mutants: killed %d of %d (%s)\n", killed, len(ms), time.Since(start).Round(time.Second))
	if killed != len(ms) {
		if broken > 0 {
			fmt.Fprintf(os.Stderr, "mutants: %d did not build or ran no test; see their logs\n", broken)
		}
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutants:", err)
	os.Exit(2)
}

func selected(ms []Mutation, only string) ([]Mutation, error) {
	if only == "" {
		return ms, nil
	}
	for _, m := range ms {
		if m.Name == only {
			return []Mutation{m}, nil
		}
	}
	return nil, fmt.Errorf("no mutation named %q (see -list)", only)
}

type verdict string

const (
	verdictKilled   verdict = "killed"
	verdictSurvived verdict = "SURVIVED"
	// verdictError: the mutant did not build, or no test ran; neither
	// says anything about the suite.
	verdictError verdict = "ERROR"
)

// runMutant copies root, applies m and runs its tests. The output is
// returned for the log, prefixed by any error of the set-up.
func runMutant(root string, m Mutation, timeout time.Duration) ([]byte, verdict) {
	dir, err := os.MkdirTemp("", "provider-coder-mutant-")
	if err != nil {
		return []byte(err.Error()), verdictError
	}
	defer os.RemoveAll(dir)
	if err := copyTree(root, dir); err != nil {
		return []byte(err.Error()), verdictError
	}
	if err := apply(dir, m); err != nil {
		return []byte(err.Error()), verdictError
	}
	args := append([]string{"test", "-count=1", "-timeout", timeout.String(), "-run", m.Run}, m.Pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.Bytes(), judge(err, out.Bytes())
}

var (
	// A failed test, or one that hung until -timeout.
	testFailed = regexp.MustCompile(`(?m)^\s*--- FAIL: |^panic: test timed out`)
	// The mutant did not compile.
	buildFailed = regexp.MustCompile(`(?m)\[build failed\]|\[setup failed\]|^# `)
	// A package whose -run matched nothing.
	noTests = regexp.MustCompile(`(?m)\[no tests to run\]`)
)

// judge turns a go test run into a verdict.
func judge(runErr error, out []byte) verdict {
	switch {
	case buildFailed.Match(out):
		return verdictError
	case runErr != nil && testFailed.Match(out):
		return verdictKilled
	case runErr != nil:
		// TestMain could not start the scenario environment, or go test
		// itself failed: nothing was judged.
		return verdictError
	case noTests.Match(out):
		return verdictError
	default:
		return verdictSurvived
	}
}

// apply replaces m.Old by m.New in the copy, refusing unless Old occurs
// exactly once.
func apply(dir string, m Mutation) error {
	path := filepath.Join(dir, filepath.FromSlash(m.File))
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if n := strings.Count(string(b), m.Old); n != 1 {
		return fmt.Errorf("mutation %s: old snippet occurs %d times in %s, want exactly once", m.Name, n, m.File)
	}
	return os.WriteFile(path, []byte(strings.Replace(string(b), m.Old, m.New, 1)), 0o600) //nolint:gosec // File names a file of the list, inside the copy
}

// copyTree copies the working tree at src into dst, without the skipped
// top-level entries.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if top := strings.Split(rel, string(filepath.Separator))[0]; skipped[top] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o750)
		case d.Type().IsRegular():
			return copyFile(path, target)
		default:
			// The tree holds no symlinks or devices a test needs.
			return nil
		}
	})
}

func copyFile(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
