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

package crossplane_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	pkgv1 "github.com/crossplane/crossplane/apis/v2/pkg/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"
)

// installGuide is the page TestTheInstallGuideMakesARestrictedDeployment
// runs, and publishedAs the registry and organisation its package reference
// names, which the test replaces with its own registry's.
const (
	installGuide   = "docs/how-to/install.md"
	upgradeGuide   = "docs/how-to/upgrade.md"
	uninstallGuide = "docs/how-to/uninstall.md"
	publishedAs    = "registry.example.com/platform"
)

// TestTheInstallGuideMakesARestrictedDeployment runs the install guide's
// commands and manifests (then the upgrade's and the uninstall's), in order
// and as written, against Crossplane with
// its default Deployment runtime and the release `make publish` pushed to
// a registry on loopback, then checks the Deployment Crossplane made from
// them: two replicas with leader election, probes on the health port,
// resources, the ServiceAccount the extra RBAC binds, and a pod the API
// server's Pod Security admission admits under the restricted standard.
func TestTheInstallGuideMakesARestrictedDeployment(t *testing.T) {
	bin := requirements(t)
	b := startBedWith(t, crossplane.StartDeploymentRuntime)
	release(t) // make publish pushes what the guide installs
	path := toolPath(t, bin)
	if page, err := os.ReadFile(filepath.Join(crds.RepoRoot(), installGuide)); err != nil || !bytes.Contains(page, []byte(publishedAs+"/provider-coder:"+version)) {
		t.Fatalf("%s does not install %s/provider-coder:%s, the release this test publishes (%v)", installGuide, publishedAs, version, err)
	}

	// A cluster that runs Crossplane may run functions already: the
	// composition example's, whose pod the guide's first step must fix.
	fn := installFunction(t, b, path)
	dir := runPage(t, b, installGuide, path)
	first := activeRevision(t, b.kube)
	t.Run("one inactive revision is kept, as the upgrade guide says", func(t *testing.T) {
		// crossplane xpkg install without -r sets 0, which keeps every revision.
		p := &pkgv1.Provider{}
		if err := b.kube.Get(t.Context(), client.ObjectKey{Name: crossplane.ProviderName}, p); err != nil {
			t.Fatal(err)
		}
		if l := p.Spec.RevisionHistoryLimit; l == nil || *l != 1 {
			t.Errorf("spec.revisionHistoryLimit = %v, want 1 (%s: one inactive revision kept)", ptrString(l), upgradeGuide)
		}
	})
	d := providerDeployment(t, b.kube)
	t.Run("the guide's activation policy activates the cleanup records and the namespaced kinds, no more", func(t *testing.T) {
		// The package declares SafeStart and this bed installs no default
		// policy: what is active is what the guide's policy names.
		want := map[string]string{}
		for name := range packageCRDs(t) {
			switch {
			case strings.Contains(name, "providerconfigs"):
			case strings.HasSuffix(name, ".ai.coder.m.crossplane.io"), name == "cleanuprecords.coder.crossplane.io":
				want[name] = "Active"
			default:
				want[name] = "Inactive"
			}
		}
		waitMRDStates(t, b.kube, want)
	})
	t.Run("two replicas, one leader", func(t *testing.T) {
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
			t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
		}
		if c := runtimeContainer(t, d); !slices.Contains(c.Args, "--leader-election") {
			t.Errorf("args = %q, want --leader-election with two replicas", c.Args)
		}
	})
	t.Run("probes on the provider's health port", func(t *testing.T) {
		c := runtimeContainer(t, d)
		for name, p := range map[string]*corev1.Probe{"/readyz": c.ReadinessProbe, "/healthz": c.LivenessProbe} {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != name || p.HTTPGet.Port != intstr.FromInt32(8081) {
				t.Errorf("probe %s = %+v, want an HTTP GET of %s on 8081 (--health-probe-bind-address)", name, p, name)
			}
		}
	})
	t.Run("resources requested, memory bounded", func(t *testing.T) {
		r := runtimeContainer(t, d).Resources
		if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
			t.Errorf("resources = %+v, want CPU and memory requests and a memory limit", r)
		}
	})
	t.Run("the ServiceAccount the extra RBAC binds", func(t *testing.T) {
		if d.Spec.Template.Spec.ServiceAccountName != "provider-coder" {
			t.Errorf("serviceAccountName = %q, want provider-coder (examples/install/rbac.yaml)", d.Spec.Template.Spec.ServiceAccountName)
		}
	})
	t.Run("its pod passes restricted Pod Security admission", func(t *testing.T) {
		ns := &corev1.Namespace{}
		if err := b.kube.Get(t.Context(), client.ObjectKey{Name: d.Namespace}, ns); err != nil {
			t.Fatal(err)
		}
		if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
			t.Fatalf("namespace %s enforces %q, want restricted (the guide's first step)", d.Namespace, ns.Labels["pod-security.kubernetes.io/enforce"])
		}
		// The API server admits the pod the ReplicaSet would create, or
		// says which rule it breaks; a dry run stores nothing.
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, GenerateName: d.Name + "-", Labels: d.Spec.Template.Labels},
			Spec:       *d.Spec.Template.Spec.DeepCopy(),
		}
		if err := b.kube.Create(t.Context(), pod, client.DryRunAll); err != nil {
			t.Errorf("the provider's pod is refused: %v", err)
		}
		// And the check is real: the same pod with its seccomp profile
		// removed is refused.
		bad := pod.DeepCopy()
		bad.Spec.SecurityContext.SeccompProfile = nil
		for i := range bad.Spec.Containers {
			if sc := bad.Spec.Containers[i].SecurityContext; sc != nil {
				sc.SeccompProfile = nil
			}
		}
		if err := b.kube.Create(t.Context(), bad, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "seccompProfile") {
			t.Errorf("a pod without a seccomp profile: %v, want it refused by the restricted standard", err)
		}
	})

	t.Run("Crossplane's own pods pass restricted Pod Security admission, with the guide's chart values", func(t *testing.T) {
		checkCrossplanePods(t, b, dir)
	})
	t.Run("a function's pod passes restricted Pod Security admission, with the guide's default runtime config", func(t *testing.T) {
		checkFunctionPod(t, b, fn)
	})

	// The upgrade page: to the next release and back to the kept revision.
	nextRelease(t)
	runPage(t, b, upgradeGuide, path)
	back := activeRevision(t, b.kube)
	if back.Name != first.Name {
		t.Errorf("after the rollback revision %s (%s) is active, want the kept revision %s", back.Name, back.Spec.Package, first.Name)
	}
	revs := &pkgv1.ProviderRevisionList{}
	if err := b.kube.List(t.Context(), revs, client.MatchingLabels{pkgv1.LabelParentPackage: crossplane.ProviderName}); err != nil {
		t.Fatal(err)
	}
	var upgraded bool
	for _, r := range revs.Items {
		upgraded = upgraded || strings.HasSuffix(r.Spec.Package, ":"+nextVersion)
	}
	if !upgraded || len(revs.Items) != 2 {
		t.Errorf("%d revisions after the upgrade and rollback, with the next release's among them: %v; want the two", len(revs.Items), upgraded)
	}
	if d := providerDeployment(t, b.kube); d.Name != first.Name {
		t.Errorf("after the rollback the Deployment is %s, want the kept revision's %s", d.Name, first.Name)
	}

	// The uninstall page: the Provider goes, and its CRDs with it.
	runPage(t, b, uninstallGuide, path)
	err := wait.PollUntilContextTimeout(t.Context(), 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		l := &apiextensionsv1.CustomResourceDefinitionList{}
		if err := b.kube.List(ctx, l); err != nil {
			return false, err
		}
		for _, crd := range l.Items {
			if strings.Contains(crd.Spec.Group, "coder.") {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("the provider's CRDs are still there two minutes after the uninstall: %v", err)
	}
}

// runPage runs a page's shell and YAML blocks (not those marked skip) in
// order, on b, with its package reference pointed at this test's registry,
// and fails t at the first that fails. They run in one directory, returned,
// where a block marked file is saved under its name.
func runPage(t *testing.T, b *bed, page, path string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(crds.RepoRoot(), page))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docblocks.Blocks(bytes.ReplaceAll(text, []byte(publishedAs), []byte(reg.Host+"/"+crossplane.Org)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ran := 0
	for _, blk := range blocks {
		if blk.Marker.Verb == docblocks.VerbFile {
			if err := os.WriteFile(filepath.Join(dir, blk.Marker.Arg), []byte(blk.Text), 0o600); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if blk.Marker.Skipped(false) || (blk.Lang != "sh" && blk.Lang != "yaml") {
			continue
		}
		ran++
		var cmd *exec.Cmd
		if blk.Lang == "yaml" {
			cmd = exec.CommandContext(t.Context(), "kubectl", "apply", "-f", "-")
			cmd.Stdin = strings.NewReader(blk.Text)
		} else {
			cmd = exec.CommandContext(t.Context(), "bash", "-euo", "pipefail", "-c", blk.Text)
		}
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "KUBECONFIG="+b.cp.KubeconfigPath, "PATH="+path+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s:%d (%s block): %v\n%s\n%s\nCrossplane's logs:\n%s", page, blk.Line, blk.Lang, err, blk.Text, out, tail(b.xp.Logs(), 40))
		}
		t.Logf("%s:%d ran:\n%s", page, blk.Line, tail(string(out), 12))
	}
	if ran == 0 {
		t.Fatalf("%s: no block ran", page)
	}
	return dir
}

// activeRevision is the Provider's active revision.
func activeRevision(t *testing.T, kube client.Client) *pkgv1.ProviderRevision {
	t.Helper()
	r, err := active(t.Context(), kube)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func active(ctx context.Context, kube client.Client) (*pkgv1.ProviderRevision, error) {
	revs := &pkgv1.ProviderRevisionList{}
	if err := kube.List(ctx, revs, client.MatchingLabels{pkgv1.LabelParentPackage: crossplane.ProviderName}); err != nil {
		return nil, err
	}
	for i := range revs.Items {
		if revs.Items[i].Spec.DesiredState == pkgv1.PackageRevisionActive {
			return &revs.Items[i], nil
		}
	}
	return nil, errors.New("the Provider has no active revision")
}

// providerDeployment waits for the Deployment Crossplane's runtime makes
// for the active revision of the Provider.
func providerDeployment(t *testing.T, kube client.Client) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	var why string
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		r, err := active(ctx, kube)
		if err != nil {
			why = err.Error()
			return false, nil
		}
		if err := kube.Get(ctx, client.ObjectKey{Namespace: crossplane.Namespace, Name: r.Name}, d); err != nil {
			why = err.Error()
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("no Deployment for the provider's active revision: %v (%s)", err, why)
	}
	return d
}

func runtimeContainer(t *testing.T, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "package-runtime" {
			return c
		}
	}
	t.Fatalf("the Deployment %s has no package-runtime container", d.Name)
	return corev1.Container{}
}

// toolPath is a directory with what the guide runs: kubectl from bin, and
// `crossplane`, the Crossplane CLI of tools/crank.
func toolPath(t *testing.T, bin string) string {
	t.Helper()
	root := crds.RepoRoot()
	crank, err := crossplane.GoTool(t.Context(), root, "crank")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, target := range map[string]string{"crossplane": crank, "kubectl": filepath.Join(bin, "kubectl")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func ptrString(p *int64) string {
	if p == nil {
		return "unset"
	}
	return strconv.FormatInt(*p, 10)
}
