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

// Package licenseheader checks that every Go source file and shell script
// in the repository starts with the Apache-2.0 licence header of
// hack/boilerplate.go.txt, the header `make generate` writes into generated
// code. It has only tests: `go test ./hack/licenseheader` reads the files
// and names every one without the header.
package licenseheader

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const (
	// root is the repository root, from this package's directory.
	root = "../.."
	// boilerplate is the header controller-gen and angryjet are given.
	boilerplate = "../boilerplate.go.txt"
)

// copyright matches the header's copyright line, so a file added in a later
// year (or a range of years) passes too.
var copyright = regexp.MustCompile(`^Copyright \d{4}(-\d{4})? The provider-coder Authors\.$`)

// headerBody returns the lines of the boilerplate between "/*" and "*/".
func headerBody(boilerplate string) ([]string, error) {
	lines := strings.Split(strings.TrimRight(boilerplate, "\n"), "\n")
	if len(lines) < 3 || lines[0] != "/*" || lines[len(lines)-1] != "*/" {
		return nil, errors.New("the boilerplate is not one /* ... */ comment")
	}
	body := lines[1 : len(lines)-1]
	if !copyright.MatchString(body[0]) {
		return nil, fmt.Errorf("the boilerplate's first line %q is not the copyright line", body[0])
	}
	return body, nil
}

// missingHeader says what is wrong with the licence header of the file
// called name, holding src, or "" when the header is there. body is the
// header's text (headerBody). A Go file starts with the body as a /* */
// comment, after nothing but build constraints and blank lines, and a blank
// line follows it so that it is not taken for the package doc. A shell
// script has the body as # comments, right after its #! line if it has one.
func missingHeader(name string, src []byte, body []string) string {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var want []string
	prefix := "" // what comes before the copyright line's text
	switch {
	case strings.HasSuffix(name, ".go"):
		for len(lines) > 0 && (strings.TrimSpace(lines[0]) == "" ||
			strings.HasPrefix(lines[0], "//go:build ") || strings.HasPrefix(lines[0], "// +build ")) {
			lines = lines[1:]
		}
		want = append(append([]string{"/*"}, body...), "*/")
	case strings.HasSuffix(name, ".sh"):
		if len(lines) > 0 && strings.HasPrefix(lines[0], "#!") {
			lines = lines[1:]
		}
		for _, l := range body {
			want = append(want, strings.TrimRight("# "+l, " "))
		}
		prefix = "# "
	default:
		return ""
	}
	for i, w := range want {
		if i >= len(lines) {
			return "no licence header: the file ends first"
		}
		got := lines[i]
		switch {
		case got == w:
		case i == 0:
			return fmt.Sprintf("no licence header: it starts with %q, want %q", got, w)
		case strings.HasPrefix(w, prefix+"Copyright ") && strings.HasPrefix(got, prefix) &&
			copyright.MatchString(strings.TrimPrefix(got, prefix)):
			// Another year.
		default:
			return fmt.Sprintf("licence header differs from hack/boilerplate.go.txt at its line %d: %q, want %q", i+1, got, w)
		}
	}
	if prefix == "" && len(lines) > len(want) && strings.TrimSpace(lines[len(want)]) != "" {
		return "no blank line after the licence header, so Go takes it for the package doc"
	}
	return ""
}

func TestMissingHeader(t *testing.T) {
	body, err := headerBody("/*\nCopyright 2026 The provider-coder Authors.\n\nLicensed under the Apache License.\n*/\n")
	if err != nil {
		t.Fatal(err)
	}
	const goHeader = "/*\nCopyright 2026 The provider-coder Authors.\n\nLicensed under the Apache License.\n*/\n"
	const shHeader = "# Copyright 2026 The provider-coder Authors.\n#\n# Licensed under the Apache License.\n"
	cases := map[string]struct {
		name string
		src  string
		ok   bool
	}{
		"GoWithHeader":           {"a.go", goHeader + "\npackage a\n", true},
		"GoWithHeaderAndDoc":     {"a.go", goHeader + "\n// Package a does.\npackage a\n", true},
		"GoAnotherYear":          {"a.go", strings.Replace(goHeader, "2026", "2027-2028", 1) + "\npackage a\n", true},
		"GoAfterBuildTag":        {"a.go", "//go:build linux\n\n" + goHeader + "\npackage a\n", true},
		"GoMissing":              {"a.go", "package a\n", false},
		"GoDocInstead":           {"a.go", "// Package a does.\npackage a\n", false},
		"GoEmpty":                {"a.go", "", false},
		"GoAfterPackage":         {"a.go", "package a\n\n" + goHeader, false},
		"GoBuildTagAfterHeader":  {"a.go", goHeader + "\n//go:build linux\n\npackage a\n", true},
		"GoHeaderIsPackageDoc":   {"a.go", goHeader + "package a\n", false},
		"GoAltered":              {"a.go", strings.Replace(goHeader, "Apache", "MIT", 1) + "\npackage a\n", false},
		"GoOtherAuthors":         {"a.go", strings.Replace(goHeader, "provider-coder", "Crossplane", 1) + "\npackage a\n", false},
		"GoTruncated":            {"a.go", "/*\nCopyright 2026 The provider-coder Authors.\n", false},
		"GoShellForm":            {"a.go", shHeader + "\npackage a\n", false},
		"ShWithShebang":          {"a.sh", "#!/usr/bin/env bash\n" + shHeader + "\n# What it does.\nset -eu\n", true},
		"ShWithoutShebang":       {"a.sh", shHeader + "set -eu\n", true},
		"ShMissing":              {"a.sh", "#!/usr/bin/env bash\n# What it does.\nset -eu\n", false},
		"ShHeaderAfterComment":   {"a.sh", "#!/usr/bin/env bash\n# What it does.\n" + shHeader, false},
		"ShGoForm":               {"a.sh", "#!/usr/bin/env bash\n" + goHeader, false},
		"ShTrailingSpaceOnBlank": {"a.sh", strings.Replace(shHeader, "#\n", "# \n", 1), false},
		"OtherFileIgnored":       {"a.md", "# Title\n", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := missingHeader(tc.name, []byte(tc.src), body)
			if tc.ok && got != "" {
				t.Errorf("missingHeader(%s) = %q, want the header accepted", tc.name, got)
			}
			if !tc.ok && got == "" {
				t.Errorf("missingHeader(%s) accepted the file, want it rejected", tc.name)
			}
		})
	}
}

// sourceFiles lists the repository's Go files and shell scripts, relative
// to root: the ones git tracks, or, outside a git checkout, the ones on disk
// outside .git, vendor, _output and testdata.
func sourceFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "*.go", "*.sh").Output()
	if err == nil {
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if f == "" {
				continue
			}
			// Deleted in the working tree but not yet in the index.
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			files = append(files, f)
		}
		return files
	}
	t.Logf("git ls-files failed (%v); walking the tree instead", err)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "vendor", "_output", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".sh")) {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestEverySourceFileHasTheHeader(t *testing.T) {
	b, err := os.ReadFile(boilerplate)
	if err != nil {
		t.Fatal(err)
	}
	body, err := headerBody(string(b))
	if err != nil {
		t.Fatal(err)
	}
	files := sourceFiles(t)
	// Guard against a listing that finds nothing: these exist.
	for _, f := range []string{"cmd/provider/main.go", "hack/soak.sh"} {
		if !slices.Contains(files, f) {
			t.Fatalf("%s is not among the %d files listed; the listing is broken", f, len(files))
		}
	}
	var bad []string
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Error(err)
			continue
		}
		if why := missingHeader(f, src, body); why != "" {
			bad = append(bad, f+": "+why)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		var msg bytes.Buffer
		fmt.Fprintf(&msg, "%d of %d source files lack the licence header of hack/boilerplate.go.txt "+
			"(Go: the /* */ block, then a blank line; shell: the same lines as # comments after the #! line):\n", len(bad), len(files))
		for _, l := range bad {
			fmt.Fprintf(&msg, "  %s\n", l)
		}
		t.Error(msg.String())
	}
}
