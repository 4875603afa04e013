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

package apis_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// crossplaneCategories are Crossplane's own categories: `kubectl get
// managed` lists every managed resource of every provider, of both scopes,
// by design. Kinds of both scopes share them; docs must not use them to
// reach one tenant's objects.
var crossplaneCategories = []string{"crossplane", "managed", "provider"}

// TestNamespacedAndClusterKindsShareNoShortNameOrCategory: a tenant's
// `kubectl -n team-a get <name>` must not reach a cluster-scoped kind.
func TestNamespacedAndClusterKindsShareNoShortNameOrCategory(t *testing.T) {
	crds := readCRDs(t)
	for _, ns := range crds {
		if ns.Spec.Scope != apiextensionsv1.NamespaceScoped {
			continue
		}
		if len(ns.Spec.Names.ShortNames) == 0 {
			t.Errorf("%s has no short name: its plural %s is shared with another group", ns.Name, ns.Spec.Names.Plural)
		}
		own := slices.DeleteFunc(slices.Clone(ns.Spec.Names.Categories), func(c string) bool { return slices.Contains(crossplaneCategories, c) })
		if len(own) == 0 {
			t.Errorf("%s has no category of its own, only Crossplane's %v", ns.Name, crossplaneCategories)
		}
		for _, cl := range crds {
			if cl.Spec.Scope != apiextensionsv1.ClusterScoped {
				continue
			}
			for _, s := range ns.Spec.Names.ShortNames {
				if slices.Contains(cl.Spec.Names.ShortNames, s) {
					t.Errorf("short name %s names the namespaced %s and the cluster-scoped %s", s, ns.Name, cl.Name)
				}
			}
			for _, c := range own {
				if slices.Contains(cl.Spec.Names.Categories, c) {
					t.Errorf("category %s holds the namespaced %s and the cluster-scoped %s", c, ns.Name, cl.Name)
				}
			}
		}
	}
	for name, which := range resourceNames(crds) {
		if len(which) > 1 && isShortName(crds, name) {
			t.Errorf("short name %s names %v", name, which)
		}
	}
}

// TestDocsNameEveryKindUnambiguously reads every kubectl command of the
// docs, the READMEs and the examples: the resource it names must name one
// kind (a fully qualified name, a short name), or a category of one scope.
func TestDocsNameEveryKindUnambiguously(t *testing.T) {
	names := resourceNames(readCRDs(t))
	commands := 0
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range kubectlCommands(string(b)) {
			commands++
			res, ok := resourceArg(c.words)
			if !ok {
				continue
			}
			for _, r := range strings.Split(res, ",") {
				r, _, _ = strings.Cut(strings.ToLower(r), "/")
				r = strings.TrimRight(r, ".:")
				if which := names[r]; len(which) > 1 {
					t.Errorf("%s:%d: %q names %s, which is %v: use a fully qualified name or a short name", file, c.line, strings.Join(c.words, " "), r, which)
				}
			}
		}
	}
	if commands == 0 {
		t.Fatal("found no kubectl command in the docs")
	}
	t.Logf("%d kubectl commands checked", commands)
}

// resourceNames maps every name kubectl resolves to our CRDs (plural,
// singular, kind, short names, categories) to the CRDs it reaches. A
// category reaches all its CRDs at once, which is ambiguous only when they
// are of both scopes.
func resourceNames(crds []*apiextensionsv1.CustomResourceDefinition) map[string][]string {
	out := map[string][]string{}
	scopes := map[string]map[apiextensionsv1.ResourceScope]bool{}
	for _, c := range crds {
		n := c.Spec.Names
		for _, name := range append([]string{n.Plural, n.Singular, strings.ToLower(n.Kind)}, n.ShortNames...) {
			if !slices.Contains(out[name], c.Name) {
				out[name] = append(out[name], c.Name)
			}
		}
		for _, cat := range n.Categories {
			if scopes[cat] == nil {
				scopes[cat] = map[apiextensionsv1.ResourceScope]bool{}
			}
			scopes[cat][c.Spec.Scope] = true
		}
	}
	for cat, s := range scopes {
		if len(s) > 1 {
			out[cat] = []string{"category " + cat + " of namespaced and cluster-scoped kinds"}
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func isShortName(crds []*apiextensionsv1.CustomResourceDefinition, name string) bool {
	return slices.ContainsFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool {
		return slices.Contains(c.Spec.Names.ShortNames, name)
	})
}

func readCRDs(t *testing.T) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "package", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in package/crds (run make generate): %v", err)
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for _, f := range files {
		out = append(out, readCRD(t, f))
	}
	return out
}

// docFiles are the pages and examples a user copies commands from.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "README.md")}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join("..", dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch filepath.Ext(p) {
			case ".md", ".yaml", ".yml", ".sh":
				if !strings.HasSuffix(p, filepath.Join("reference", "api.md")) { // generated
					files = append(files, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

type command struct {
	line  int
	words []string
}

var kubectlAt = regexp.MustCompile(`\bkubectl\s`)

// kubectlCommands are the kubectl commands of a page: from "kubectl" to the
// end of the line or of the inline code span, continued lines joined.
func kubectlCommands(page string) []command {
	var out []command
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		loc := kubectlAt.FindStringIndex(lines[i])
		if loc == nil {
			continue
		}
		start, text := i, lines[i][loc[0]:]
		for strings.HasSuffix(strings.TrimSpace(text), `\`) && i+1 < len(lines) {
			i++
			text = strings.TrimSuffix(strings.TrimSpace(text), `\`) + " " + lines[i]
		}
		text, _, _ = strings.Cut(text, "`")
		text, _, _ = strings.Cut(text, " #")
		for _, part := range regexp.MustCompile(`\||&&|;|\$\(`).Split(text, -1) {
			w := strings.Fields(strings.Trim(part, " )\"'"))
			if len(w) > 1 && w[0] == "kubectl" {
				out = append(out, command{line: start + 1, words: w})
			}
		}
	}
	return out
}

// verbsWithResource take the resource as their first argument.
var verbsWithResource = []string{"get", "describe", "delete", "annotate", "label", "patch", "edit", "wait", "explain"}

// valueFlags are the kubectl flags the docs use that take the next word.
var valueFlags = []string{"-n", "--namespace", "-o", "--output", "-l", "--selector", "--field-selector", "--for", "--type", "-p", "--patch", "--timeout", "-f", "--filename", "--context", "--kubeconfig"}

// resourceArg is the resource a kubectl command names, if its verb takes one.
func resourceArg(words []string) (string, bool) {
	verb := ""
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case slices.Contains(valueFlags, w):
			i++
		case strings.HasPrefix(w, "-"):
		case verb == "":
			verb = w
			if !slices.Contains(verbsWithResource, verb) {
				return "", false
			}
		default:
			return strings.Trim(w, `"'`), true
		}
	}
	return "", false
}
