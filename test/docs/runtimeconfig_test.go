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
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/providerprocess"
)

// TestEveryRuntimeConfigOfTheDocsRunsTheProvider checks every
// DeploymentRuntimeConfig the pages and examples/install show, skipped
// blocks included, as the provider's pod would meet it: it keeps the
// ServiceAccount examples/install/rbac.yaml binds (without it the pod
// runs as one named after the package revision and lacks those rules),
// and passes only flags the provider defines (an unknown one crash-loops
// the pod).
func TestEveryRuntimeConfigOfTheDocsRunsTheProvider(t *testing.T) {
	root := crds.RepoRoot()
	sa := boundServiceAccount(t, filepath.Join(root, "examples", "install", "rbac.yaml"))
	flags := providerFlags(t)

	sources := map[string][]byte{}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docblocks.Blocks(b)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		for _, blk := range blocks {
			if blk.YAML() {
				sources[page+":"+itoa(blk.Line)] = []byte(blk.Text)
			}
		}
	}
	install := filepath.Join(root, "examples", "install", "provider.yaml")
	b, err := os.ReadFile(install)
	if err != nil {
		t.Fatal(err)
	}
	sources["examples/install/provider.yaml"] = b

	found := 0
	for where, text := range sources {
		for _, u := range objects(text) {
			if u.GetKind() != "DeploymentRuntimeConfig" {
				continue
			}
			found++
			if got, _, _ := unstructured.NestedString(u.Object, "spec", "serviceAccountTemplate", "metadata", "name"); got != sa {
				t.Errorf("%s: DeploymentRuntimeConfig %s names the ServiceAccount %q; examples/install/rbac.yaml binds %q", where, u.GetName(), got, sa)
			}
			containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "deploymentTemplate", "spec", "template", "spec", "containers")
			runtime := false
			for _, c := range containers {
				m, _ := c.(map[string]any)
				if m["name"] != "package-runtime" {
					continue
				}
				runtime = true
				args, _, _ := unstructured.NestedStringSlice(m, "args")
				for _, a := range args {
					name := strings.SplitN(strings.TrimLeft(a, "-"), "=", 2)[0]
					if !strings.HasPrefix(a, "-") || !flags[name] {
						t.Errorf("%s: DeploymentRuntimeConfig %s passes %q, which is no flag of the provider (docs/reference/flags.md); the pod would crash-loop", where, u.GetName(), a)
					}
				}
			}
			if len(containers) > 0 && !runtime {
				t.Errorf("%s: DeploymentRuntimeConfig %s sets containers but none named package-runtime", where, u.GetName())
			}
		}
	}
	if found < 2 {
		t.Fatalf("found %d DeploymentRuntimeConfigs in the pages and examples/install, want the tutorial's, the flags page's and the example's", found)
	}
}

// boundServiceAccount is the ServiceAccount rbac.yaml binds its rules to.
func boundServiceAccount(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, u := range objects(b) {
		subjects, _, _ := unstructured.NestedSlice(u.Object, "subjects")
		for _, s := range subjects {
			if m, _ := s.(map[string]any); m["kind"] == "ServiceAccount" {
				names[m["name"].(string)] = true
			}
		}
	}
	if len(names) != 1 {
		t.Fatalf("%s binds %d ServiceAccounts, want one", path, len(names))
	}
	for n := range names {
		return n
	}
	return ""
}

var flagLine = regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)

// providerFlags are the flags the provider binary defines, from its usage.
func providerFlags(t *testing.T) map[string]bool {
	t.Helper()
	bin, err := providerprocess.BuildProvider(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(bin, "-h").CombinedOutput() // -h exits 0 (ExitOnError) after printing the usage.
	flags := map[string]bool{}
	for _, m := range flagLine.FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if !flags["poll"] {
		t.Fatalf("no flags in the provider's usage:\n%s", out)
	}
	return flags
}

// objects are the objects of a YAML stream; a document that does not
// decode is left out (the docs run test reports it).
func objects(b []byte) []*unstructured.Unstructured {
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := d.Decode(&u.Object)
		if errors.Is(err, io.EOF) || err != nil {
			return out
		}
		if u.Object != nil {
			out = append(out, u)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
