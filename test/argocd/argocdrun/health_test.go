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

package argocdrun

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/health"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/lua"
	"github.com/argoproj/argo-cd/v3/util/settings"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"
)

const (
	configMapFile      = "../../../examples/argocd/argocd-cm.yaml"
	testdataDir        = "../testdata"
	expectedHealthFile = "expected-health.yaml"
	healthPrefix       = "resource.customizations.health."
)

// want is a sample's expected health, as test/argocd writes it.
type want struct {
	Status  health.HealthStatusCode `json:"status"`
	Message string                  `json:"message"`
}

// resourceOverrides reads argocd-cm.yaml as Argo CD's settings manager reads
// its ConfigMap (from the cluster, here a fake client holding only it) into
// the resource overrides its controller computes health with.
func resourceOverrides(t *testing.T) (map[string]v1alpha1.ResourceOverride, *corev1.ConfigMap) {
	t.Helper()
	b, err := os.ReadFile(configMapFile)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := yaml.UnmarshalStrict(b, cm); err != nil {
		t.Fatalf("%s: %v", configMapFile, err)
	}
	mgr := settings.NewSettingsManager(t.Context(), fake.NewClientset(cm), cm.Namespace)
	overrides, err := mgr.GetResourceOverrides()
	if err != nil {
		t.Fatalf("Argo CD cannot read the resource overrides of %s: %v", configMapFile, err)
	}
	return overrides, cm
}

// TestArgoCDShowsTheExpectedHealthOfEveryKindInEveryState runs each sample
// through the code Argo CD's application controller computes a resource's
// health with, and compares it with the health test/argocd expects.
func TestArgoCDShowsTheExpectedHealthOfEveryKindInEveryState(t *testing.T) {
	overrides, cm := resourceOverrides(t)
	expected := expectedHealth(t)
	vm := lua.VM{ResourceOverrides: overrides}

	files, err := filepath.Glob(filepath.Join(testdataDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == expectedHealthFile })
	var listed []string
	for f := range expected {
		listed = append(listed, filepath.Join(testdataDir, f))
	}
	slices.Sort(listed)
	if !slices.Equal(files, listed) {
		t.Fatalf("the samples in %s are %v, %s lists %v", testdataDir, files, expectedHealthFile, listed)
	}

	checked := map[string]bool{}
	for _, path := range files {
		file := filepath.Base(path)
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			seen := map[string]bool{}
			for _, u := range samples(t, path) {
				wanted, ok := expected[file][u.GetName()]
				if !ok {
					t.Fatalf("%s: %s has no expected health in %s", path, u.GetName(), expectedHealthFile)
				}
				seen[u.GetName()] = true
				key := lua.GetConfigMapKey(u.GroupVersionKind())
				checked[key] = true
				t.Run(u.GetName(), func(t *testing.T) {
					// The script Argo CD picks is the one in argocd-cm, not
					// its built-in check for *.crossplane.io.
					script, useOpenLibs, err := vm.GetHealthScript(u)
					if err != nil {
						t.Fatal(err)
					}
					if script == "" || script != cm.Data[healthPrefix+strings.Replace(key, "/", "_", 1)] {
						t.Fatalf("Argo CD does not pick the argocd-cm script of %s", key)
					}
					if useOpenLibs {
						t.Errorf("Argo CD runs the script of %s with the standard libraries; argocd-cm does not ask for them", key)
					}
					if _, err := vm.ExecuteHealthLua(u, script); err != nil {
						t.Fatalf("the health script of %s fails: %v", key, err)
					}

					// What the controller shows: the script's health, or for
					// an object being deleted its deletionMessage.
					got, err := health.GetResourceHealth(u, lua.ResourceHealthOverrides(overrides))
					if err != nil {
						t.Fatal(err)
					}
					if got == nil {
						t.Fatalf("Argo CD shows no health for %s %s", u.GetKind(), u.GetName())
					}
					if got.Status != wanted.Status || got.Message != wanted.Message {
						t.Errorf("Argo CD shows %s %s as\n  %s: %s\nwant\n  %s: %s", u.GetKind(), u.GetName(), got.Status, got.Message, wanted.Status, wanted.Message)
					}
				})
			}
			for name := range expected[file] {
				if !seen[name] {
					t.Errorf("%s expects the health of %s, which %s does not hold", expectedHealthFile, name, path)
				}
			}
		})
	}

	for key, o := range overrides {
		if o.HealthLua != "" && !checked[key] {
			t.Errorf("no sample of %s, which argocd-cm has a health check for", key)
		}
	}
}

// expectedHealth reads the health test/argocd expects, by testdata file and
// object name.
func expectedHealth(t *testing.T) map[string]map[string]want {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, expectedHealthFile))
	if err != nil {
		t.Fatalf("%v (run go test ./test/argocd -update in the provider's module)", err)
	}
	out := map[string]map[string]want{}
	if err := yaml.UnmarshalStrict(b, &out); err != nil {
		t.Fatalf("%s: %v", expectedHealthFile, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s expects nothing", expectedHealthFile)
	}
	return out
}

// samples reads the objects of a testdata file as Argo CD's cluster cache
// holds them: decoded from JSON, integers as int64.
func samples(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		j, err := utilyaml.ToJSON(doc)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(bytes.TrimSpace(j)) == 0 || string(bytes.TrimSpace(j)) == "null" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(j); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no objects", path)
	}
	return out
}
