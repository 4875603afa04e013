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

package composition

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crossplane/crossplane-runtime/v2/pkg/fieldpath"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// The example's files.
var (
	exampleDir      = filepath.Join(crds.RepoRoot(), "examples", "composition")
	definitionFile  = filepath.Join(exampleDir, "definition.yaml")
	compositionFile = filepath.Join(exampleDir, "composition.yaml")
	functionsFile   = filepath.Join(exampleDir, "functions.yaml")
	xrFile          = filepath.Join(exampleDir, "xr.yaml")
)

const ptFunction = "function-patch-and-transform"

func readDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var docs []map[string]any
	for {
		doc := map[string]any{}
		err := d.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("cannot decode %s: %v", path, err)
		}
		if len(doc) > 0 {
			docs = append(docs, doc)
		}
	}
}

func readOne(t *testing.T, path string) map[string]any {
	t.Helper()
	docs := readDocs(t, path)
	if len(docs) != 1 {
		t.Fatalf("%s holds %d objects, want 1", path, len(docs))
	}
	return docs[0]
}

func str(t *testing.T, obj map[string]any, path string) string {
	t.Helper()
	s, err := fieldpath.Pave(obj).GetString(path)
	if err != nil {
		t.Fatalf("cannot read %s: %v", path, err)
	}
	return s
}

// ptInput returns the function-patch-and-transform input of the example's
// Composition.
func ptInput(t *testing.T) *Input {
	t.Helper()
	comp := readOne(t, compositionFile)
	steps, err := fieldpath.Pave(comp).GetValue("spec.pipeline")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps.([]any) {
		step := s.(map[string]any)
		if str(t, step, "functionRef.name") != ptFunction {
			continue
		}
		raw, err := json.Marshal(step["input"])
		if err != nil {
			t.Fatal(err)
		}
		in, err := DecodeInput(raw)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	t.Fatalf("the Composition has no %s step", ptFunction)
	return nil
}

// TestExampleFilesReferToEachOther checks the references between the files,
// which `crossplane beta validate` does not check: it validates each object
// against its schema only.
func TestExampleFilesReferToEachOther(t *testing.T) {
	xrd, comp, xr := readOne(t, definitionFile), readOne(t, compositionFile), readOne(t, xrFile)

	group, kind := str(t, xrd, "spec.group"), str(t, xrd, "spec.names.kind")
	apiVersion := group + "/" + str(t, xrd, "spec.versions[0].name")
	if got := str(t, xrd, "spec.scope"); got != "Namespaced" {
		t.Errorf("XRD spec.scope = %q, want Namespaced: the composed AIGatewayKey and AIProviders are namespaced", got)
	}
	if got, want := str(t, xrd, "metadata.name"), str(t, xrd, "spec.names.plural")+"."+group; got != want {
		t.Errorf("XRD metadata.name = %q, want %q", got, want)
	}
	if got, want := str(t, xrd, "spec.defaultCompositionRef.name"), str(t, comp, "metadata.name"); got != want {
		t.Errorf("XRD spec.defaultCompositionRef.name = %q, want the Composition's name %q", got, want)
	}
	for _, o := range []struct {
		what string
		obj  map[string]any
		av   string
		kind string
	}{
		{"Composition spec.compositeTypeRef", comp, str(t, comp, "spec.compositeTypeRef.apiVersion"), str(t, comp, "spec.compositeTypeRef.kind")},
		{"sample XR", xr, str(t, xr, "apiVersion"), str(t, xr, "kind")},
	} {
		if o.av != apiVersion || o.kind != kind {
			t.Errorf("%s is %s %s, want the XRD's %s %s", o.what, o.av, o.kind, apiVersion, kind)
		}
	}

	var declared []string
	for _, f := range readDocs(t, functionsFile) {
		declared = append(declared, str(t, f, "metadata.name"))
	}
	steps, err := fieldpath.Pave(comp).GetValue("spec.pipeline")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps.([]any) {
		if name := str(t, s.(map[string]any), "functionRef.name"); !slices.Contains(declared, name) {
			t.Errorf("the Composition uses function %q, which functions.yaml does not declare (it declares %v)", name, declared)
		}
	}
}

// TestTheBudgetsGroupIsTheNamespaceNotTheTeamsChoice: the composed
// GroupAIBudget budgets the Coder group named after the XR's namespace,
// which the platform team creates, so a team cannot put a limit on another
// team's group: the XRD has no field for a group, and one set anyway is
// not what the Composition reads.
func TestTheBudgetsGroupIsTheNamespaceNotTheTeamsChoice(t *testing.T) {
	xrd, xr := readOne(t, definitionFile), readOne(t, xrFile)
	budget, err := fieldpath.Pave(xrd).GetValue("spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.budget.properties")
	if err != nil {
		t.Fatal(err)
	}
	for field := range budget.(map[string]any) {
		if field != "spendLimitMicros" {
			t.Errorf("the XRD lets a team set spec.budget.%s; the team sets only the limit", field)
		}
	}

	// A team names the platform's group: the Composition does not read it.
	p := fieldpath.Pave(xr)
	for _, f := range []string{"groupName", "groupID", "organization"} {
		if err := p.SetValue("spec.budget."+f, "admins"); err != nil {
			t.Fatal(err)
		}
	}
	composed, err := Compose(xr, ptInput(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range composed {
		if c.Name != "budget" {
			continue
		}
		if got, want := str(t, c.Object, "spec.forProvider.groupName"), str(t, xr, "metadata.namespace"); got != want {
			t.Errorf("the composed budget's group = %q, want the XR's namespace %q", got, want)
		}
		for _, f := range []string{"groupID", "organization"} {
			if v, err := fieldpath.Pave(c.Object).GetValue("spec.forProvider." + f); err == nil {
				t.Errorf("the composed budget's spec.forProvider.%s = %v, want unset", f, v)
			}
		}
		return
	}
	t.Fatal("the sample XR composes no budget")
}

// crank runs `crossplane beta validate` from tools/crank, offline: the
// schemas of Crossplane's own kinds come from the crossplane module in the
// Go module cache, seeded into validate's cache so it never downloads them.
type crank struct {
	root, modfile, cacheDir, image string
	// bin is the crank executable `go tool` built and cached. Running it
	// directly saves the go command's start-up on every validate run.
	bin string
}

func newCrank(t *testing.T) *crank {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: builds the crossplane CLI from tools/crank, which -short excludes")
	}
	c := &crank{root: crds.RepoRoot(), cacheDir: filepath.Join(t.TempDir(), "cache")}
	c.modfile = filepath.Join(c.root, "tools", "crank", "go.mod")

	build := exec.Command("go", "tool", "-modfile="+c.modfile, "crank", "beta", "validate", "--help")
	build.Dir = c.root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cannot build the crossplane CLI from tools/crank: %v\n%s", err, out)
	}
	where := exec.Command("go", "tool", "-n", "-modfile="+c.modfile, "crank")
	where.Dir = c.root
	out, err := where.Output()
	if err != nil {
		t.Fatalf("cannot locate the crossplane CLI built from tools/crank: %v", err)
	}
	c.bin = strings.TrimSpace(string(out))
	if _, err := os.Stat(c.bin); err != nil {
		t.Fatalf("go tool -n named %q: %v", c.bin, err)
	}

	cmd := exec.Command("go", "mod", "download", "-modfile="+c.modfile, "-json", "github.com/crossplane/crossplane/v2")
	cmd.Dir = c.root
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("cannot locate the crossplane module of tools/crank: %v\n%s", err, out)
	}
	var mod struct{ Version, Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("cannot read `go mod download -json` output (%v):\n%s", err, out)
	}

	// validate always loads the schemas of the --crossplane-image, from
	// <cache>/<image with ':' as '@'> when that directory exists.
	c.image = "xpkg.crossplane.io/crossplane/crossplane:" + mod.Version
	dst := filepath.Join(c.cacheDir, strings.ReplaceAll(c.image, ":", "@"))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(mod.Dir, "cluster", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s/cluster/crds: %v", mod.Dir, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// validateResult is validate's summary line.
type validateResult struct {
	total, missing, success, failure int
	missingKinds                     []string
	output                           string
}

func (c *crank) validate(t *testing.T, extensions, resources []string) (validateResult, error) {
	t.Helper()
	cmd := exec.Command(c.bin, "beta", "validate",
		strings.Join(extensions, ","), strings.Join(resources, ","),
		"--cache-dir="+c.cacheDir, "--crossplane-image="+c.image, "--skip-success-results")
	cmd.Dir = c.root
	out, runErr := cmd.CombinedOutput()
	r := validateResult{output: string(out)}
	if strings.Contains(r.output, "downloading") {
		t.Fatalf("validate tried to download schemas; it must run offline:\n%s", out)
	}
	found := false
	for _, line := range strings.Split(r.output, "\n") {
		if k, ok := strings.CutPrefix(line, "[!] could not find CRD/XRD for: "); ok {
			r.missingKinds = append(r.missingKinds, k)
		}
		if _, err := fmt.Sscanf(line, "Total %d resources: %d missing schemas, %d success cases, %d failure cases",
			&r.total, &r.missing, &r.success, &r.failure); err == nil {
			found = true
		}
	}
	if !found {
		t.Fatalf("validate printed no summary (exit: %v):\n%s", runErr, out)
	}
	return r, runErr
}

// TestExampleValidates runs `crossplane beta validate` on the example, and on
// broken copies of it to show that validate catches what it should.
func TestExampleValidates(t *testing.T) {
	t.Parallel()
	c := newCrank(t)
	start := time.Now()
	extensions := []string{definitionFile, filepath.Join(c.root, "package", "crds")}
	resources := []string{definitionFile, compositionFile, functionsFile, xrFile}

	// validate adds each pipeline step's input as a resource of its own. No
	// schema for function-patch-and-transform's input is available offline
	// (it ships in the function's package), so exactly that one is missing.
	wantTotal := 1
	for _, f := range resources {
		wantTotal += len(readDocs(t, f))
	}
	r, err := c.validate(t, extensions, resources)
	if err != nil {
		t.Fatalf("validate failed on the example: %v\n%s", err, r.output)
	}
	want := validateResult{total: wantTotal, missing: 1, success: wantTotal - 1, missingKinds: []string{"pt.fn.crossplane.io/v1beta1, Kind=Resources"}}
	if r.total != want.total || r.missing != want.missing || r.success != want.success || r.failure != 0 || !slices.Equal(r.missingKinds, want.missingKinds) {
		t.Fatalf("validate on the example: got %+v, want %+v", r, want)
	}

	set := func(path string, v any) func(map[string]any) error {
		return func(o map[string]any) error { return fieldpath.Pave(o).SetValue(path, v) }
	}
	del := func(path string) func(map[string]any) error {
		return func(o map[string]any) error { return fieldpath.Pave(o).DeleteField(path) }
	}
	rename := func(path, to string) func(map[string]any) error {
		return func(o map[string]any) error {
			p := fieldpath.Pave(o)
			v, err := p.GetValue(path)
			if err != nil {
				return err
			}
			if err := p.DeleteField(path); err != nil {
				return err
			}
			return p.SetValue(path[:strings.LastIndex(path, ".")+1]+to, v)
		}
	}
	const schema = "spec.versions[0].schema.openAPIV3Schema.properties.spec"
	cases := map[string]struct {
		reason string
		file   string
		mutate func(map[string]any) error
		want   string
	}{
		"CompositionModeTypo": {
			reason: "The Composition is checked against Crossplane's Composition schema.",
			file:   compositionFile, mutate: set("spec.mode", "Pipelined"),
			want: `spec.mode: Unsupported value: "Pipelined"`,
		},
		"CompositionWithoutTypeRefKind": {
			reason: "Required Composition fields are enforced.",
			file:   compositionFile, mutate: del("spec.compositeTypeRef.kind"),
			want: "spec.compositeTypeRef.kind: Required value",
		},
		"XRDUnknownField": {
			reason: "Unknown fields in the XRD are reported.",
			file:   definitionFile, mutate: rename("spec.versions[0].referenceable", "referencable"),
			want: `unknown field: "referencable"`,
		},
		"XRDSchemaWrongType": {
			reason: "A wrong type in the XRD's schema shows on the XR validated against it.",
			file:   definitionFile, mutate: set(schema+".properties.providers.type", "array"),
			want: "spec.providers: Invalid value",
		},
		"XRDBrokenCELRule": {
			reason: "The XRD's CEL rules are compiled, transition rules included.",
			file:   definitionFile, mutate: set(schema+".properties.team.x-kubernetes-validations[0].rule", "self == "),
			want: "rule compile error",
		},
		"XRTeamNotAName": {
			reason: "The XR is checked against the schema the XRD defines.",
			file:   xrFile, mutate: set("spec.team", "ML_team"),
			want: "spec.team in body should match",
		},
		"XRUnknownProvider": {
			reason: "The XRD's schema has no field for other providers.",
			file:   xrFile, mutate: set("spec.providers.gemini.apiKeySecretRef", map[string]any{"name": "a", "key": "b"}),
			want: `unknown field: "gemini"`,
		},
		"XRWithoutProviderConfig": {
			reason: "Required XR fields are enforced.",
			file:   xrFile, mutate: del("spec.providerConfigName"),
			want: "spec.providerConfigName: Required value",
		},
		"FunctionWithoutPackage": {
			reason: "functions.yaml is checked against Crossplane's Function schema.",
			file:   functionsFile, mutate: del("spec.package"),
			want: "spec.package: Required value",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			obj := readOne(t, tc.file)
			if err := tc.mutate(obj); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			// JSON is YAML; validate reads it as such.
			broken := filepath.Join(t.TempDir(), filepath.Base(tc.file))
			if err := os.WriteFile(broken, b, 0o600); err != nil {
				t.Fatal(err)
			}
			swap := func(files []string) []string {
				out := slices.Clone(files)
				out[slices.Index(out, tc.file)] = broken
				return out
			}
			ext := extensions
			if tc.file == definitionFile {
				ext = swap(extensions)
			}
			r, err := c.validate(t, ext, swap(resources))
			if err == nil || r.failure == 0 {
				t.Fatalf("%s\nvalidate passed a broken %s (exit: %v):\n%s", tc.reason, filepath.Base(tc.file), err, r.output)
			}
			if !strings.Contains(r.output, tc.want) {
				t.Errorf("%s\nvalidate output lacks %q:\n%s", tc.reason, tc.want, r.output)
			}
		})
	}
	t.Cleanup(func() { t.Logf("validate: %d runs in %s", len(cases)+1, time.Since(start).Round(time.Millisecond)) })
}

// TestComposedResourcesPassAdmission renders the Composition for the sample
// XR and creates every composed resource with a server-side dry run against
// a real API server with provider-coder's CRDs: their schemas and CEL rules
// decide, as they will in a cluster. It also checks the XRD's own CEL rules
// (immutable team, providers that cannot be removed), which validate cannot
// evaluate because they compare against the previous object.
func TestComposedResourcesPassAdmission(t *testing.T) {
	t.Parallel()
	xr, in := readOne(t, xrFile), ptInput(t)
	composed, err := Compose(xr, in)
	if err != nil {
		t.Fatalf("cannot render the Composition for the sample XR: %v", err)
	}
	var names []string
	byName := map[string]map[string]any{}
	for _, c := range composed {
		names = append(names, c.Name)
		byName[c.Name] = c.Object
	}
	// The sample XR sets both providers and a budget, so every template is
	// composed.
	if want := []string{"gateway-key", "openai", "anthropic", "budget", "mcp-server"}; !slices.Equal(names, want) {
		t.Fatalf("composed resources %v, want %v", names, want)
	}
	for path, want := range map[string]string{
		"spec.forProvider.namePrefix":          str(t, xr, "spec.team"),
		"spec.writeConnectionSecretToRef.name": str(t, xr, "spec.team") + "-ai-gateway-key",
		"spec.providerConfigRef.name":          str(t, xr, "spec.providerConfigName"),
	} {
		if got := str(t, byName["gateway-key"], path); got != want {
			t.Errorf("gateway-key %s = %q, want %q", path, got, want)
		}
	}
	if got, want := str(t, byName["anthropic"], "spec.forProvider.apiKeySecretRefs[0].key"), str(t, xr, "spec.providers.anthropic.apiKeySecretRef.key"); got != want {
		t.Errorf("anthropic apiKeySecretRefs[0].key = %q, want %q", got, want)
	}
	if got, want := str(t, byName["mcp-server"], "spec.forProvider.apiKey.valueSecretRef.key"), str(t, xr, "spec.mcpServer.apiKeySecretRef.key"); got != want {
		t.Errorf("mcp-server apiKey.valueSecretRef.key = %q, want %q", got, want)
	}
	if got, want := str(t, byName["mcp-server"], "spec.forProvider.slug"), str(t, xr, "spec.team")+"-mcp"; got != want {
		t.Errorf("mcp-server slug = %q, want %q", got, want)
	}
	// Each provider publishes its gateway base URL for the team's workloads.
	for _, name := range []string{"openai", "anthropic"} {
		if got, want := str(t, byName[name], "spec.writeConnectionSecretToRef.name"), str(t, xr, "spec.team")+"-"+name+"-gateway"; got != want {
			t.Errorf("%s spec.writeConnectionSecretToRef.name = %q, want %q", name, got, want)
		}
	}

	cp := controlplane.StartOrSkip(t, controlplane.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := crds.Install(ctx, cp.Config); err != nil {
		t.Fatal(err)
	}
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	ns := str(t, xr, "metadata.namespace")
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}

	dryRun := func(obj map[string]any) (*unstructured.Unstructured, error) {
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
		return u, kube.Create(ctx, u, client.DryRunAll)
	}

	t.Run("Composed", func(t *testing.T) {
		for _, c := range composed {
			u, err := dryRun(c.Object)
			if err != nil {
				t.Errorf("dry-run create of composed resource %q: %v", c.Name, err)
				continue
			}
			// The server generated a name and filled in the CRD defaults.
			if u.GetName() == "" || u.GetName() == u.GetGenerateName() || !strings.HasPrefix(u.GetName(), u.GetGenerateName()) {
				t.Errorf("composed resource %q: name %q not generated from %q", c.Name, u.GetName(), u.GetGenerateName())
			}
			if p, err := fieldpath.Pave(u.Object).GetStringArray("spec.managementPolicies"); err != nil || !slices.Equal(p, []string{"*"}) {
				t.Errorf("composed resource %q: spec.managementPolicies %v (%v), want the CRD default [*]", c.Name, p, err)
			}
		}
	})

	t.Run("Broken", func(t *testing.T) {
		cases := map[string]struct {
			resource string
			path     string
			value    any
			want     string
		}{
			"BaseURLNotAURL":       {"openai", "spec.forProvider.baseURL", "api.openai.com", "forProvider.baseURL must be an absolute http or https URL"},
			"UnknownProviderType":  {"anthropic", "spec.forProvider.type", "gemini", `Unsupported value: "gemini"`},
			"NamePrefixNotAName":   {"gateway-key", "spec.forProvider.namePrefix", "ML_team", "spec.forProvider.namePrefix"},
			"ProviderConfigKind":   {"gateway-key", "spec.providerConfigRef.kind", "Secret", "spec.providerConfigRef.kind must be ProviderConfig or ClusterProviderConfig"},
			"CoderNameTooLong":     {"openai", "spec.forProvider.name", strings.Repeat("a", 65), "spec.forProvider.name"},
			"APIKeyRefWithoutName": {"openai", "spec.forProvider.apiKeySecretRefs[0].name", "", "spec.forProvider.apiKeySecretRefs[0].name"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				obj := runtime.DeepCopyJSON(byName[tc.resource])
				if err := fieldpath.Pave(obj).SetValue(tc.path, tc.value); err != nil {
					t.Fatal(err)
				}
				_, err := dryRun(obj)
				if !kerrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("dry-run create of %s with %s=%v: got %v, want Invalid mentioning %q", tc.resource, tc.path, tc.value, err, tc.want)
				}
			})
		}
	})

	kinds := []string{"AIGatewayKey", "AIProvider"}
	for _, k := range kinds {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("ai.coder.m.crossplane.io/v1alpha1")
		l.SetKind(k + "List")
		if err := kube.List(ctx, l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != 0 {
			t.Errorf("%d %s objects stored; a dry run must store none", len(l.Items), k)
		}
	}

	t.Run("XRDRules", func(t *testing.T) {
		crd, err := crdForXRD(readOne(t, definitionFile))
		if err != nil {
			t.Fatal(err)
		}
		// InstallCRDs waits until discovery serves the new kind.
		if _, err := envtest.InstallCRDs(cp.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}, MaxTime: time.Minute}); err != nil {
			t.Fatalf("cannot install a CRD from the XRD's schema: %v", err)
		}
		live := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(xr)}
		// The client's REST mapper may have looked the group up before the
		// CRD existed; it does not know the new kind until it looks again.
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := kube.Create(ctx, live); apimeta.IsNoMatchError(err) {
				return false, nil
			} else if err != nil {
				return false, err
			}
			return true, nil
		})
		if err != nil {
			t.Fatalf("cannot create the sample XR: %v", err)
		}
		cases := map[string]struct {
			mutate func(*fieldpath.Paved) error
			want   string // empty: the update is allowed
		}{
			"ChangeBaseURL": {
				mutate: func(p *fieldpath.Paved) error {
					return p.SetValue("spec.providers.openai.baseURL", "https://openai.example.com/v1")
				},
			},
			"RemoveProvider": {
				mutate: func(p *fieldpath.Paved) error { return p.DeleteField("spec.providers.openai") },
				want:   "spec.providers.openai cannot be removed",
			},
			"RemoveAllProviders": {
				mutate: func(p *fieldpath.Paved) error { return p.DeleteField("spec.providers") },
				want:   "spec.providers.anthropic cannot be removed",
			},
			"ChangeTeam": {
				mutate: func(p *fieldpath.Paved) error { return p.SetValue("spec.team", "ai") },
				want:   "spec.team is immutable",
			},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				u := live.DeepCopy()
				if err := tc.mutate(fieldpath.Pave(u.Object)); err != nil {
					t.Fatal(err)
				}
				err := kube.Update(ctx, u, client.DryRunAll)
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("dry-run update: %v, want it allowed", err)
				case tc.want != "" && (!kerrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("dry-run update: got %v, want Invalid mentioning %q", err, tc.want)
				}
			})
		}
	})
}

// crdForXRD is a CRD with the group, names, scope and schema of a v2 XRD.
// Crossplane's own CRD for the XR adds fields of its own (spec.crossplane,
// status); the XRD's fields and CEL rules are copied as they are, and those
// are what this CRD tests.
func crdForXRD(xrd map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	b, err := json.Marshal(xrd["spec"])
	if err != nil {
		return nil, err
	}
	var spec struct {
		Group    string                                        `json:"group"`
		Names    apiextensionsv1.CustomResourceDefinitionNames `json:"names"`
		Scope    string                                        `json:"scope"`
		Versions []struct {
			Name          string                                   `json:"name"`
			Served        bool                                     `json:"served"`
			Referenceable bool                                     `json:"referenceable"`
			Schema        apiextensionsv1.CustomResourceValidation `json:"schema"`
		} `json:"versions"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, err
	}
	if spec.Scope != string(apiextensionsv1.NamespaceScoped) {
		return nil, fmt.Errorf("XRD scope %q, want Namespaced", spec.Scope)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: spec.Names.Plural + "." + spec.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: spec.Group,
			Names: spec.Names,
			Scope: apiextensionsv1.NamespaceScoped,
		},
	}
	for _, v := range spec.Versions {
		schema := v.Schema
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Referenceable, Schema: &schema,
		})
	}
	return crd, nil
}
