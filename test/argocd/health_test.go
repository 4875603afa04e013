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

// Package argocd tests the Argo CD integration in examples/argocd: the keys
// of argocd-cm.yaml, the samples of every kind in every state (with the
// health Argo CD must show for each) that the module in argocdrun runs
// through Argo CD's own health code, and the sync waves of the sample
// Application.
package argocd

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

var update = flag.Bool("update", false, "rewrite testdata from the samples")

const (
	configMapFile = "../../examples/argocd/argocd-cm.yaml"
	appsDir       = "../../examples/argocd/apps"
	crdsDir       = "../../package/crds"
	healthPrefix  = "resource.customizations.health."
)

// healthScripts reads the health scripts from argocd-cm.yaml, keyed as Argo
// CD keys them: group/Kind.
func healthScripts(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(configMapFile)
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := strictCodecs(t).UniversalDeserializer().Decode(b, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", configMapFile, err)
	}
	cm, ok := o.(*corev1.ConfigMap)
	if !ok || cm.Name != "argocd-cm" || cm.Namespace != "argocd" {
		t.Fatalf("%s is not the ConfigMap argocd/argocd-cm", configMapFile)
	}
	scripts := map[string]string{}
	for k, v := range cm.Data {
		if errs := validation.IsConfigMapKey(k); len(errs) > 0 {
			t.Errorf("key %q is not a valid ConfigMap key: %v", k, errs)
		}
		groupKind, ok := strings.CutPrefix(k, healthPrefix)
		if !ok {
			t.Errorf("key %q is not a health check (%s<group>_<Kind>)", k, healthPrefix)
			continue
		}
		// As Argo CD reads the key: exactly one "_" between group and kind.
		parts := strings.Split(groupKind, "_")
		if len(parts) != 2 {
			t.Errorf("key %q does not name one group and one kind", k)
			continue
		}
		scripts[parts[0]+"/"+parts[1]] = v
	}
	return scripts
}

// newScheme is the provider's own scheme, built once.
func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	schemeOnce.Do(func() { scheme, schemeErr = provider.Scheme() })
	if schemeErr != nil {
		t.Fatal(schemeErr)
	}
	return scheme
}

var (
	schemeOnce sync.Once
	scheme     *runtime.Scheme
	schemeErr  error
)

func strictCodecs(t *testing.T) serializer.CodecFactory {
	t.Helper()
	return serializer.NewCodecFactory(newScheme(t), serializer.EnableStrict)
}

func TestHealthChecksCoverEveryKind(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(crdsDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", crdsDir, err)
	}
	var kinds []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096).Decode(crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		kinds = append(kinds, crd.Spec.Group+"/"+crd.Spec.Names.Kind)
	}
	var checked []string
	for k := range healthScripts(t) {
		checked = append(checked, k)
	}
	sort.Strings(kinds)
	sort.Strings(checked)
	if diff := cmp.Diff(kinds, checked); diff != "" {
		t.Errorf("health checks in %s differ from the kinds in %s (-kinds +checks):\n%s", configMapFile, crdsDir, diff)
	}
}

func TestKindsOfOneFamilyShareOneScript(t *testing.T) {
	scripts := healthScripts(t)
	families := map[string][]string{"managed resource": nil, "ProviderConfig": nil}
	for _, k := range apis.ManagedKinds() {
		gvk := gvkOf(t, k.New())
		families["managed resource"] = append(families["managed resource"], gvk.Group+"/"+gvk.Kind)
	}
	for _, gk := range providerconfig.Kinds() {
		families["ProviderConfig"] = append(families["ProviderConfig"], gk.Group+"/"+gk.Kind)
	}
	for family, keys := range families {
		sort.Strings(keys)
		for _, k := range keys[1:] {
			if diff := cmp.Diff(scripts[keys[0]], scripts[k]); diff != "" {
				t.Errorf("%s: the script of %s differs from that of %s (-%s +%s):\n%s", family, k, keys[0], keys[0], k, diff)
			}
		}
	}
}

// TestTestdataHoldsEveryKindInEveryState checks that testdata holds the
// samples built from the API types, every kind in every state, and the
// health Argo CD must show for each (expected-health.yaml). The module in
// argocdrun runs Argo CD's own code on them; this one only writes them, so
// that it stays free of Argo CD's dependencies. With -update it first
// writes them.
func TestTestdataHoldsEveryKindInEveryState(t *testing.T) {
	s := newScheme(t)
	all, err := samples(s)
	if err != nil {
		t.Fatal(err)
	}
	printer := json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{Yaml: true})
	codecs := strictCodecs(t)

	expected := map[string]map[string]health{}
	for _, file := range sortedKeys(all) {
		expected[file] = map[string]health{}
		for _, smp := range all[file] {
			if _, dup := expected[file][smp.obj.GetName()]; dup {
				t.Fatalf("%s: two samples named %s", file, smp.obj.GetName())
			}
			expected[file][smp.obj.GetName()] = smp.want
		}
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			var written bytes.Buffer
			for i, smp := range all[file] {
				if i > 0 {
					written.WriteString("---\n")
				}
				if err := printer.Encode(smp.obj, &written); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join("testdata", file)
			b := writtenOrUpdated(t, path, written.Bytes())
			docs := splitYAML(t, b)
			if len(docs) != len(all[file]) {
				t.Fatalf("%s has %d documents, want %d", path, len(docs), len(all[file]))
			}
			for i, doc := range docs {
				// The file decodes strictly into the provider's own type.
				if _, _, err := codecs.UniversalDeserializer().Decode(doc, nil, nil); err != nil {
					t.Fatalf("%s document %d: %v", path, i+1, err)
				}
			}
		})
	}

	b, err := yaml.Marshal(expected)
	if err != nil {
		t.Fatal(err)
	}
	writtenOrUpdated(t, filepath.Join("testdata", expectedHealthFile), append([]byte(expectedHealthHeader), b...))
}

// expectedHealthFile holds, by testdata file and object name, the health
// Argo CD must show for each sample.
const (
	expectedHealthFile   = "expected-health.yaml"
	expectedHealthHeader = `# Written by go test ./test/argocd -update from test/argocd/samples_test.go:
# the health Argo CD must show for each sample in this directory, by file
# and object name. test/argocd/argocdrun checks it with Argo CD's own code.
`
)

// writtenOrUpdated returns the file at path after checking that it holds
// what the test built; with -update it first writes it.
func writtenOrUpdated(t *testing.T, path string, built []byte) []byte {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, built, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./test/argocd -update)", err)
	}
	if diff := cmp.Diff(string(built), string(b)); diff != "" {
		t.Fatalf("%s differs from the samples built from the API types; run go test ./test/argocd -update (-built +file):\n%s", path, diff)
	}
	return b
}

// TestSampleAppOrdersConfigsBeforeManagedResources checks that the sample
// Application's Secrets and ProviderConfigs come in an earlier sync wave
// than its managed resources, so Argo CD creates them first and prunes them
// last, and that every manifest decodes strictly.
func TestSampleAppOrdersConfigsBeforeManagedResources(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(appsDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", appsDir, err)
	}
	codecs := strictCodecs(t)
	managed := map[string]bool{}
	for _, k := range apis.ManagedKinds() {
		gvk := gvkOf(t, k.New())
		managed[gvk.GroupKind().String()] = true
	}
	configs := map[string]bool{"Secret": true}
	for _, gk := range providerconfig.Kinds() {
		configs[gk.String()] = true
	}

	latestConfig, earliestManaged := "", ""
	maxConfig, minManaged := 0, 0
	counted := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range splitYAML(t, b) {
			o, gvk, err := codecs.UniversalDeserializer().Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			meta, ok := o.(interface{ GetAnnotations() map[string]string })
			if !ok {
				t.Fatalf("%s: %s has no metadata", f, gvk)
			}
			raw, ok := meta.GetAnnotations()["argocd.argoproj.io/sync-wave"]
			if !ok {
				t.Errorf("%s: a %s has no argocd.argoproj.io/sync-wave annotation", f, gvk.Kind)
				continue
			}
			wave, err := strconv.Atoi(raw)
			if err != nil {
				t.Fatalf("%s: sync-wave %q: %v", f, raw, err)
			}
			name := gvk.Kind + " in " + filepath.Base(f)
			switch gk := gvk.GroupKind().String(); {
			case configs[gk]:
				counted["config"]++
				if latestConfig == "" || wave > maxConfig {
					latestConfig, maxConfig = name, wave
				}
			case managed[gk]:
				counted["managed"]++
				if earliestManaged == "" || wave < minManaged {
					earliestManaged, minManaged = name, wave
				}
			default:
				t.Errorf("%s: unexpected kind %s", f, gk)
			}
		}
	}
	if counted["config"] == 0 || counted["managed"] == 0 {
		t.Fatalf("want Secrets, ProviderConfigs and managed resources in %s, got %v", appsDir, counted)
	}
	if maxConfig >= minManaged {
		t.Errorf("%s is in sync wave %d, not before %s in wave %d", latestConfig, maxConfig, earliestManaged, minManaged)
	}
}

// gvkOf is the group, version and kind of a typed object.
func gvkOf(t *testing.T, o runtime.Object) schema.GroupVersionKind {
	t.Helper()
	gvk, err := apiutil.GVKForObject(o, newScheme(t))
	if err != nil {
		t.Fatal(err)
	}
	return gvk
}

// splitYAML splits a multi-document YAML file.
func splitYAML(t *testing.T, b []byte) [][]byte {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}
