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

package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kwait "k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options configure Run.
type Options struct {
	// Root is the provider-coder checkout.
	Root string
	// Arch is the GOARCH of the images (ARCH of `make image`).
	Arch string
	// Keep says when the cluster stays afterwards (KEEP).
	Keep Keep
	// Out receives progress and the scenarios' output.
	Out io.Writer
	// Run, when set (E2E_RUN), is the -run pattern of the one go test the
	// run makes in place of the two: a subset of the scenarios, while
	// working on them; RunNone runs none (the install guide alone).
	Run string
}

// RunNone is the E2E_RUN that runs no scenario.
const RunNone = "none"

// Keep says when `make e2e` leaves its cluster running.
type Keep int

// Keep's values, from KEEP.
const (
	KeepNever     Keep = iota // KEEP unset, "" or 0
	KeepAlways                // KEEP=1
	KeepOnFailure             // KEEP=on-failure
)

// ParseKeep reads KEEP. Anything else is an error, so that a typo does not
// delete a cluster the user meant to keep.
func ParseKeep(s string) (Keep, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false", "never":
		return KeepNever, nil
	case "1", "true", "always":
		return KeepAlways, nil
	case "on-failure":
		return KeepOnFailure, nil
	}
	return KeepNever, fmt.Errorf("KEEP=%s: want 1 (keep the cluster), on-failure (keep it when the run fails) or 0", s)
}

// keeps says whether the cluster stays after a run that failed or not.
func (k Keep) keeps(failed bool) bool {
	return k == KeepAlways || k == KeepOnFailure && failed
}

// Run is `make e2e`: it picks the container engine before anything else
// (CheckEngine: Docker where it runs privileged containers, else rootful Podman), then creates the kind cluster, installs Crossplane, the provider package and the fake
// Coders, and runs the hold and records scenarios against it. When a step
// fails once the cluster exists, it prints what the cluster says (see
// diagnose). Then it deletes the cluster, unless Keep says otherwise.
func Run(ctx context.Context, o Options) (err error) {
	engine, err := CheckEngine(ctx)
	if err != nil {
		return err
	}
	crossplane, err := CrossplaneVersion(o.Root)
	if err != nil {
		return err
	}
	r := &runner{o: o, out: filepath.Join(o.Root, "_output", "kind"), engine: engine, crossplane: crossplane}
	if err := os.RemoveAll(r.out); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "==> the nodes run in %s\n", engine)
	type step struct {
		what string
		do   func(context.Context) error
	}
	steps := []step{{"build kind (tools/kind)", r.buildKind}}
	if engine == Podman { // no registry: the node and Crossplane's images are built here
		steps = append(steps,
			step{"build the offline node image (cluster/kind/node/build.sh)", r.buildNodeImage},
			step{"build Crossplane's image (cluster/local/build-crossplane.sh)", r.buildCrossplaneImage})
	}
	steps = append(steps, []step{
		{"build the fake Coder image", r.buildCoderImage},
		{"build the registry image", r.buildRegistryImage},
		{"put kubectl and the Crossplane CLI on the guide's PATH", r.tools},
		{"build the stand-in " + functionName + " package", r.buildFunction},
	}...)
	for _, s := range steps {
		if err := r.step(ctx, s.what, s.do); err != nil {
			return err
		}
	}
	// From here a cluster may exist, even when creating it fails halfway.
	defer func() { err = errors.Join(err, r.finish(ctx, err)) }()
	for _, s := range []struct {
		what string
		do   func(context.Context) error
	}{
		{"create the kind cluster " + ClusterName, r.createCluster},
		{"load the images into the cluster", r.loadImages},
		{"start the registry in the cluster", r.startRegistry},
		{"make publish to it, and push the stand-in function", r.publish},
		{"install Crossplane " + crossplane + " from its chart", r.installCrossplane},
		{"install the composition example's Function", r.installFunction},
		{"run the install guide (" + InstallGuide + ") as written", r.runInstallGuide},
		{"check every pod of " + ProviderNamespace + " runs under restricted Pod Security", r.checkRestricted},
		{"run the provider with the scenarios' arguments", r.configureForScenarios},
		{"deploy the fake Coders", r.deployCoders},
		{"run the hold and records scenarios", r.runScenarios},
	} {
		if err := r.step(ctx, s.what, s.do); err != nil {
			return err
		}
	}
	return nil
}

type runner struct {
	o      Options
	out    string // _output/kind
	engine Engine
	// crossplane is the Crossplane release installed (CrossplaneVersion).
	crossplane string
	// registry is the cluster's registry, host:port, as pods and the
	// node reach it (startRegistry).
	registry string
	// node is the node image and patch its kubeadm configuration, when
	// the engine is Podman (buildNodeImage); kind's default otherwise.
	node NodeImage
	kube client.Client
	cs   kubernetes.Interface // for pods' logs
}

func (r *runner) step(ctx context.Context, what string, do func(context.Context) error) error {
	start := time.Now()
	fmt.Fprintf(r.o.Out, "==> %s\n", what)
	if err := do(ctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	fmt.Fprintf(r.o.Out, "    done in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

func (r *runner) path(elem ...string) string {
	return filepath.Join(append([]string{r.out}, elem...)...)
}

func (r *runner) run(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, r.o.Out, r.o.Out
	cmd.Env = append(os.Environ(), env...)
	return cmd.Run()
}

func (r *runner) kind(ctx context.Context, args ...string) error {
	return r.run(ctx, r.o.Root, []string{EnvProvider + "=" + string(r.engine)}, r.path("bin", "kind"), args...)
}

func (r *runner) buildKind(ctx context.Context) error {
	return r.run(ctx, filepath.Join(r.o.Root, "tools", "kind"), nil, "go", "build", "-o", r.path("bin", "kind"), "sigs.k8s.io/kind")
}

func (r *runner) buildCoderImage(context.Context) error {
	return BuildCoderImage(r.o.Root, r.o.Arch, r.path("fakecoder.tar"))
}

func (r *runner) createCluster(ctx context.Context) error {
	cfg, err := os.ReadFile(filepath.Join(r.o.Root, "cluster", "kind", "config.yaml"))
	if err != nil {
		return err
	}
	if cfg, err = ClusterConfig(cfg, r.node.KubeadmPatch); err != nil {
		return err
	}
	if err := os.WriteFile(r.path("config.yaml"), cfg, 0o600); err != nil {
		return err
	}
	_ = r.kind(ctx, "delete", "cluster", "--name", ClusterName) // a cluster KEEP=1 left behind
	args := []string{"create", "cluster", "--name", ClusterName, "--config", r.path("config.yaml"),
		"--kubeconfig", r.path("kubeconfig"), "--wait", "3m"}
	if r.node.Ref != "" {
		args = append(args, "--image", r.node.Ref)
	}
	if err := r.kind(ctx, args...); err != nil {
		return err
	}
	rc, err := clientcmd.BuildConfigFromFlags("", r.path("kubeconfig"))
	if err != nil {
		return err
	}
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return err
	}
	if r.cs, err = kubernetes.NewForConfig(rc); err != nil {
		return err
	}
	r.kube, err = client.New(rc, client.Options{Scheme: s})
	return err
}

// finish ends a run that got as far as creating the cluster: on failure it
// prints what the cluster says, unless the user interrupted the run; then
// it deletes the cluster or says how to reach it.
func (r *runner) finish(ctx context.Context, runErr error) error {
	failed := runErr != nil
	if failed && r.kube != nil && ctx.Err() == nil {
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		r.diagnose(dctx)
		cancel()
	}
	if r.o.Keep.keeps(failed) {
		fmt.Fprintf(r.o.Out, "the cluster stays (KEEP=%s): export KUBECONFIG=%s; delete it with %s delete cluster --name %s\n",
			map[Keep]string{KeepAlways: "1", KeepOnFailure: "on-failure"}[r.o.Keep], r.path("kubeconfig"), r.path("bin", "kind"), ClusterName)
		return nil
	}
	if failed {
		fmt.Fprintln(r.o.Out, "deleting the cluster; KEEP=on-failure keeps it when a run fails")
	}
	return r.kind(context.Background(), "delete", "cluster", "--name", ClusterName)
}

func (r *runner) buildCrossplaneImage(ctx context.Context) error {
	var stdout strings.Builder
	cmd := exec.CommandContext(ctx, filepath.Join(r.o.Root, "cluster", "local", "build-crossplane.sh"))
	cmd.Dir, cmd.Stdout, cmd.Stderr = r.o.Root, &stdout, r.o.Out
	if err := cmd.Run(); err != nil {
		return err
	}
	return BuildCrossplaneImage(r.o.Root, r.o.Arch, r.crossplane, lastLine(stdout.String()), r.path("crossplane.tar"))
}

func (r *runner) loadImages(ctx context.Context) error {
	images := []string{r.path("fakecoder.tar"), r.path("registry.tar")}
	if r.engine == Podman {
		images = append(images, r.path("crossplane.tar"))
	}
	for _, img := range images {
		if err := r.kind(ctx, "load", "image-archive", img, "--name", ClusterName); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) apply(ctx context.Context, objs []client.Object) error {
	for _, o := range objs {
		u := &unstructured.Unstructured{}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		u.SetUnstructuredContent(m)
		if u.GetKind() == "" {
			gvks, _, err := r.kube.Scheme().ObjectKinds(o)
			if err != nil {
				return err
			}
			u.SetGroupVersionKind(gvks[0])
		}
		u.SetManagedFields(nil)
		u.SetResourceVersion("")
		if err := r.kube.Patch(ctx, u, client.Apply, client.FieldOwner("provider-coder-e2e"), client.ForceOwnership); err != nil { //nolint:staticcheck // client.Apply with unstructured objects
			return fmt.Errorf("cannot apply %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// wait polls until cond holds or the timeout passes. cond's error, when it
// does not hold, says why: a failed read, or the state it found.
func wait(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	var last error
	err := kwait.PollUntilContextTimeout(ctx, 2*time.Second, timeout, true, func(context.Context) (bool, error) {
		// Each look has time of its own, not what is left of the wait: the
		// last look then says what it saw, not that the deadline came
		// ("client rate limiter Wait returned an error: ... would exceed
		// context deadline").
		look, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		ok, err := cond(look)
		if err != nil {
			last = err
		}
		return ok, nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case last == nil:
		return fmt.Errorf("timed out after %s waiting for %s (no error: the condition was just not met yet)", timeout, what)
	default:
		return fmt.Errorf("timed out after %s waiting for %s (last: %w)", timeout, what, last)
	}
}

// conditionTrue reads status.conditions of any object. When one of types is
// not True, its error says which and what the object's conditions are.
func (r *runner) conditionTrue(ctx context.Context, apiVersion, kind, ns, name string, types ...string) (bool, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if err := r.kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return false, err
	}
	return conditionsTrue(u, types...)
}

// conditionsTrue says whether every condition of types is True in u.
func conditionsTrue(u *unstructured.Unstructured, types ...string) (bool, error) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	want := map[string]bool{}
	for _, t := range types {
		want[t] = true
	}
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if t, _ := m["type"].(string); want[t] && m["status"] == "True" {
			delete(want, t)
		}
	}
	if len(want) == 0 {
		return true, nil
	}
	var missing []string
	for _, t := range types {
		if want[t] {
			missing = append(missing, t)
		}
	}
	return false, fmt.Errorf("%s %s: %s not True; conditions: %s", u.GetKind(), u.GetName(),
		strings.Join(missing, ", "), strings.Join(conditionLines(u), "; "))
}

func (r *runner) deploymentsAvailable(ns string, names ...string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		for _, n := range names {
			if ok, err := r.conditionTrue(ctx, "apps/v1", "Deployment", ns, n, "Available"); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	}
}

func (r *runner) installCrossplane(ctx context.Context) error {
	objs, err := CrossplaneManifest(r.o.Root, r.crossplane)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ProviderNamespace}}
	if err := r.apply(ctx, append([]client.Object{ns}, objs...)); err != nil {
		return err
	}
	return wait(ctx, 5*time.Minute, "Crossplane to be available",
		r.deploymentsAvailable(ProviderNamespace, "crossplane", "crossplane-rbac-manager"))
}

func (r *runner) deployCoders(ctx context.Context) error {
	if err := r.apply(ctx, FakeCoders()); err != nil {
		return err
	}
	return wait(ctx, 3*time.Minute, "the fake Coders to be available", r.deploymentsAvailable(CoderNamespace, CoderNames()...))
}

// configureForScenarios runs the provider the guide installed with the
// scenarios' arguments (ProviderArgs) and one replica, as they expect, in
// the guide's runtime configuration otherwise; the failover scenarios put
// the guide's back while they run (testenv: RunAsInstalled).
func (r *runner) configureForScenarios(ctx context.Context) error {
	drc := &unstructured.Unstructured{}
	drc.SetAPIVersion("pkg.crossplane.io/v1beta1")
	drc.SetKind("DeploymentRuntimeConfig")
	if err := r.kube.Get(ctx, client.ObjectKey{Name: ProviderName}, drc); err != nil {
		return err
	}
	if err := ScenarioRuntimeConfig(drc); err != nil {
		return err
	}
	if err := r.kube.Update(ctx, drc); err != nil {
		return err
	}
	if err := wait(ctx, 3*time.Minute, "one provider pod with the scenarios' arguments", r.onePod); err != nil {
		return err
	}
	return r.waitProviderRole(ctx)
}

// ScenarioRuntimeConfig turns the guide's runtime configuration into the
// scenarios': one replica, ProviderArgs.
func ScenarioRuntimeConfig(drc *unstructured.Unstructured) error {
	err := editRuntimeContainer(drc, func(c map[string]any) error {
		return unstructured.SetNestedStringSlice(c, ProviderArgs(), "args")
	})
	if err != nil {
		return err
	}
	return unstructured.SetNestedField(drc.Object, int64(1), "spec", "deploymentTemplate", "spec", "replicas")
}

// PodReady says whether p's Ready condition is True.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// onePod holds once the provider runs as one ready pod with ProviderArgs,
// and no other pod is left.
func (r *runner) onePod(ctx context.Context) (bool, error) {
	pods := &corev1.PodList{}
	if err := r.kube.List(ctx, pods, client.InNamespace(ProviderNamespace), client.MatchingLabels{"pkg.crossplane.io/provider": ProviderName}); err != nil {
		return false, err
	}
	if len(pods.Items) != 1 {
		return false, fmt.Errorf("%d provider pods", len(pods.Items))
	}
	p := pods.Items[0]
	ready := PodReady(&p)
	if !ready || p.DeletionTimestamp != nil || strings.Join(p.Spec.Containers[0].Args, " ") != strings.Join(ProviderArgs(), " ") {
		return false, fmt.Errorf("provider pod %s: ready %t, args %q", p.Name, ready, p.Spec.Containers[0].Args)
	}
	return true, nil
}

// waitProviderRole waits, as a user reading `kubectl get clusterroles`
// would, for the ClusterRole Crossplane's RBAC manager grants the
// provider's revision: Healthy says the provider's Deployment is
// available, not that its role exists. It says when the role came against
// when the provider's pod started: a pod that started first was refused
// until then, unless it waited (internal/provider.WaitForGrant).
func (r *runner) waitProviderRole(ctx context.Context) error {
	p := &unstructured.Unstructured{}
	p.SetAPIVersion("pkg.crossplane.io/v1")
	p.SetKind("Provider")
	if err := r.kube.Get(ctx, client.ObjectKey{Name: ProviderName}, p); err != nil {
		return err
	}
	rev, _, _ := unstructured.NestedString(p.Object, "status", "currentRevision")
	if rev == "" {
		return fmt.Errorf("the Provider %s names no current revision", ProviderName)
	}
	role := &rbacv1.ClusterRole{}
	name := SystemRoleName(rev)
	if err := wait(ctx, 3*time.Minute, "Crossplane's RBAC manager to create "+name, func(ctx context.Context) (bool, error) {
		err := r.kube.Get(ctx, client.ObjectKey{Name: name}, role)
		return err == nil, err
	}); err != nil {
		return err
	}
	pods := &corev1.PodList{}
	if err := r.kube.List(ctx, pods, client.InNamespace(ProviderNamespace), client.MatchingLabels{"pkg.crossplane.io/revision": rev}); err != nil {
		return err
	}
	for _, pod := range pods.Items {
		for _, st := range pod.Status.ContainerStatuses {
			if st.State.Running != nil {
				fmt.Fprintf(r.o.Out, "    %s\n", RoleRace(pod.Name, st.State.Running.StartedAt.Time, name, role.CreationTimestamp.Time))
			}
		}
	}
	return nil
}

// SystemRoleName is the ClusterRole Crossplane's RBAC manager grants a
// provider revision.
func SystemRoleName(revision string) string { return "crossplane:provider:" + revision + ":system" }

// RoleRace says whether a provider pod started before its ClusterRole
// existed (both by the API server's clock, to the second).
func RoleRace(pod string, started time.Time, role string, created time.Time) string {
	d := created.Sub(started)
	switch {
	case d > 0:
		return fmt.Sprintf("provider pod %s started %s before Crossplane's RBAC manager created %s: it waits for its role until then", pod, d, role)
	case d == 0:
		return fmt.Sprintf("provider pod %s started the second Crossplane's RBAC manager created %s", pod, role)
	default:
		return fmt.Sprintf("provider pod %s started %s after Crossplane's RBAC manager created %s", pod, -d, role)
	}
}

func (r *runner) runScenarios(ctx context.Context) error {
	// The failover scenarios kill a provider process in its container
	// through the node's engine (kind.OnNode).
	env := []string{EnvKubeconfig + "=" + r.path("kubeconfig"), EnvProvider + "=" + string(r.engine)}
	if r.o.Run == RunNone {
		fmt.Fprintf(r.o.Out, "    none: E2E_RUN=%s\n", RunNone)
		return nil
	}
	if r.o.Run != "" {
		return r.run(ctx, r.o.Root, env, "go", "test", "./test/e2e", "-count=1", "-v", "-timeout=60m", "-run", r.o.Run)
	}
	if err := r.run(ctx, r.o.Root, env, "go", "test", "./test/e2e", "-count=1", "-v", "-timeout=40m", "-run", ScenarioPattern()); err != nil {
		return err
	}
	fmt.Fprintln(r.o.Out, "==> the failover scenarios (the provider as the install guide runs it)")
	return r.run(ctx, r.o.Root, env, "go", "test", "./test/e2e", "-count=1", "-v", "-timeout=40m", "-run", FailoverPattern())
}
