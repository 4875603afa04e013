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

// Package docs runs the documentation: the shell and YAML code blocks of the
// tutorial, the how-to pages, the troubleshooting page and the README (read
// by test/framework/docblocks) against the local test bed.
package docs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// pages are the pages whose blocks run, in the order a reader meets them;
// they share one test bed, as a reader's cluster would be shared.
var pages = []string{
	"README.md",
	"docs/tutorial.md",
	"docs/how-to/keys-and-gateway-replicas.md",
	"docs/how-to/rotate-gateway-keys.md",
	"docs/how-to/providers.md",
	"docs/how-to/mcp-servers.md",
	"docs/how-to/budgets.md",
	"docs/how-to/importing.md",
	"docs/how-to/abandon-with-orphan.md",
	"docs/how-to/deletion.md",
	"docs/how-to/composition.md",
	"docs/how-to/gitops-argocd.md",
	"docs/how-to/external-runtime.md",
	"docs/how-to/changelogs.md",
	"docs/how-to/test-with-a-coder-licence.md",
	"docs/how-to/least-privilege.md",
	"docs/reference/flags.md",
	"docs/reference/metrics.md",
	"docs/troubleshooting.md",
}

// elsewhere are the pages another package runs, block by block, on a test
// bed this one does not have, by the test named.
var elsewhere = map[string]struct{ pkg, test string }{
	"docs/how-to/install.md":   {"test/crossplane", "TestTheInstallGuideMakesARestrictedDeployment"},
	"docs/how-to/upgrade.md":   {"test/crossplane", "TestTheInstallGuideMakesARestrictedDeployment"},
	"docs/how-to/uninstall.md": {"test/crossplane", "TestTheInstallGuideMakesARestrictedDeployment"},
}

// blockTimeout bounds one block; the provider polls every 15 s, as in
// make run, and a block waits at most for a minute (kubectl wait).
const blockTimeout = 2 * time.Minute

func TestEveryPageOfTheDocsIsListed(t *testing.T) {
	root := crds.RepoRoot()
	listed := map[string]bool{}
	for _, p := range pages {
		listed[p] = true
	}
	for p, by := range elsewhere {
		listed[p] = true
		// The test that runs it exists and names the page.
		files, _ := filepath.Glob(filepath.Join(root, by.pkg, "*_test.go"))
		found := false
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			found = found || (bytes.Contains(b, []byte("func "+by.test+"(t *testing.T)")) && bytes.Contains(b, []byte(`"`+p+`"`)))
		}
		if !found {
			t.Errorf("%s is run by %s in %s, which has no such test naming the page", p, by.test, by.pkg)
		}
	}
	var missing []string
	for _, glob := range []string{"docs/tutorial*.md", "docs/how-to/*.md"} {
		files, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			if !listed[filepath.ToSlash(rel)] {
				missing = append(missing, rel)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("pages the docs test does not run: %v; add them to pages", missing)
	}
}

// TestTheDocsRun runs every shell block of the pages and applies every
// YAML block on a control plane with the provider and a fake Coder, as
// make run leaves them, and fails on a command that errors or a manifest
// the API server refuses. Only a marker in the page skips a block.
func TestTheDocsRun(t *testing.T) {
	bed := startBed(t)
	var ran, applied, dry, skipped, other int
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(crds.RepoRoot(), page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docblocks.Blocks(b)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		for _, blk := range blocks {
			where := fmt.Sprintf("%s:%d", page, blk.Line)
			blk.Text = bed.printed.Replace(blk.Text)
			switch {
			case blk.Marker.Skipped(false):
				skipped++
				t.Logf("%s: skipped (%s)", where, blk.Marker.Arg)
			case blk.Marker.Verb == docblocks.VerbFile:
				if err := os.WriteFile(filepath.Join(bed.dir, blk.Marker.Arg), []byte(blk.Text), 0o600); err != nil {
					t.Fatal(err)
				}
			case blk.Shell():
				ran++
				if out, err := bed.run(blk.Text); err != nil {
					t.Errorf("%s: the commands fail: %v\n%s\n%s", where, err, blk.Text, out)
				}
			case blk.YAML():
				if blk.Marker.Verb == docblocks.VerbDryRun {
					dry++
				} else {
					applied++
				}
				if err := manifest(blk.Text); err != nil {
					t.Errorf("%s: %v; mark a block that is not a manifest <!-- docs-test: skip (why) -->", where, err)
					continue
				}
				if out, err := bed.apply(blk.Text, blk.Marker.Verb == docblocks.VerbDryRun); err != nil {
					t.Errorf("%s: the API server refuses the manifest: %v\n%s", where, err, out)
				}
			case blk.Lang == "" && docblocks.LooksLikeCommands(blk.Text):
				t.Errorf("%s: a block of commands without a language runs nowhere; label it sh (or mark it <!-- docs-test: skip (why) -->)", where)
			default:
				other++
			}
		}
	}
	t.Logf("%d shell blocks run, %d manifests applied, %d applied with server-side dry run, %d skipped by their page's marker; %d blocks of output or queries", ran, applied, dry, skipped, other)
}

// manifest says whether every document of a YAML block is an object the
// API server can be asked about.
func manifest(text string) error {
	d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(text), 4096)
	n := 0
	for {
		u := &unstructured.Unstructured{}
		err := d.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("not YAML: %w", err)
		}
		if u.Object == nil {
			continue
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return errors.New("a YAML document without apiVersion and kind")
		}
		n++
	}
	if n == 0 {
		return errors.New("a YAML block with no object")
	}
	return nil
}

// A bed is the control plane, the fake Coder and the provider, with the
// objects a reader's cluster has when a page starts.
type bed struct {
	// printed replaces what the pages show as make run printed it with
	// this run's: the fake Coder's URL.
	printed *strings.Replacer
	cp      *controlplane.ControlPlane
	dir     string
	env     []string
	kctl    string
}

// The namespaces and objects the how-to pages take as given: the
// tutorial's team-a (make run's quickstart), and a platform whose
// ClusterProviderConfig "coder" (tutorial part 2) points at the fake Coder.
var givenNamespaces = []string{"crossplane-system", "ai-gateway", "platform", "team-ml", "argocd"}

func startBed(t *testing.T) *bed {
	t.Helper()
	cp := controlplane.StartOrSkip(t, controlplane.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := crds.Install(ctx, cp.Config); err != nil {
		t.Fatal(err)
	}
	installCrossplaneCRDs(t, cp)

	fake := fakecoder.New(fakecoder.Options{})
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)

	s, err := provider.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	given(ctx, t, kube, fake)

	o := provider.DefaultOptions()
	o.PollInterval = 15 * time.Second
	o.MetricsBindAddress, o.HealthProbeBindAddress = "0", "0"
	logPath := filepath.Join(t.TempDir(), "provider.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	o.LogOutput = logFile
	pctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- provider.Run(pctx, provider.RESTConfig(cp.Config), o) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("the provider stopped with: %v", err)
		}
		_ = logFile.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("the provider's log, last 4000 bytes:\n%s", b[max(0, len(b)-4000):])
			}
		}
	})

	bin, err := controlplane.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	b := &bed{cp: cp, dir: workDir(t), kctl: filepath.Join(bin, "kubectl"), printed: strings.NewReplacer(printedCoderURL, fake.URL())}
	b.env = append(os.Environ(),
		"KUBECONFIG="+cp.KubeconfigPath,
		"PATH="+refusing(t)+string(os.PathListSeparator)+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CODER="+fake.URL(),
		"HOME="+t.TempDir(),
	)
	return b
}

// refused are the programs a block must not run here: they build or
// start a test bed of their own (make), or need what the test bed does not
// have. A block that runs one fails, and needs a skip marker.
var refused = []string{"make", "helm", "coder", "argocd", "docker"}

// refusing is a directory of programs, first on the blocks' PATH, that
// stand for the refused ones and fail saying so.
func refusing(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range refused {
		script := "#!/bin/sh\necho \"docs test: " + name + " does not run on the test bed; mark the block <!-- docs-test: skip (why) -->\" >&2\nexit 127\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// printedCoderURL is the fake Coder's URL as the tutorial shows make run
// printing it; the reader replaces it with the one printed.
const printedCoderURL = "http://127.0.0.1:41237"

// given creates what the pages take as given, as make run and the
// tutorial's part 2 leave it, pointing at the fake Coder.
func given(ctx context.Context, t *testing.T, kube client.Client, fake *fakecoder.Server) {
	t.Helper()
	for _, ns := range append([]string{"team-a"}, givenNamespaces...) {
		if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !kerrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"team-a", "crossplane-system"} {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "coder-token"}, Data: map[string][]byte{"token": []byte(fake.Token())}}
		if err := kube.Create(ctx, sec); err != nil {
			t.Fatal(err)
		}
	}
	// docs/how-to/budgets.md budgets a group its reader made in Coder, and
	// overrides the budget of one of its members.
	group, err := fake.CreateGroup("data-science")
	if err != nil {
		t.Fatal(err)
	}
	alice, err := fake.CreateUser("alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.AddGroupMember(group.ID, alice.ID); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "argocd-cm"}}
	if err := kube.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	objs := quickstart(t, fake.URL())
	cpc := &unstructured.Unstructured{}
	cpc.SetAPIVersion("coder.m.crossplane.io/v1alpha1")
	cpc.SetKind("ClusterProviderConfig")
	cpc.SetName("coder")
	cpc.Object["spec"] = map[string]any{
		"url":         fake.URL(),
		"credentials": map[string]any{"source": "Secret", "secretRef": map[string]any{"namespace": "crossplane-system", "name": "coder-token", "key": "token"}},
	}
	for _, o := range append(objs, cpc) {
		if err := kube.Create(ctx, o); err != nil && !kerrors.IsAlreadyExists(err) {
			t.Fatalf("cannot create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// quickstart are the objects of examples/quickstart, the ProviderConfig
// pointed at url, as make run applies them.
func quickstart(t *testing.T, url string) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "examples", "quickstart", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples/quickstart: %v", err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := d.Decode(&u.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if u.Object == nil {
				continue
			}
			if u.GetKind() == "ProviderConfig" {
				if err := unstructured.SetNestedField(u.Object, url, "spec", "url"); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, u)
		}
	}
	return out
}

// installCrossplaneCRDs installs Crossplane's own CRDs (packages,
// runtime configs, compositions), from the module tools/crank builds the
// CLI from, so that the pages' Crossplane manifests meet their schemas.
func installCrossplaneCRDs(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	root := crds.RepoRoot()
	cmd := exec.Command("go", "mod", "download", "-modfile="+filepath.Join(root, "tools", "crank", "go.mod"), "-json", "github.com/crossplane/crossplane/v2")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cannot locate the crossplane module of tools/crank: %v\n%s", err, out)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("cannot read `go mod download -json` output (%v):\n%s", err, out)
	}
	if _, err := envtest.InstallCRDs(cp.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(mod.Dir, "cluster", "crds")}, ErrorIfPathMissing: true, MaxTime: time.Minute,
	}); err != nil {
		t.Fatalf("cannot install Crossplane's CRDs: %v", err)
	}
}

// workDir is where the blocks run: a directory of its own (the files a
// page saves go there), whose entries link to the checkout's, so that
// examples/... and package/... resolve as in a clone.
func workDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	root := crds.RepoRoot()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "_output" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs a shell block with bash, stopping at the first command that
// fails.
func (b *bed) run(text string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", text)
	cmd.Dir, cmd.Env = b.dir, b.env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, fmt.Errorf("still running after %s", blockTimeout)
	}
	return out, err
}

// apply applies a manifest as a reader would, with kubectl.
func (b *bed) apply(text string, dryRun bool) ([]byte, error) {
	args := []string{"apply", "-f", "-"}
	if dryRun {
		args = append(args, "--dry-run=server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.kctl, args...)
	cmd.Dir, cmd.Env = b.dir, b.env
	cmd.Stdin = strings.NewReader(text)
	return cmd.CombinedOutput()
}

// TestTheCrossplaneCLICommandsOfTheDocsExist runs --help of every command
// of the Crossplane CLI the pages name, in text or in a block (skipped
// ones included), with the CLI tools/crank builds: a page that names a
// command the CLI does not have fails.
func TestTheCrossplaneCLICommandsOfTheDocsExist(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds the crossplane CLI from tools/crank, which -short excludes")
	}
	root := crds.RepoRoot()
	crank, err := crossplane.GoTool(t.Context(), root, "crank")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range append(slices.Clone(pages), slices.Sorted(maps.Keys(elsewhere))...) {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, words := range docblocks.CLICommands(b) {
			checked++
			out, err := exec.Command(crank, append(strings.Fields(words), "--help")...).CombinedOutput()
			if err != nil {
				t.Errorf("%s names `crossplane %s`, which the Crossplane CLI of tools/crank does not have: %v\n%s", page, words, err, out)
			}
		}
	}
	if checked == 0 {
		t.Fatal("the pages name no Crossplane CLI command; the composition guide validates with crossplane beta validate")
	}
}
