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

// Command shard runs one scenario package as several processes at once,
// each with a share of its work and an environment of its own (control
// plane, fake Coder, provider): the scenario suites wait on time far more
// than they compute, so on two cores three of them take little longer than
// one. The package's test binary is built once; each shard runs it in the
// package's directory, as go test does, with its output in a log of its own.
//
//	go run ./hack/shard -n 3 -always TestNoSecretAppearsInLogsEventsOrStatus ./test/e2e
//	go run ./hack/shard -n 2 -by env -print '^interleavings:' ./test/interleave
//
// Each shard has PROVIDER_CODER_SHARD=i/n in its environment (test/e2e
// names its provider log by it). -by tests (the default) gives each shard a
// share of the package's top-level tests, through -test.run; -always names
// tests every shard runs as well, -skip tests none runs (the caller runs
// them on their own: make test runs a measurement of throughput when the
// machine is quiet). -by env runs every test in each shard:
// the package splits its own work by PROVIDER_CODER_SHARD (test/interleave
// splits its seeds).
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvShard tells a shard of a package split -by env which share is its own:
// "i/n", i from 1.
const EnvShard = "PROVIDER_CODER_SHARD"

func main() {
	n := flag.Int("n", 2, "number of shards")
	by := flag.String("by", "tests", "how the work is split: tests (top-level tests, by -test.run) or env ("+EnvShard+"=i/n)")
	always := flag.String("always", "", "comma-separated tests every shard runs (-by tests)")
	skip := flag.String("skip", "", "comma-separated tests no shard runs (-by tests): the caller runs them alone")
	race := flag.Bool("race", true, "build the test binary with the race detector")
	timeout := flag.Duration("timeout", 60*time.Minute, "timeout of each shard")
	out := flag.String("out", "_output", "directory of the test binary and the shards' logs")
	printRE := flag.String("print", "", "a regexp: the shards' output lines that match it are printed")
	flag.Parse()
	if flag.NArg() != 1 || (*by != "tests" && *by != "env") || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: shard [-n N] [-by tests|env] [-always T1,T2] [-race=false] [-timeout D] [-out DIR] [-print RE] PACKAGE")
		os.Exit(2)
	}
	var show *regexp.Regexp
	if *printRE != "" {
		show = regexp.MustCompile(*printRE)
	}
	os.Exit(run(flag.Arg(0), *n, *by, splitList(*always), splitList(*skip), *race, *timeout, *out, show))
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func run(pkg string, n int, by string, always, skip []string, race bool, timeout time.Duration, out string, show *regexp.Regexp) int {
	dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go list %s: %v\n", pkg, err)
		return 1
	}
	pkgDir := strings.TrimSpace(string(dir))
	name := filepath.Base(pkgDir)
	if out, err = filepath.Abs(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.MkdirAll(out, 0o750); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bin := filepath.Join(out, name+".test")
	args := []string{"test", "-c", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, pkg)...) //nolint:gosec // The package is the make target's argument.
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Printf("FAIL\t%s [build failed]\n", pkg)
		return 1
	}

	var shards []shard
	switch by {
	case "tests":
		tests, err := TopLevelTests(pkgDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		tests = slices.DeleteFunc(tests, func(t string) bool { return slices.Contains(skip, t) })
		for i, names := range Split(tests, n, always) {
			shards = append(shards, shard{i: i + 1, args: []string{"-test.run", RunPattern(names)}, tests: len(names)})
		}
	case "env":
		for i := range n {
			shards = append(shards, shard{i: i + 1})
		}
	}
	total := len(shards)
	for i := range shards {
		shards[i].env = fmt.Sprintf("%s=%d/%d", EnvShard, i+1, total)
	}
	var wg sync.WaitGroup
	for i := range shards {
		s := &shards[i]
		s.log = filepath.Join(out, fmt.Sprintf("%s-shard-%d.log", name, s.i))
		wg.Go(func() { s.run(bin, pkgDir, timeout) })
	}
	wg.Wait()
	return report(pkg, shards, show)
}

// report prints a line per shard, the failures of each failed one, the lines
// show matches and the slowest tests, and is the exit code: 1 when a shard
// failed.
func report(pkg string, shards []shard, show *regexp.Regexp) int {
	total := len(shards)
	code := 0
	var slow []result
	for _, s := range shards {
		b, _ := os.ReadFile(s.log)
		lines := strings.Split(string(b), "\n")
		for _, l := range lines {
			if show != nil && show.MatchString(l) {
				fmt.Println(l)
			}
		}
		slow = append(slow, Results(lines)...)
		what := fmt.Sprintf("shard %d/%d", s.i, total)
		if s.tests > 0 {
			what += fmt.Sprintf(", %d tests", s.tests)
		}
		if s.err == nil {
			fmt.Printf("ok  \t%s\t%.3fs\t[%s]\n", pkg, s.took.Seconds(), what)
			continue
		}
		code = 1
		fmt.Printf("FAIL\t%s\t%.3fs\t[%s: %v; the whole output is in %s]\n", pkg, s.took.Seconds(), what, s.err, s.log)
		for _, l := range Failures(lines, 200) {
			fmt.Println("    " + l)
		}
	}
	slices.SortFunc(slow, func(a, b result) int { return cmp.Compare(b.took, a.took) })
	if len(slow) > 0 {
		fmt.Printf("%s: slowest tests:", pkg)
		for _, r := range slow[:min(8, len(slow))] {
			fmt.Printf(" %s %.1fs;", r.name, r.took)
		}
		fmt.Println()
	}
	return code
}

type shard struct {
	i     int
	args  []string
	env   string
	tests int
	log   string
	took  time.Duration
	err   error
}

func (s *shard) run(bin, dir string, timeout time.Duration) {
	f, err := os.Create(s.log)
	if err != nil {
		s.err = err
		return
	}
	defer func() { _ = f.Close() }()
	cmd := exec.Command(bin, append([]string{"-test.v", "-test.count=1", "-test.timeout", timeout.String()}, s.args...)...) //nolint:gosec // The test binary this command built.
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), s.env)
	start := time.Now()
	s.err = cmd.Run()
	s.took = time.Since(start)
}

type result struct {
	name string
	took float64
}

var passLine = regexp.MustCompile(`^--- (?:PASS|FAIL): (\S+) \(([0-9.]+)s\)`)

// Results are the top-level tests a shard's -test.v output reports, with
// how long each took.
func Results(lines []string) []result {
	var out []result
	for _, l := range lines {
		m := passLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		took, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		out = append(out, result{name: m[1], took: took})
	}
	return out
}

var marker = regexp.MustCompile(`^=== (?:RUN|NAME|CONT|PAUSE)\s+(\S+)`)

// Failures are the lines of a failed shard's -test.v output worth
// printing: what each failed test printed, with its subtests', and its
// --- FAIL lines; or, when no test failed (a panic, a timeout, TestMain's
// own checks), the last limit lines.
func Failures(lines []string, limit int) []string {
	of := map[string][]string{}
	var failed []string
	cur := ""
	for _, l := range lines {
		if m := marker.FindStringSubmatch(l); m != nil {
			cur = m[1]
			continue
		}
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, "--- ") {
			if strings.HasPrefix(t, "--- FAIL: ") {
				name := strings.Fields(t)[2]
				if !strings.Contains(name, "/") {
					failed = append(failed, name)
				}
			}
			continue
		}
		top, _, _ := strings.Cut(cur, "/")
		of[top] = append(of[top], l)
	}
	var out []string
	for _, name := range failed {
		out = append(out, "--- FAIL: "+name)
		out = append(out, of[name]...)
	}
	if len(out) == 0 {
		return lines[max(0, len(lines)-limit):]
	}
	if len(out) > limit {
		out = append(out[:limit], fmt.Sprintf("... %d more lines", len(out)-limit))
	}
	return out
}
