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

package docs

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// A coderCLI is what `coder ai-gateway start` of the Coder module in
// go.mod accepts, read from Coder's source rather than written down here.
type coderCLI struct {
	// binary is the Coder image's binary: the first word of the ENTRYPOINT
	// of scripts/Dockerfile (whose second word, server, a gateway must
	// replace).
	binary string
	// flags are the option names, without dashes; envs the variables.
	flags, envs map[string]bool
	// envOf is the variable of each flag, to read a setting either way.
	envOf map[string]string
	// defaults are the Default of each option, by flag.
	defaults map[string]string
}

// A serpentOption is one serpent.Option literal: its Flag, Env and Default.
type serpentOption struct{ Flag, Env, Default string }

// coderModuleDir is where the Go module cache holds the Coder module of
// go.mod.
func coderModuleDir(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/coder/coder/v2")
	cmd.Dir = crds.RepoRoot()
	out, err := cmd.Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("cannot locate the Coder module of go.mod (go list -m): %v", err)
	}
	return dir
}

// loadCoderCLI reads the options of `coder ai-gateway start`: its own
// (enterprise/cli/aigatewaystart.go), the deployment options it inherits
// (aiGatewayInheritedEnvs there, defined in codersdk/deployment.go) and the
// root command's global ones (cli/root.go, RootCmd.Command), which carry
// --url and CODER_URL.
func loadCoderCLI(t *testing.T) coderCLI {
	t.Helper()
	dir := coderModuleDir(t)
	start := parseGo(t, filepath.Join(dir, "enterprise", "cli", "aigatewaystart.go"))
	opts := serpentOptions(start, nil)
	inherited := mapKeys(start, "aiGatewayInheritedEnvs")
	if len(opts) == 0 || len(inherited) == 0 {
		t.Fatal("no options or no aiGatewayInheritedEnvs in enterprise/cli/aigatewaystart.go; has Coder moved them?")
	}
	for _, o := range serpentOptions(parseGo(t, filepath.Join(dir, "codersdk", "deployment.go")), nil) {
		if inherited[o.Env] {
			opts = append(opts, o)
		}
	}
	root := parseGo(t, filepath.Join(dir, "cli", "root.go"))
	opts = append(opts, serpentOptions(funcNamed(root, "Command"), stringConsts(root))...)

	cli := coderCLI{binary: entrypointBinary(t, filepath.Join(dir, "scripts", "Dockerfile")),
		flags: map[string]bool{}, envs: map[string]bool{}, envOf: map[string]string{}, defaults: map[string]string{}}
	for env := range inherited {
		cli.envs[env] = true
	}
	for _, o := range opts {
		if o.Flag != "" {
			cli.flags[o.Flag], cli.envOf[o.Flag], cli.defaults[o.Flag] = true, o.Env, o.Default
		}
		if o.Env != "" {
			cli.envs[o.Env] = true
		}
	}
	for _, want := range []string{"key", "key-file", "http-address", "url"} {
		if !cli.flags[want] {
			t.Fatalf("the Coder source has no --%s for ai-gateway start; the parse of its options is broken", want)
		}
	}
	return cli
}

func parseGo(t *testing.T, path string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatalf("cannot parse %s: %v", path, err)
	}
	return f
}

// serpentOptions are the composite literals under n with a Flag or Env
// field: serpent.Option values. An identifier is resolved through consts.
func serpentOptions(n ast.Node, consts map[string]string) []serpentOption {
	var out []serpentOption
	if n == nil {
		return nil
	}
	ast.Inspect(n, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		var o serpentOption
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, _ := kv.Key.(*ast.Ident)
			if key == nil {
				continue
			}
			switch key.Name {
			case "Flag":
				o.Flag = stringValue(kv.Value, consts)
			case "Env":
				o.Env = stringValue(kv.Value, consts)
			case "Default":
				o.Default = stringValue(kv.Value, consts)
			}
		}
		if o.Flag != "" || o.Env != "" {
			out = append(out, o)
		}
		return true
	})
	return out
}

// stringValue is a string literal's value, or a constant's.
func stringValue(e ast.Expr, consts map[string]string) string {
	switch v := e.(type) {
	case *ast.BasicLit:
		if s, err := strconv.Unquote(v.Value); err == nil && v.Kind == token.STRING {
			return s
		}
	case *ast.Ident:
		return consts[v.Name]
	}
	return ""
}

// stringConsts are a file's string constants.
func stringConsts(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if v := stringValue(vs.Values[i], nil); v != "" {
						out[name.Name] = v
					}
				}
			}
		}
	}
	return out
}

// funcNamed is a file's function or method of that name.
func funcNamed(f *ast.File, name string) ast.Node {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			return fd
		}
	}
	return nil
}

// mapKeys are the string keys of a package-level map literal.
func mapKeys(f *ast.File, name string) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
				continue
			}
			lit, _ := vs.Values[0].(*ast.CompositeLit)
			if lit == nil {
				continue
			}
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k := stringValue(kv.Key, nil); k != "" {
						out[k] = true
					}
				}
			}
		}
	}
	return out
}

var entrypoint = regexp.MustCompile(`(?m)^ENTRYPOINT\s+(\[.*\])\s*$`)

// entrypointBinary is the first word of a Dockerfile's exec-form
// ENTRYPOINT.
func entrypointBinary(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := entrypoint.FindSubmatch(b)
	var words []string
	if len(m) < 2 || json.Unmarshal(m[1], &words) != nil || len(words) == 0 {
		t.Fatalf("%s has no ENTRYPOINT [...]", path)
	}
	return words[0]
}
