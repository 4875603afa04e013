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
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	pkgv1 "github.com/crossplane/crossplane/apis/v2/pkg/v1"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/providerprocess"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

var update = flag.Bool("update", false, "rewrite test/framework/packagerbac's recorded ClusterRole from what Crossplane grants")

// Version is the release the tests publish and install, as the install
// guide's package reference names it; nextVersion is the upgrade's.
const (
	version     = "v0.1.0"
	nextVersion = "v0.1.1"
)

// reg is this test binary's registry, and first and next the `make
// publish` to it of version and nextVersion, shared by the tests.
var (
	reg         *crossplane.Registry
	first, next published
)

// published is one `make publish`, run once.
type published struct {
	once sync.Once
	dir  string
	rel  crossplane.Release
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	reg = crossplane.StartRegistry()
	code := m.Run()
	reg.Close()
	for _, p := range []*published{&first, &next} {
		if p.dir != "" {
			_ = os.RemoveAll(p.dir)
		}
	}
	os.Exit(code)
}

// requirements skips t where the control plane or Crossplane is not built,
// unless CI requires them.
func requirements(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real Crossplane on a control plane; not in -short")
	}
	bin, err := controlplane.BinDir()
	if err == nil {
		_, err = crossplane.Binary()
	}
	if err != nil {
		if os.Getenv(controlplane.EnvRequire) != "" {
			t.Fatalf("%s is set: %v", controlplane.EnvRequire, err)
		}
		t.Skip(err)
	}
	return bin
}

// release publishes version once, as a release does, and returns it.
func release(t *testing.T) crossplane.Release {
	t.Helper()
	return first.publish(t, version)
}

// nextRelease publishes nextVersion once, the upgrade's, and returns it.
func nextRelease(t *testing.T) crossplane.Release {
	t.Helper()
	return next.publish(t, nextVersion)
}

// publish runs `make publish` of v the first time it is asked.
func (p *published) publish(t *testing.T, v string) crossplane.Release {
	t.Helper()
	p.once.Do(func() {
		if p.dir, p.err = os.MkdirTemp("", "provider-coder-xpkg-"); p.err != nil {
			return
		}
		start := time.Now()
		p.rel, p.err = crossplane.Publish(context.Background(), reg.Host, v, p.dir)
		t.Logf("make publish %s took %s", v, time.Since(start).Round(time.Second))
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.rel
}

// bed is a control plane with Crossplane and a registry on it.
type bed struct {
	cp   *controlplane.ControlPlane
	kube client.Client
	xp   *crossplane.Crossplane
	dir  string
}

func startBed(t *testing.T) *bed {
	t.Helper()
	return startBedWith(t, crossplane.Start)
}

// startBedWith starts a bed with Crossplane started by run.
func startBedWith(t *testing.T, run func(context.Context, *controlplane.ControlPlane, client.Client, string) (*crossplane.Crossplane, error)) *bed {
	t.Helper()
	cp := controlplane.StartOrSkip(t, controlplane.Options{BinDir: requirements(t)})
	s, err := provider.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	if err := pkgv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(cp.Config)
	cfg.QPS, cfg.Burst = 100, 200
	kube, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	b := &bed{cp: cp, kube: kube, dir: t.TempDir()}
	start := time.Now()
	if b.xp, err = run(t.Context(), cp, kube, b.dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.xp.Stop)
	t.Logf("Crossplane up in %s", time.Since(start).Round(100*time.Millisecond))
	return b
}

// install installs the release rel by its tag, failing t with
// Crossplane's logs if Crossplane does not.
func (b *bed) install(t *testing.T, rel crossplane.Release) *pkgv1.ProviderRevision {
	t.Helper()
	start := time.Now()
	rev, err := crossplane.Install(t.Context(), b.cp, b.kube, rel.Ref)
	if err != nil {
		t.Fatalf("%v\nCrossplane's logs:\n%s", err, b.xp.Logs())
	}
	t.Logf("%s installed as revision %s in %s", rel.Ref, rev.Name, time.Since(start).Round(100*time.Millisecond))
	return rev
}

// TestCrossplaneInstallsTheProvider publishes the release with `make
// publish` to a registry, checks the multi-arch index there, installs it
// through Crossplane by its tag, checks what Crossplane made of it, runs the
// provider from the package's image as the identity Crossplane bound, and
// upgrades it to the next release.
func TestCrossplaneInstallsTheProvider(t *testing.T) {
	b := startBed(t)
	rel := release(t)

	t.Run("the tag is the index make xpkg wrote, with every architecture's package", func(t *testing.T) {
		checkIndex(t, rel)
	})

	rev := b.install(t, rel)

	t.Run("the revision installed exactly the package's CRDs", func(t *testing.T) {
		want := packageCRDs(t)
		var got map[string]bool
		var notYet []string
		// The managed resources' CRDs come from their
		// ManagedResourceDefinitions, which Crossplane activates after the
		// revision is Healthy.
		err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, notYet = map[string]bool{}, nil
			l := &apiextensionsv1.CustomResourceDefinitionList{}
			if err := b.kube.List(ctx, l); err != nil {
				return false, err
			}
			for _, crd := range l.Items {
				if !strings.Contains(crd.Spec.Group, "coder.") {
					continue
				}
				got[crd.Name] = true
				if !established(&crd) {
					notYet = append(notYet, crd.Name)
				}
			}
			return cmp.Equal(want, got) && len(notYet) == 0, nil
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("CRDs of our groups in the cluster (+) against package/crds (-):\n%s", diff)
		}
		if err != nil {
			t.Errorf("not Established after a minute: %v (%v)", notYet, err)
		}
	})

	t.Run("the RBAC manager made the revision's ClusterRoles and bound ours", func(t *testing.T) {
		for _, suffix := range []string{"system", "aggregate-to-edit", "aggregate-to-view"} {
			n := "crossplane:provider:" + rev.Name + ":" + suffix
			if err := b.kube.Get(t.Context(), client.ObjectKey{Name: n}, &rbacv1.ClusterRole{}); err != nil {
				t.Errorf("ClusterRole %s: %v", n, err)
			}
		}
		crb := &rbacv1.ClusterRoleBinding{}
		if err := b.kube.Get(t.Context(), client.ObjectKey{Name: crossplane.SystemRoleName(rev)}, crb); err != nil {
			t.Fatal(err)
		}
		want := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: packagerbac.ServiceAccountNamespace, Name: packagerbac.ServiceAccountName}}
		if diff := cmp.Diff(want, crb.Subjects); diff != "" {
			t.Errorf("the system ClusterRoleBinding's subjects (-want +got):\n%s", diff)
		}
	})

	t.Run("the system ClusterRole is the one the other tests grant", func(t *testing.T) {
		cr := &rbacv1.ClusterRole{}
		if err := b.kube.Get(t.Context(), client.ObjectKey{Name: crossplane.SystemRoleName(rev)}, cr); err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := packagerbac.Record(crds.RepoRoot(), cr.Rules); err != nil {
				t.Fatal(err)
			}
			t.Logf("recorded %d rules in %s", len(cr.Rules), packagerbac.RecordedFile)
			return
		}
		if diff := cmp.Diff(packagerbac.SystemRules(), cr.Rules); diff != "" {
			t.Errorf("Crossplane grants other rules than %s records (-recorded +granted); run go test ./test/crossplane -run TestCrossplaneInstallsTheProvider -update:\n%s",
				packagerbac.RecordedFile, diff)
		}
	})

	t.Run("an upgrade keeps every resource and every Coder object", func(t *testing.T) {
		upgrade(t, b, rev, rel, nextRelease(t))
	})
}

// upgrade runs the provider of revision old (the package rel), creates
// keys through it, installs the next release nextRel, moves the runtime to
// the new revision and checks that nothing was deleted, in Kubernetes or in
// Coder, and that the new provider manages what the old one created. It
// returns the new provider.
func upgrade(t *testing.T, b *bed, old *pkgv1.ProviderRevision, rel, nextRel crossplane.Release) *providerprocess.Process {
	t.Helper()
	coder, proc := providerOnAFakeCoder(t, b, rel)

	const ns = "team-upgrade"
	apply(t, b.kube, fmt.Sprintf(`
apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: Secret
metadata: {name: coder-token, namespace: %[1]s}
stringData: {token: %[2]q}
---
apiVersion: coder.m.crossplane.io/v1alpha1
kind: ProviderConfig
metadata: {name: default, namespace: %[1]s}
spec:
  url: %[3]s
  credentials: {source: Secret, secretRef: {name: coder-token, key: token}}
`, ns, coder.Token(), coder.URL()))
	for _, name := range []string{"before-1", "before-2"} {
		apply(t, b.kube, key(ns, name))
	}
	before := map[string]string{}
	for _, name := range []string{"before-1", "before-2"} {
		before[name] = waitReady(t, b.kube, proc, ns, name)
	}
	uids := map[string]string{}
	for _, name := range []string{"before-1", "before-2"} {
		uids[name] = string(get(t, b.kube, ns, name).GetUID())
	}

	// N+1: the next release, published as a release is.
	next := b.install(t, nextRel)
	if next.Name == old.Name {
		t.Fatalf("the rebuilt package has the old revision's name %s: its digest did not change", old.Name)
	}
	prev := &pkgv1.ProviderRevision{}
	if err := b.kube.Get(t.Context(), client.ObjectKeyFromObject(old), prev); err != nil {
		t.Fatal(err)
	}
	if prev.Spec.DesiredState != pkgv1.PackageRevisionInactive {
		t.Errorf("the old revision %s is %s after the upgrade, want Inactive", prev.Name, prev.Spec.DesiredState)
	}
	// The runtime follows the active revision: the new release's binary,
	// as the same ServiceAccount, bound now through the new revision's role.
	if !logsVersion(proc.Logs(), version) {
		t.Errorf("the first provider did not log its version %s:\n%s", version, tail(proc.Logs(), 20))
	}
	proc.Stop()
	proc, err := crossplane.RunProvider(t.Context(), b.kube, b.cp, nextRel.Local(), t.TempDir(), append(kind.ProviderArgs(), "--health-probe-bind-address=0")...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	if !logsVersion(proc.Logs(), nextVersion) {
		t.Errorf("the upgraded provider did not log the next release's version %s:\n%s", nextVersion, tail(proc.Logs(), 20))
	}
	apply(t, b.kube, key(ns, "after"))
	waitReady(t, b.kube, proc, ns, "after")
	for name, id := range before {
		if got := waitReady(t, b.kube, proc, ns, name); got != id {
			t.Errorf("%s: external name %s after the upgrade, %s before", name, got, id)
		}
		if got := string(get(t, b.kube, ns, name).GetUID()); got != uids[name] {
			t.Errorf("%s was recreated by the upgrade: uid %s, was %s", name, got, uids[name])
		}
	}
	// What the provider needs beyond what it used here (deleting cleanup
	// records, watching namespaces) is granted too: the review the
	// provider itself runs at start, as its ServiceAccount.
	as, err := client.New(b.cp.UserConfig(packagerbac.User(), packagerbac.Groups()...), client.Options{Scheme: b.kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if missing, err := config.MissingPermissions(t.Context(), as, config.Needed); err != nil || len(missing) > 0 {
		t.Errorf("the provider's ServiceAccount lacks %s (%v)", config.MissingPermissionsMessage(missing), err)
	}
	var live []string
	for _, k := range coder.Keys() {
		live = append(live, k.ID.String())
	}
	for name, id := range before {
		if !slices.Contains(live, id) {
			t.Errorf("the upgrade deleted %s's key %s in Coder", name, id)
		}
	}
	if n := coder.Requests(fakecoder.EndpointKeysDelete); n != 0 {
		t.Errorf("Coder saw %d key deletions during the upgrade", n)
	}
	if denied := packagerbac.LoggedDenials(proc.Logs()); len(denied) > 0 {
		t.Errorf("RBAC refused the provider %d times, e.g. %s", len(denied), denied[0])
	}
	return proc
}

func packageCRDs(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "package", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in package/crds: %v", err)
	}
	out := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := sigsyaml.Unmarshal(b, crd); err != nil {
			t.Fatal(err)
		}
		out[crd.Name] = true
	}
	return out
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

func key(ns, name string) string {
	return fmt.Sprintf(`
apiVersion: ai.coder.m.crossplane.io/v1alpha1
kind: AIGatewayKey
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  providerConfigRef: {kind: ProviderConfig, name: default}
  writeConnectionSecretToRef: {name: %[2]s}
`, ns, name)
}

func apply(t *testing.T, kube client.Client, docs string) {
	t.Helper()
	for _, doc := range strings.Split(docs, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := sigsyaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := kube.Create(t.Context(), u); err != nil {
			t.Fatalf("cannot create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// providerOnAFakeCoder starts a fake Coder and the provider of release
// rel as a process, with the test bed's knobs; both stop with the test.
func providerOnAFakeCoder(t *testing.T, b *bed, rel crossplane.Release) (*fakecoder.Server, *providerprocess.Process) {
	t.Helper()
	coder := fakecoder.New(fakecoder.Options{})
	if err := coder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(coder.Close)
	proc, err := crossplane.RunProvider(t.Context(), b.kube, b.cp, rel.Local(), b.dir, append(kind.ProviderArgs(), "--health-probe-bind-address=0")...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	return coder, proc
}

func get(t *testing.T, kube client.Client, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("ai.coder.m.crossplane.io/v1alpha1")
	u.SetKind("AIGatewayKey")
	if err := kube.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

// waitReady waits until the key is Ready and returns its external name.
func waitReady(t *testing.T, kube client.Client, proc *providerprocess.Process, ns, name string) string {
	t.Helper()
	var u *unstructured.Unstructured
	var conds []any
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		u = get(t, kube, ns, name)
		conds, _, _ = unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Ready" && m["status"] == string(corev1.ConditionTrue) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s/%s is not Ready after a minute: %v\nprovider logs:\n%s", ns, name, conds, tail(proc.Logs(), 40))
	}
	return u.GetAnnotations()["crossplane.io/external-name"]
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestHoldAndRecordsScenariosUnderCrossplane runs test/e2e's hold and
// records scenarios (kind.Scenarios) against a provider installed by this
// package's Crossplane: the binary from the package's image, with the RBAC
// Crossplane's RBAC manager granted and examples/install/rbac.yaml. test/e2e
// fails the run on any RBAC denial.
func TestHoldAndRecordsScenariosUnderCrossplane(t *testing.T) {
	requirements(t)
	xpkg := release(t).Local()
	args := []string{"test", "-count=1", "-v", "-timeout=30m", "-run", kind.ScenarioPattern()}
	if providerprocess.RaceEnabled() {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(t.Context(), "go", append(args, "./test/e2e")...)
	cmd.Dir = crds.RepoRoot()
	cmd.Env = append(os.Environ(), crossplane.EnvPackage+"="+xpkg)
	out, err := cmd.CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "scenarios run") || strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "ok") {
			t.Log(l)
		}
	}
	if err != nil {
		t.Fatalf("the scenarios failed under Crossplane: %v\n%s", err, tail(string(out), 200))
	}
	if !strings.Contains(string(out), "--- PASS: TestHold") {
		t.Fatalf("no hold scenario ran:\n%s", tail(string(out), 100))
	}
}

// checkIndex checks what the registry serves at rel's tag: the index `make
// xpkg` wrote locally (same digest, so what was tested is what is served),
// with a package for linux/amd64 and one for linux/arm64, each the package
// file of its architecture.
func checkIndex(t *testing.T, rel crossplane.Release) {
	t.Helper()
	ref, err := name.ParseReference(rel.Ref)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref)
	if err != nil {
		t.Fatalf("%s is not an image index: %v", rel.Ref, err)
	}
	local, err := crossplane.LocalIndex(filepath.Dir(rel.Local()), version)
	if err != nil {
		t.Fatal(err)
	}
	served, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if wrote, err := local.Digest(); err != nil || wrote != served {
		servedRaw, _ := idx.RawManifest()
		localRaw, _ := local.RawManifest()
		t.Errorf("the registry serves index %s at %s:\n%s\nmake xpkg wrote %s (%v):\n%s", served, rel.Ref, servedRaw, wrote, err, localRaw)
	}
	got, err := crossplane.ConfigsByPlatform(idx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]v1.Hash{}
	for arch, f := range rel.Files {
		img, err := tarball.ImageFromPath(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want["linux/"+arch], err = img.ConfigName(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packages at %s by platform, as config digests (-package files +registry):\n%s", rel.Ref, diff)
	}
}

// logsVersion reports whether a provider's logs say it started as version v.
func logsVersion(logs, v string) bool {
	return regexp.MustCompile(`Starting provider-coder.*"version": ?"` + regexp.QuoteMeta(v) + `"`).MatchString(logs)
}
