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

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/packagerbac"
)

// Options configure Run.
type Options struct {
	// Root is the provider-coder checkout.
	Root string
	// Arch is the GOARCH of the images (ARCH of `make image`).
	Arch string
	// Keep leaves the cluster running afterwards.
	Keep bool
	// Out receives progress and the scenarios' output.
	Out io.Writer
}

// Run is `make e2e`: it checks for Docker before anything else, then creates
// the kind cluster, installs Crossplane, the provider package and the fake
// Coders, runs the hold and records scenarios against it, and deletes the
// cluster unless Keep.
func Run(ctx context.Context, o Options) (err error) {
	if err := CheckDocker(ctx); err != nil {
		return err
	}
	r := &runner{o: o, out: filepath.Join(o.Root, "_output", "kind")}
	if err := os.RemoveAll(r.out); err != nil {
		return err
	}
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"build kind (tools/kind)", r.buildKind},
		{"build the provider image and package (make xpkg)", r.makeXpkg},
		{"build the fake Coder image", r.buildCoderImage},
		{"unpack the package for the cluster's package cache", r.unpackXpkg},
		{"create the kind cluster " + ClusterName, r.createCluster},
	}
	for _, s := range steps {
		if err := r.step(ctx, s.what, s.do); err != nil {
			return err
		}
	}
	defer func() { err = errors.Join(err, r.deleteCluster()) }()
	for _, s := range []struct {
		what string
		do   func(context.Context) error
	}{
		{"load the images into the cluster", r.loadImages},
		{"install Crossplane v2.1.3", r.installCrossplane},
		{"deploy the fake Coders", r.deployCoders},
		{"install the provider package", r.installProvider},
		{"run the hold and records scenarios", r.runScenarios},
	} {
		if err := r.step(ctx, s.what, s.do); err != nil {
			return err
		}
	}
	return nil
}

type runner struct {
	o    Options
	out  string // _output/kind
	kube client.Client
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
	return r.run(ctx, r.o.Root, nil, r.path("bin", "kind"), args...)
}

func (r *runner) buildKind(ctx context.Context) error {
	return r.run(ctx, filepath.Join(r.o.Root, "tools", "kind"), nil, "go", "build", "-o", r.path("bin", "kind"), "sigs.k8s.io/kind")
}

func (r *runner) xpkg() string {
	return filepath.Join(r.o.Root, "_output", "provider-coder-"+r.o.Arch+".xpkg")
}

func (r *runner) makeXpkg(ctx context.Context) error {
	return r.run(ctx, r.o.Root, nil, "make", "xpkg", "ARCH="+r.o.Arch)
}

func (r *runner) buildCoderImage(context.Context) error {
	return BuildCoderImage(r.o.Root, r.o.Arch, r.path("fakecoder.tar"))
}

func (r *runner) unpackXpkg(context.Context) error {
	return UnpackXpkg(r.xpkg(), r.path("provider.tar"), r.path("package-cache"))
}

func (r *runner) createCluster(ctx context.Context) error {
	cfg, err := os.ReadFile(filepath.Join(r.o.Root, "cluster", "kind", "config.yaml"))
	if err != nil {
		return err
	}
	cfg = []byte(strings.ReplaceAll(string(cfg), "PACKAGE_CACHE_DIR", r.path("package-cache")))
	if err := os.WriteFile(r.path("config.yaml"), cfg, 0o600); err != nil {
		return err
	}
	_ = r.kind(ctx, "delete", "cluster", "--name", ClusterName) // a cluster KEEP=1 left behind
	if err := r.kind(ctx, "create", "cluster", "--name", ClusterName, "--config", r.path("config.yaml"),
		"--kubeconfig", r.path("kubeconfig"), "--wait", "3m"); err != nil {
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
	r.kube, err = client.New(rc, client.Options{Scheme: s})
	return err
}

func (r *runner) deleteCluster() error {
	if r.o.Keep {
		fmt.Fprintf(r.o.Out, "KEEP=1: the cluster stays; KUBECONFIG=%s; delete it with %s delete cluster --name %s\n",
			r.path("kubeconfig"), r.path("bin", "kind"), ClusterName)
		return nil
	}
	return r.kind(context.Background(), "delete", "cluster", "--name", ClusterName)
}

func (r *runner) loadImages(ctx context.Context) error {
	for _, img := range []string{r.path("provider.tar"), r.path("fakecoder.tar")} {
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

// wait polls until cond holds or the timeout passes.
func wait(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := cond(ctx)
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s (last error: %w)", timeout, what, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// conditionTrue reads status.conditions of any object.
func (r *runner) conditionTrue(ctx context.Context, apiVersion, kind, ns, name string, types ...string) (bool, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if err := r.kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return false, client.IgnoreNotFound(err)
	}
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
	return len(want) == 0, nil
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
	objs, err := CrossplaneManifest(r.o.Root)
	if err != nil {
		return err
	}
	if err := r.apply(ctx, append(PackageCache(), objs...)); err != nil {
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

func (r *runner) installProvider(ctx context.Context) error {
	pkg, err := packagerbac.Load(r.o.Root)
	if err != nil {
		return err
	}
	// Crossplane's CRDs appear once its init container ran.
	objs := ProviderPackage(pkg)
	if err := wait(ctx, 3*time.Minute, "Crossplane's package API", func(ctx context.Context) (bool, error) {
		err := r.apply(ctx, objs)
		if err != nil && (kerrors.IsNotFound(err) || strings.Contains(err.Error(), "no matches for kind")) {
			return false, err
		}
		return err == nil, err
	}); err != nil {
		return err
	}
	return wait(ctx, 5*time.Minute, "the provider package to be installed and healthy", func(ctx context.Context) (bool, error) {
		return r.conditionTrue(ctx, "pkg.crossplane.io/v1", "Provider", "", ProviderName, "Installed", "Healthy")
	})
}

func (r *runner) runScenarios(ctx context.Context) error {
	return r.run(ctx, r.o.Root, []string{EnvKubeconfig + "=" + r.path("kubeconfig")},
		"go", "test", "./test/e2e", "-count=1", "-v", "-timeout=40m", "-run", Scenarios)
}
