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
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// managedCRDs are the package's CRDs of managed resources (the ai.coder
// groups, both scopes).
func managedCRDs(t *testing.T) []apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "package", "crds", "ai.coder.*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, crd)
	}
	if len(out) < 8 {
		t.Fatalf("found %d managed CRDs in package/crds, want the keys, providers and budgets of both scopes", len(out))
	}
	return out
}

// TestTheOverviewsNameEveryManagedKind: the pages a reader meets first,
// the package's readme and the Argo CD health checks' page name every
// managed kind; the uninstall guide deletes every one of them, in both
// scopes, by its full name (a kind it leaves out hangs on its finalizer once
// the provider is gone, and stays in Coder).
func TestTheOverviewsNameEveryManagedKind(t *testing.T) {
	root := crds.RepoRoot()
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	overviews := []string{"README.md", "docs/README.md", "package/crossplane.yaml", "docs/how-to/gitops-argocd.md", "docs/reference/metrics.md"}
	uninstall := read("docs/how-to/uninstall.md")
	for _, crd := range managedCRDs(t) {
		for _, p := range overviews {
			if !strings.Contains(read(p), crd.Spec.Names.Kind) {
				t.Errorf("%s does not name the kind %s", p, crd.Spec.Names.Kind)
			}
		}
		if !strings.Contains(uninstall, crd.Name) {
			t.Errorf("docs/how-to/uninstall.md does not delete %s before it removes the provider", crd.Name)
		}
	}
}
