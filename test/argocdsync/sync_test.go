//go:build unix

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

package argocdsync

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/ports"
	"github.com/crossplane-contrib/provider-coder/test/framework/providerprocess"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

const (
	argocdNS = "argocd"
	// appNS is the Application's destination namespace in
	// examples/argocd/application.yaml.
	appNS = "team-a"
	// appsPath is the Application's source path, kept in the Git repository.
	appsPath = "examples/argocd/apps"
	// refreshAnnotation asks Argo CD to refresh an Application now (the
	// CLI's and UI's "Refresh"); Argo CD removes it once done.
	refreshAnnotation = "argocd.argoproj.io/refresh"

	// Bounds, not pacing: each wait polls and returns as soon as it holds.
	syncBound   = 5 * time.Minute
	deleteBound = 5 * time.Minute
)

var (
	gvrApplication = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	gvrAppProject  = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}
	// The kinds of examples/argocd/apps, watched in appNS.
	watchedKinds = []struct {
		kind string
		gvr  schema.GroupVersionResource
	}{
		{"Secret", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}},
		{"ProviderConfig", schema.GroupVersionResource{Group: "coder.m.crossplane.io", Version: "v1alpha1", Resource: "providerconfigs"}},
		{"AIGatewayKey", schema.GroupVersionResource{Group: "ai.coder.m.crossplane.io", Version: "v1alpha1", Resource: "aigatewaykeys"}},
		{"AIProvider", schema.GroupVersionResource{Group: "ai.coder.m.crossplane.io", Version: "v1alpha1", Resource: "aiproviders"}},
	}
	// The Application's objects by sync wave (examples/argocd/apps).
	waveSecrets   = []string{"Secret/coder-token", "Secret/openai-credentials"}
	wavePC        = []string{"ProviderConfig/default"}
	waveManaged   = []string{"AIGatewayKey/gateway", "AIProvider/openai"}
	healthChecked = append(append([]string(nil), wavePC...), waveManaged...)
)

// TestArgoCDSyncsAndDeletesExample syncs examples/argocd with Argo CD's own
// application controller and repo server, the provider running against the
// fake Coder, and checks that the sync applies the waves in order and turns
// Healthy under the health checks of argocd-cm.yaml, and that deleting the
// Application deletes the objects highest wave first and every key in
// Coder.
func TestArgoCDSyncsAndDeletesExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Argo CD, the provider and a control plane; not in -short")
	}
	version, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	argocd, err := Binary()
	var redisBin, gitBin string
	if err == nil {
		redisBin, gitBin, err = Tools()
	}
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("%s is set: %v", EnvRequire, err)
		}
		t.Skipf("skipping: %v", err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	logDir := filepath.Join(dir, "logs")
	for _, d := range []string{logDir, filepath.Join(dir, "redis"), filepath.Join(dir, "tmp"), filepath.Join(dir, "tls"), filepath.Join(dir, "ssh"), filepath.Join(dir, "gpg"), filepath.Join(dir, "plugins"), filepath.Join(dir, "bin")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	red := &Redactor{}
	var procs []*Process
	t.Cleanup(func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].Stop(10 * time.Second)
		}
		if t.Failed() {
			for _, p := range procs {
				t.Logf("last lines of %s (%s):\n%s", p.Name, p.LogPath, red.Redact(p.Tail(40)))
			}
		}
	})
	start := func(name, bin string, env []string, args ...string) *Process {
		t.Helper()
		p, err := Start(name, bin, logDir, env, args...)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		return p
	}

	// The provider builds while the control plane starts.
	type built struct {
		bin string
		err error
	}
	providerBuilt := make(chan built, 1)
	go func() {
		bin, err := providerprocess.BuildProvider(ctx, dir)
		providerBuilt <- built{bin, err}
	}()
	moduleDir, err := ModuleDir(ctx, version)
	if err != nil {
		t.Fatal(err)
	}
	crdDir := filepath.Join(moduleDir, "manifests", "crds")
	if err := InstallScripts(moduleDir, filepath.Join(dir, "bin")); err != nil {
		t.Fatal(err)
	}
	cp := controlplane.StartOrSkip(t, controlplane.Options{})
	pb := <-providerBuilt
	if pb.err != nil {
		t.Fatal(pb.err)
	}
	begin := time.Now()

	s, err := provider.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(rest.CopyConfig(cp.Config))
	if err != nil {
		t.Fatal(err)
	}

	// The provider, as its package runtime runs it, with production
	// defaults, against the fake Coder.
	if err := crds.Install(ctx, cp.Config); err != nil {
		t.Fatal(err)
	}
	if err := testenv.GrantPackageRBAC(ctx, kube); err != nil {
		t.Fatal(err)
	}
	fake := fakecoder.New(fakecoder.Options{})
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	red.Add(fake.Token())
	prov, err := providerprocess.New(pb.bin, logDir, cp.UserConfig(packagerbac.User(), packagerbac.Groups()...), "--debug", "--health-probe-bind-address=0")
	if err != nil {
		t.Fatal(err)
	}
	if err := prov.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		prov.Stop()
		if t.Failed() {
			t.Logf("provider log: %s", prov.LogPath())
		}
	})

	// Argo CD: its CRDs from the module, argocd-cm with the health checks,
	// the empty argocd-secret and the default AppProject that its API
	// server would create (server.initializeDefaultProject).
	if out, err := cp.Kubectl("apply", "--server-side", "-k", crdDir).CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply -k %s: %v\n%s", crdDir, err, out)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range []string{"applications.argoproj.io", "appprojects.argoproj.io"} {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := kube.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			established := false
			for _, c := range crd.Status.Conditions {
				established = established || (c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue)
			}
			if !established {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("Argo CD's CRDs are not established: %v", err)
	}
	mustCreate(ctx, t, kube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: argocdNS}})
	mustCreate(ctx, t, kube, readObject(t, filepath.Join(crds.RepoRoot(), "examples", "argocd", "argocd-cm.yaml")))
	mustCreate(ctx, t, kube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Name: "argocd-secret", Namespace: argocdNS,
		Labels: map[string]string{"app.kubernetes.io/name": "argocd-secret", "app.kubernetes.io/part-of": "argocd"},
	}})
	// Through the dynamic client: it needs no discovery, which may lag
	// behind the CRD's Established condition.
	if _, err := dyn.Resource(gvrAppProject).Namespace(argocdNS).Create(ctx, yamlObject(t, `
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: default, namespace: argocd}
spec:
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
  clusterResourceWhitelist: [{group: "*", kind: "*"}]
`), metav1.CreateOptions{}); err != nil {
		t.Fatalf("cannot create the AppProject default: %v", err)
	}

	// The Git repository: examples/argocd/apps as users get it, but for the
	// two values every user replaces: the Coder URL and the token.
	repo := gitRepo(ctx, t, gitBin, filepath.Join(dir, "repo"), fake.URL(), fake.Token())

	port, err := ports.Free(4)
	if err != nil {
		t.Fatal(err)
	}
	redisAddr := fmt.Sprintf("127.0.0.1:%d", port[0])
	repoServer := fmt.Sprintf("127.0.0.1:%d", port[1])
	redis := start("redis-server", redisBin, nil,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port[0]), "--dir", filepath.Join(dir, "redis"),
		"--save", "", "--appendonly", "no", "--protected-mode", "yes")
	if err := redis.WaitUntil(ctx, time.Minute, func(ctx context.Context) bool { return RedisPing(ctx, redisAddr) }); err != nil {
		t.Fatal(err)
	}
	// As Argo CD's own Procfile runs them: the controller and the repo
	// server outside a cluster, ARGOCD_FAKE_IN_CLUSTER making
	// https://kubernetes.default.svc the cluster of KUBECONFIG.
	common := []string{
		"ARGOCD_FAKE_IN_CLUSTER=true",
		"KUBECONFIG=" + cp.KubeconfigPath,
		"ARGOCD_TLS_DATA_PATH=" + filepath.Join(dir, "tls"),
		"ARGOCD_SSH_DATA_PATH=" + filepath.Join(dir, "ssh"),
		"ARGOCD_GNUPGHOME=" + filepath.Join(dir, "gpg"),
		"ARGOCD_GPG_ENABLED=false",
		"ARGOCD_PLUGINSOCKFILEPATH=" + filepath.Join(dir, "plugins"),
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"PATH=" + strings.Join([]string{filepath.Join(dir, "bin"), filepath.Dir(argocd), os.Getenv("PATH")}, string(os.PathListSeparator)),
		// Git reads no configuration of this machine's user.
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
	}
	rs := start("argocd-repo-server", argocd, append([]string{"ARGOCD_BINARY_NAME=argocd-repo-server"}, common...),
		"--port", strconv.Itoa(port[1]), "--metrics-port", strconv.Itoa(port[2]), "--redis", redisAddr)
	if err := rs.WaitUntil(ctx, 2*time.Minute, func(ctx context.Context) bool { return Listening(ctx, repoServer) }); err != nil {
		t.Fatal(err)
	}
	ctrl := start("argocd-application-controller", argocd, append([]string{"ARGOCD_BINARY_NAME=argocd-application-controller"}, common...),
		"--namespace", argocdNS, "--redis", redisAddr, "--repo-server", repoServer, "--metrics-port", strconv.Itoa(port[3]),
		// Argo CD 3 keeps each resource's health in Redis only; this
		// writes it to the Application's status.resources too, where the
		// test reads it. It changes where the health is kept, not how it
		// is computed.
		"--persist-resource-health=true")
	metrics := fmt.Sprintf("http://127.0.0.1:%d/metrics", port[3])
	if err := ctrl.WaitUntil(ctx, 2*time.Minute, func(ctx context.Context) bool { return HTTPOK(ctx, metrics) }); err != nil {
		t.Fatal(err)
	}
	t.Logf("Argo CD %s: redis, repo server and application controller up %s after the control plane", version, time.Since(begin).Round(time.Millisecond))

	rec := newRecorder(t)
	for _, k := range watchedKinds {
		if err := rec.watch(ctx, dyn.Resource(k.gvr).Namespace(appNS), k.kind); err != nil {
			t.Fatal(err)
		}
	}

	// The Application of examples/argocd/application.yaml, its repoURL
	// pointed at the local repository.
	app := readObject(t, filepath.Join(crds.RepoRoot(), "examples", "argocd", "application.yaml"))
	if err := unstructured.SetNestedField(app.Object, "file://"+repo, "spec", "source", "repoURL"); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{"targetRevision": "main", "path": appsPath} {
		if got, _, _ := unstructured.NestedString(app.Object, "spec", "source", field); got != want {
			t.Fatalf("application.yaml: spec.source.%s is %q, the test's repository has %q", field, got, want)
		}
	}
	if got, _, _ := unstructured.NestedString(app.Object, "spec", "destination", "server"); got != "https://kubernetes.default.svc" {
		t.Fatalf("application.yaml: spec.destination.server is %q", got)
	}
	appClient := dyn.Resource(gvrApplication).Namespace(argocdNS)

	// Coder answers 503 at first: the ProviderConfig cannot turn Ready, and
	// wave 1 must wait for it (its health check holds the sync at wave 0).
	for _, e := range []string{fakecoder.EndpointBuildInfo, fakecoder.EndpointUserMe} {
		if err := fake.SetFault(e, fakecoder.Fault{Status: 503, Message: "Coder is starting"}); err != nil {
			t.Fatal(err)
		}
	}
	created := time.Now()
	if _, err := appClient.Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last string
	var pcHealth string
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, syncBound, true, func(ctx context.Context) (bool, error) {
		for _, o := range waveManaged {
			if rec.rev(o, "created") != 0 {
				return false, fmt.Errorf("the sync created %s while Coder was unavailable and the ProviderConfig not Ready", o)
			}
		}
		a, err := appClient.Get(ctx, app.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if now := appSummary(a); now != last {
			t.Logf("%7s  Application: %s", since(created), now)
			last = now
		}
		status, msg := resourceHealth(a, "ProviderConfig", "default")
		pcHealth = fmt.Sprintf("%s %q", status, msg)
		// Argo CD refreshes an Application when the health status of one
		// of its objects changes, not when only the message does (the
		// object's status is ignored on updates: Argo CD 3's defaults,
		// ignoreResourceStatusField and ignoreDifferencesOnResourceUpdates).
		// Once the provider has said why the ProviderConfig is not Ready,
		// ask for a refresh as a user would, rather than wait for the
		// periodic one (--app-resync, 180 s).
		if msg == "Waiting for the provider to check Coder" && a.GetAnnotations()[refreshAnnotation] == "" {
			pc, err := dyn.Resource(watchedKinds[1].gvr).Namespace(appNS).Get(ctx, "default", metav1.GetOptions{})
			if err == nil && hasCondition(pc, "Ready", "False") {
				patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"normal"}}}`, refreshAnnotation)
				if _, err := appClient.Patch(ctx, app.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					return false, err
				}
				t.Logf("%7s  the ProviderConfig is not Ready; refresh requested (%s)", since(created), refreshAnnotation)
			}
		}
		phase, _, _ := unstructured.NestedString(a.Object, "status", "operationState", "phase")
		opMsg, _, _ := unstructured.NestedString(a.Object, "status", "operationState", "message")
		// Argo CD has run the ProviderConfig's health check on what the
		// provider wrote after Coder failed, and waits for it.
		return phase == "Running" && strings.Contains(opMsg, "ProviderConfig/default") &&
			rec.rev("ProviderConfig/default", "Ready") == 0 && status != "" && status != "Healthy" && msg != "Waiting for the provider to check Coder", nil
	})
	if err != nil {
		t.Fatalf("the sync does not wait at wave 0 for the ProviderConfig while Coder is unavailable: %v; last: %s; ProviderConfig: %s", err, last, pcHealth)
	}
	t.Logf("%7s  wave 0 holds while Coder answers 503: ProviderConfig %s, no managed resource created", since(created), pcHealth)
	fake.ClearFaults()

	// Coder is back. Sync: Synced, Healthy, the operation Succeeded.
	var live *unstructured.Unstructured
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, syncBound, true, func(ctx context.Context) (bool, error) {
		a, err := appClient.Get(ctx, app.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		live = a
		now := appSummary(a)
		if now != last {
			t.Logf("%7s  Application: %s", since(created), now)
			last = now
		}
		sync, _, _ := unstructured.NestedString(a.Object, "status", "sync", "status")
		health, _, _ := unstructured.NestedString(a.Object, "status", "health", "status")
		phase, _, _ := unstructured.NestedString(a.Object, "status", "operationState", "phase")
		return sync == "Synced" && health == "Healthy" && phase == "Succeeded", nil
	})
	if err != nil {
		t.Fatalf("the Application is not Synced and Healthy after %s: %v; last: %s", syncBound, err, last)
	}
	healthy := time.Since(created)
	t.Logf("the Application is Synced and Healthy %s after it was created", healthy.Round(time.Millisecond))

	// Every object of the Application Healthy under argocd-cm.yaml's
	// checks, with their messages (not Argo CD's built-in check for
	// *.crossplane.io).
	resources, _, _ := unstructured.NestedSlice(live.Object, "status", "resources")
	seen := map[string]bool{}
	for _, r := range resources {
		m, _ := r.(map[string]any)
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		status, _, _ := unstructured.NestedString(m, "health", "status")
		msg, _, _ := unstructured.NestedString(m, "health", "message")
		t.Logf("resource %s/%s: sync %v, health %q %q", kind, name, m["status"], status, msg)
		seen[kind+"/"+name] = true
		if slices.Contains(healthChecked, kind+"/"+name) && status != "Healthy" {
			t.Errorf("%s/%s is %q, want Healthy", kind, name, status)
		}
	}
	for _, o := range append(append(append([]string(nil), waveSecrets...), wavePC...), waveManaged...) {
		if !seen[o] {
			t.Errorf("the Application has no resource %s", o)
		}
	}
	if n := len(fake.Keys()); n != 1 {
		t.Errorf("Coder has %d keys after the sync, want 1", n)
	}
	if n := len(fake.Providers(false)); n != 1 {
		t.Errorf("Coder has %d providers after the sync, want 1", n)
	}
	red.Add(keyPlaintexts(fake)...)

	// The waves, in the order of the API server's revisions: each wave
	// created after the one before, wave 1 only after the ProviderConfig
	// was Ready (Healthy).
	rec.log("sync")
	rec.before(t, "sync: every Secret created before the ProviderConfig", waveSecrets, "created", wavePC, "created")
	rec.before(t, "sync: the ProviderConfig Ready before any managed resource is created", wavePC, "Ready", waveManaged, "created")
	rec.before(t, "sync: the ProviderConfig created before any managed resource", wavePC, "created", waveManaged, "created")

	// Delete the Application: resources-finalizer.argocd.argoproj.io makes
	// Argo CD delete its objects, highest wave first.
	rec.reset()
	deleted := time.Now()
	if err := appClient.Delete(ctx, app.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	last = ""
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, deleteBound, true, func(ctx context.Context) (bool, error) {
		a, err := appClient.Get(ctx, app.GetName(), metav1.GetOptions{})
		if kerrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		now := appSummary(a)
		if now != last {
			t.Logf("%7s  Application: %s", since(deleted), now)
			last = now
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the Application is not gone %s after its deletion: %v; last: %s", deleteBound, err, last)
	}
	gone := time.Since(deleted)
	t.Logf("the Application is gone %s after its deletion", gone.Round(time.Millisecond))

	rec.log("delete")
	for _, o := range append(append(append([]string(nil), waveSecrets...), wavePC...), waveManaged...) {
		if rec.rev(o, "deleted") == 0 {
			t.Errorf("delete: %s is not deleted", o)
		}
	}
	rec.before(t, "delete: every managed resource gone before the ProviderConfig is deleted", waveManaged, "deleted", wavePC, "deletion requested")
	rec.before(t, "delete: the ProviderConfig gone before any Secret is deleted", wavePC, "deleted", waveSecrets, "deletion requested")

	// Nothing left: in Coder, and of the objects in the namespace (the
	// key's connection Secret, which the provider owns, included).
	if n := len(fake.Keys()); n != 0 {
		t.Errorf("Coder has %d keys after the Application's deletion, want 0", n)
	}
	if n := len(fake.Providers(false)); n != 0 {
		t.Errorf("Coder has %d providers after the Application's deletion, want 0", n)
	}
	for _, k := range watchedKinds {
		l, err := dyn.Resource(k.gvr).Namespace(appNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			t.Errorf("%s/%s is left in %s after the Application's deletion", k.kind, o.GetName(), appNS)
		}
	}
	t.Logf("figures: Healthy %s after the Application's creation; gone %s after its deletion; %s from the control plane's start",
		healthy.Round(time.Millisecond), gone.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond))
}

func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }

func appSummary(a *unstructured.Unstructured) string {
	sync, _, _ := unstructured.NestedString(a.Object, "status", "sync", "status")
	health, _, _ := unstructured.NestedString(a.Object, "status", "health", "status")
	phase, _, _ := unstructured.NestedString(a.Object, "status", "operationState", "phase")
	msg, _, _ := unstructured.NestedString(a.Object, "status", "operationState", "message")
	s := fmt.Sprintf("sync %q, health %q, operation %q %q", sync, health, phase, msg)
	if c := conditions(a); len(c) > 0 {
		s += fmt.Sprintf(", conditions %q", c)
	}
	if a.GetDeletionTimestamp() != nil {
		s += fmt.Sprintf(", deleting, finalizers %v", a.GetFinalizers())
	}
	return s
}

// resourceHealth is the health Argo CD recorded for an object of the
// Application (status.resources, --persist-resource-health).
func resourceHealth(a *unstructured.Unstructured, kind, name string) (status, message string) {
	rs, _, _ := unstructured.NestedSlice(a.Object, "status", "resources")
	for _, r := range rs {
		m, _ := r.(map[string]any)
		if m["kind"] == kind && m["name"] == name {
			status, _, _ = unstructured.NestedString(m, "health", "status")
			message, _, _ = unstructured.NestedString(m, "health", "message")
		}
	}
	return status, message
}

func conditions(a *unstructured.Unstructured) []string {
	cs, _, _ := unstructured.NestedSlice(a.Object, "status", "conditions")
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		m, _ := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v: %v", m["type"], m["message"]))
	}
	return out
}

func keyPlaintexts(f *fakecoder.Server) []string {
	var out []string
	for _, k := range f.Keys() {
		out = append(out, k.Key)
	}
	return out
}

func mustCreate(ctx context.Context, t *testing.T, kube client.Client, o client.Object) {
	t.Helper()
	if err := kube.Create(ctx, o); err != nil {
		t.Fatalf("cannot create %s %s: %v", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
	}
}

func readObject(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return yamlObject(t, string(b))
}

func yamlObject(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := sigsyaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// gitRepo makes a Git repository at dir whose branch main holds
// examples/argocd/apps, with the placeholders of the Coder URL and token
// replaced, and returns its path.
func gitRepo(ctx context.Context, t *testing.T, git, dir, url, token string) string {
	t.Helper()
	src := filepath.Join(crds.RepoRoot(), appsPath)
	dst := filepath.Join(dir, appsPath)
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	replace := map[string][2]string{
		"00-secrets.yaml":        {`"replace-with-a-coder-session-token"`, strconv.Quote(token)},
		"10-providerconfig.yaml": {"url: https://coder.example.com", "url: " + url},
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if r, ok := replace[e.Name()]; ok {
			if strings.Count(s, r[0]) != 1 {
				t.Fatalf("%s/%s: want exactly one %s", appsPath, e.Name(), r[0])
			}
			s = strings.Replace(s, r[0], r[1], 1)
			delete(replace, e.Name())
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if len(replace) != 0 {
		t.Fatalf("%s lacks %v", appsPath, replace)
	}
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"add", "."},
		{"-c", "user.name=provider-coder test", "-c", "user.email=test@provider-coder.invalid", "commit", "--quiet", "-m", "examples/argocd/apps"},
	} {
		cmd := exec.CommandContext(ctx, git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	return dir
}

// A recorder keeps what happened to the objects in appNS, each step at the
// API server's revision of the watch event: one etcd revision orders
// events of every kind.
type recorder struct {
	t      *testing.T
	start  time.Time
	mu     sync.Mutex
	events []recorded
}

type recorded struct {
	rev  int64
	at   time.Duration
	obj  string
	what string
}

func newRecorder(t *testing.T) *recorder { return &recorder{t: t, start: time.Now()} }

type watcherFunc func(context.Context, metav1.ListOptions) (watch.Interface, error)

func (f watcherFunc) WatchWithContext(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	return f(ctx, o)
}

func (r *recorder) watch(ctx context.Context, ri dynamic.ResourceInterface, kind string) error {
	l, err := ri.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, l.GetResourceVersion(), watcherFunc(ri.Watch))
	if err != nil {
		return err
	}
	r.t.Cleanup(w.Stop)
	go func() {
		ready := map[string]bool{}
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			obj := kind + "/" + u.GetName()
			rev, _ := strconv.ParseInt(u.GetResourceVersion(), 10, 64)
			switch ev.Type {
			case watch.Added:
				r.add(rev, obj, "created")
			case watch.Deleted:
				r.add(rev, obj, "deleted")
				continue
			}
			if u.GetDeletionTimestamp() != nil {
				r.addOnce(rev, obj, "deletion requested")
			}
			if isReady(u) && !ready[obj] {
				ready[obj] = true
				r.add(rev, obj, "Ready")
			}
		}
	}()
	return nil
}

func isReady(u *unstructured.Unstructured) bool { return hasCondition(u, "Ready", "True") }

func hasCondition(u *unstructured.Unstructured, typ, status string) bool {
	cs, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range cs {
		m, _ := c.(map[string]any)
		if m["type"] == typ && m["status"] == status {
			return true
		}
	}
	return false
}

func (r *recorder) add(rev int64, obj, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recorded{rev, time.Since(r.start), obj, what})
}

func (r *recorder) addOnce(rev int64, obj, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.obj == obj && e.what == what {
			return
		}
	}
	r.events = append(r.events, recorded{rev, time.Since(r.start), obj, what})
}

// reset forgets what was recorded, and restarts the clock.
func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events, r.start = nil, time.Now()
}

// log writes what was recorded, in revision order.
func (r *recorder) log(phase string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	evs := slices.Clone(r.events)
	slices.SortStableFunc(evs, func(a, b recorded) int { return cmp.Compare(a.rev, b.rev) })
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "\n  rev %-6d %7s  %-32s %s", e.rev, e.at.Round(100*time.Millisecond), e.obj, e.what)
	}
	r.t.Logf("%s, in the API server's order:%s", phase, b.String())
}

// rev is the revision at which obj's what was recorded, 0 if it was not.
func (r *recorder) rev(obj, what string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.obj == obj && e.what == what {
			return e.rev
		}
	}
	return 0
}

// before fails t unless every one of first had firstWhat recorded, every
// one of then had thenWhat recorded, and each of the former precedes each
// of the latter.
func (r *recorder) before(t *testing.T, claim string, first []string, firstWhat string, then []string, thenWhat string) {
	t.Helper()
	ok := true
	for _, a := range first {
		ra := r.rev(a, firstWhat)
		if ra == 0 {
			t.Errorf("%s: no %q of %s was recorded", claim, firstWhat, a)
			ok = false
			continue
		}
		for _, b := range then {
			rb := r.rev(b, thenWhat)
			if rb == 0 {
				t.Errorf("%s: no %q of %s was recorded", claim, thenWhat, b)
				ok = false
				continue
			}
			if ra >= rb {
				t.Errorf("%s: %s %s at revision %d, but %s %s at %d", claim, a, firstWhat, ra, b, thenWhat, rb)
				ok = false
			}
		}
	}
	if ok {
		t.Logf("ok: %s", claim)
	}
}
