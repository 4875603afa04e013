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

// The hand-written reference pages must name every flag of the binary and
// every reason the provider can report. These tests read the code, not a
// list kept next to them, so a new flag or reason without documentation
// fails here.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
)

const (
	flagsPage           = "../../docs/reference/flags.md"
	conditionsPage      = "../../docs/reference/conditions.md"
	troubleshootingPage = "../../docs/troubleshooting.md"
	mainFile            = "../../cmd/provider/main.go"
	internalDir         = "../../internal"
)

// A flagDef is one flag the binary registers: its name and the Options
// field it fills.
type flagDef struct {
	Name  string
	Field string
}

// flagsOf finds every flag registered on a flag.FlagSet in a Go file:
// calls like fs.DurationVar(&o.PollInterval, "poll", ...).
func flagsOf(t *testing.T, file string) []flagDef {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []flagDef
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		m := sel.Sel.Name
		nameArg := 0
		switch {
		case m == "Func" || m == "BoolFunc" || m == "TextVar":
			if m == "TextVar" {
				nameArg = 1
			}
		case strings.HasSuffix(m, "Var"):
			nameArg = 1
		case m == "Bool" || m == "Duration" || m == "Int" || m == "Int64" || m == "Uint" || m == "Uint64" || m == "String" || m == "Float64":
		default:
			return true
		}
		if len(call.Args) <= nameArg {
			return true
		}
		lit, ok := call.Args[nameArg].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		name, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		def := flagDef{Name: name}
		if nameArg == 1 {
			// &o.Field
			if u, ok := call.Args[0].(*ast.UnaryExpr); ok {
				if s, ok := u.X.(*ast.SelectorExpr); ok {
					def.Field = s.Sel.Name
				}
			}
		}
		out = append(out, def)
		return true
	})
	return out
}

// flagDefault is how flags.md writes the default of an Options field.
func flagDefault(t *testing.T, field string) string {
	t.Helper()
	v := reflect.ValueOf(provider.DefaultOptions()).FieldByName(field)
	if !v.IsValid() {
		t.Fatalf("provider.Options has no field %s", field)
	}
	switch x := v.Interface().(type) {
	case time.Duration:
		return shortDuration(x)
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case string:
		if x == "" {
			return `""`
		}
		return x
	}
	t.Fatalf("no format for the default of Options.%s (%s)", field, v.Type())
	return ""
}

// shortDuration writes 1m0s as 1m and 1h0m0s as 1h, as people do.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// rows maps the first cell of each table row of a page (without its
// backticks) to the row's cells.
func rows(t *testing.T, page string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		out[strings.Trim(cells[0], "`")] = cells
	}
	return out
}

func TestFlagsPageDocumentsEveryFlagWithItsDefault(t *testing.T) {
	flags := flagsOf(t, mainFile)
	if len(flags) < 10 {
		t.Fatalf("found %d flags in %s; the parser is missing the flag registrations", len(flags), mainFile)
	}
	doc := rows(t, flagsPage)
	seen := map[string]bool{}
	for _, f := range flags {
		seen["--"+f.Name] = true
		row, ok := doc["--"+f.Name]
		if !ok {
			t.Errorf("docs/reference/flags.md has no row for --%s", f.Name)
			continue
		}
		if f.Field == "" {
			continue
		}
		if want := "`" + flagDefault(t, f.Field) + "`"; len(row) < 2 || row[1] != want {
			t.Errorf("docs/reference/flags.md gives --%s the default %v, want %s", f.Name, row[1:2], want)
		}
	}
	for name := range doc {
		if strings.HasPrefix(name, "--") && !seen[name] {
			t.Errorf("docs/reference/flags.md documents %s, which cmd/provider does not register", name)
		}
	}
}

// reasonName matches the constants that hold a reason a user can see: a
// condition reason, an event reason, a hold or release reason, or the error
// class a release without delete names.
var reasonName = regexp.MustCompile(`^(Reason|reason|Why|Class)[A-Z]`)

// reasonsIn finds every string constant named like a reason in the
// non-test Go files under dir.
func reasonsIn(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !reasonName.MatchString(n.Name) || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						// An alias of another constant, e.g. ReasonHolding.
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						return err
					}
					out[v] = filepath.ToSlash(path) + ": " + n.Name
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConditionsPageDocumentsEveryReason(t *testing.T) {
	reasons := reasonsIn(t, internalDir)
	// Guard against a parser that finds nothing: these three exist.
	for _, r := range []string{"Connected", "WaitingForDependents", "ReleasedWithoutDelete"} {
		if _, ok := reasons[r]; !ok {
			t.Fatalf("reason %s not found under internal/; the parser is broken", r)
		}
	}
	doc := rows(t, conditionsPage)
	var missing []string
	for r, where := range reasons {
		if _, ok := doc[r]; !ok {
			missing = append(missing, r+" ("+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("docs/reference/conditions.md has no row for reason %s", m)
	}
}

func TestDocsWriteDurationsWithoutZeroUnits(t *testing.T) {
	cases := map[time.Duration]string{
		time.Minute:      "1m",
		time.Hour:        "1h",
		30 * time.Second: "30s",
		90 * time.Second: "1m30s",
		5 * time.Second:  "5s",
	}
	for in, want := range cases {
		if got := shortDuration(in); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", in, got, want)
		}
	}
}

// entries are the reasons troubleshooting.md has an entry for: a heading
// that names it in backticks (### `Connected`, or several: ### `A`, `B`),
// or a table row whose first cell is it.
func entries(t *testing.T, page string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for r := range rows(t, page) {
		out[r] = true
	}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
	}
	return out
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// TestTroubleshootingPageHasAnEntryForEveryReason holds the troubleshooting
// page to its first sentence: one entry for each reason the provider
// reports (the reference page has a row for each; this one says what to do).
func TestTroubleshootingPageHasAnEntryForEveryReason(t *testing.T) {
	reasons := reasonsIn(t, internalDir)
	doc := entries(t, troubleshootingPage)
	if !doc["Connected"] {
		t.Fatalf("%s has no entry for Connected; the reading of its entries is broken", troubleshootingPage)
	}
	var missing []string
	for r, where := range reasons {
		if !doc[r] {
			missing = append(missing, r+" ("+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("docs/troubleshooting.md has no entry (a heading or a table row) for reason %s", m)
	}
}
