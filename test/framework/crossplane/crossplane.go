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

// Package crossplane runs the real Crossplane against the local control
// plane, so that the provider is installed and given its RBAC by
// Crossplane's own code rather than by our reading of it.
//
// Crossplane (cmd/crossplane) is built from the Go module proxy by
// cluster/local/build-crossplane.sh and runs as two processes: the core
// (package manager) with --package-runtime=External, and the RBAC manager.
// The External runtime installs a package's CRDs and records its revisions
// but runs nothing; the harness is that runtime: it runs the provider binary
// from the package's image as a process, authenticated as the ServiceAccount
// a Deployment owned by the active revision names, which is the identity
// Crossplane's RBAC manager binds the revision's ClusterRole to.
//
// Packages come from a registry on loopback (Registry), installed with a
// Provider object as the docs tell users.
//
// The release is the newest the package supports (versions.env's
// CROSSPLANE_VERSION), or with EnvFloor set the oldest
// (CROSSPLANE_FLOOR_VERSION), which `make crossplane-floor` runs.
package crossplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/ports"
)

// Namespace and ServiceAccount are where Crossplane runs, as its Helm chart
// installs it.
const (
	Namespace      = "crossplane-system"
	ServiceAccount = "crossplane"
)

// The Secrets `crossplane core init` fills with TLS material, named as the
// Helm chart names them.
const (
	caSecret     = "crossplane-root-ca"
	serverSecret = "crossplane-tls-server"
	clientSecret = "crossplane-tls-client"
)

// EnvFloor, set to any value, runs the oldest Crossplane release the
// package supports instead of the newest: the build module
// cluster/local/crossplane-floor, built by build-crossplane.sh --floor.
const EnvFloor = "PROVIDER_CODER_CROSSPLANE_FLOOR"

// A release is one of the two Crossplane releases the tests run: its build
// module in cluster/local, the build script's arguments and the make target
// that builds it.
type release struct {
	module, target string
	args           []string
}

// chosen is the release EnvFloor chooses.
func chosen() release {
	if os.Getenv(EnvFloor) != "" {
		return release{module: "crossplane-floor", target: "crossplane-floor", args: []string{"--floor"}}
	}
	return release{module: "crossplane", target: "crossplane"}
}

// Binary returns the path of the Crossplane binary that
// cluster/local/build-crossplane.sh built, or an error saying how to build
// it.
func Binary() (string, error) {
	r := chosen()
	script := strings.Join(append([]string{"cluster/local/build-crossplane.sh"}, r.args...), " ")
	cmd := exec.Command(filepath.Join(crds.RepoRoot(), "cluster", "local", "build-crossplane.sh"), append(slices.Clone(r.args), "--print-path")...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --print-path: %w", script, err)
	}
	bin := strings.TrimSpace(string(out))
	if fi, err := os.Stat(bin); err != nil || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("no Crossplane binary at %s; run `make %s` (%s) to build it", bin, r.target, script)
	}
	return bin, nil
}

// moduleDir is the build module's copy of Crossplane's source, for its
// CRDs (the files its image carries in /crds).
func moduleDir() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/crossplane/crossplane/v2")
	cmd.Dir = filepath.Join(crds.RepoRoot(), "cluster", "local", chosen().module)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go list -m github.com/crossplane/crossplane/v2: %w: %s", err, ee.Stderr)
		}
		return "", err
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", errors.New("the Crossplane module is not in the module cache; run `make crossplane`")
	}
	return dir, nil
}

// Chart is the Helm chart of the Crossplane release the tests run, as its
// Go module holds it (cluster/charts/crossplane), and that release's
// version, for the image tag a render sets (the module's chart says 0.0.1).
func Chart() (dir, version string, err error) {
	src, err := moduleDir()
	if err != nil {
		return "", "", err
	}
	_, version, found := strings.Cut(filepath.Base(src), "@")
	if !found {
		return "", "", fmt.Errorf("the Crossplane module's directory %s names no version", src)
	}
	return filepath.Join(src, "cluster", "charts", "crossplane"), version, nil
}

// Crossplane is a running Crossplane core and RBAC manager.
type Crossplane struct {
	dir   string
	logMu sync.Mutex
	logs  bytes.Buffer
	procs []*exec.Cmd
	done  []chan struct{}
}

// Start runs `crossplane core init` against cp (Crossplane's CRDs, its TLS
// Secrets and the default activation policy, "*", as the Helm chart's init
// container does), then the core with --package-runtime=External and the RBAC
// manager, in dir. Webhooks are off: the API server could not reach them.
func Start(ctx context.Context, cp *controlplane.ControlPlane, kube client.Client, dir string) (*Crossplane, error) {
	return startWith(ctx, cp, kube, dir, "External", "--activation=*")
}

// StartWithoutActivations starts Crossplane as Start does, with no
// activation policy, as a Helm install with provider.defaultActivations
// empty: a package that declares SafeStart has no managed kind active until
// a ManagedResourceActivationPolicy activates it.
func StartWithoutActivations(ctx context.Context, cp *controlplane.ControlPlane, kube client.Client, dir string) (*Crossplane, error) {
	return startWith(ctx, cp, kube, dir, "External")
}

// StartDeploymentRuntime starts Crossplane as Start does, with its default
// package runtime, Deployment: Crossplane makes each provider's Deployment
// itself (the test bed has no kubelet to run it). Only one Crossplane runs
// on a machine at a time: the RBAC manager's metrics port is fixed.
//
// It installs no activation policy, as a Helm install with
// provider.defaultActivations empty: the package declares SafeStart, so
// what is active is what the install guide's policy activates, and its
// test checks that.
func StartDeploymentRuntime(ctx context.Context, cp *controlplane.ControlPlane, kube client.Client, dir string) (*Crossplane, error) {
	return startWith(ctx, cp, kube, dir, "Deployment")
}

// startWith starts Crossplane with the package runtime runtime, its init
// given the flags initFlags.
func startWith(ctx context.Context, cp *controlplane.ControlPlane, kube client.Client, dir, runtime string, initFlags ...string) (_ *Crossplane, err error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	src, err := moduleDir()
	if err != nil {
		return nil, err
	}
	x := &Crossplane{dir: dir}
	defer func() {
		if err != nil {
			x.Stop()
		}
	}()
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: ServiceAccount}},
	} {
		if err := kube.Create(ctx, o); err != nil && !kerrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	env := append(os.Environ(),
		"KUBECONFIG="+cp.KubeconfigPath,
		"POD_NAMESPACE="+Namespace,
		"POD_SERVICE_ACCOUNT="+ServiceAccount,
		"TLS_CA_SECRET_NAME="+caSecret,
		"TLS_SERVER_SECRET_NAME="+serverSecret,
		"TLS_CLIENT_SECRET_NAME="+clientSecret,
	)
	// The init container's first run can fail where it creates an object of
	// a CRD it has just created (its client's discovery does not know the
	// kind yet); the kubelet restarts it, so do we.
	initCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var out []byte
	for attempt := 1; ; attempt++ {
		initCmd := exec.CommandContext(initCtx, bin, append([]string{"core", "init", "--enable-webhooks=false"}, initFlags...)...)
		initCmd.Env = append(slices.Clone(env), "CRDS_PATH="+filepath.Join(src, "cluster", "crds"))
		if out, err = initCmd.CombinedOutput(); err == nil {
			break
		}
		if attempt == 5 || initCtx.Err() != nil {
			return nil, fmt.Errorf("crossplane core init, %d attempts: %w\n%s", attempt, err, out)
		}
		select {
		case <-initCtx.Done():
		case <-time.After(time.Duration(attempt) * time.Second):
		}
	}

	// The core reads its client certificate (for composition functions)
	// from files, as the Helm chart mounts the Secret.
	tlsDir := filepath.Join(dir, "tls-client")
	if err := writeSecretFiles(ctx, kube, clientSecret, tlsDir); err != nil {
		return nil, err
	}
	// The package cache: an emptyDir in Crossplane's pod, which Crossplane
	// expects to exist.
	if err := os.MkdirAll(filepath.Join(dir, "xpkg-cache"), 0o700); err != nil {
		return nil, err
	}
	ps, err := ports.Free(3)
	if err != nil {
		return nil, err
	}
	if err := x.start(env, "core", fmt.Sprintf("http://127.0.0.1:%d/metrics", ps[0]), bin, "core", "start",
		"--package-runtime="+runtime,
		"--enable-webhooks=false",
		"--cache-dir="+filepath.Join(dir, "xpkg-cache"),
		"--metrics-port="+strconv.Itoa(ps[0]),
		"--health-probe-port="+strconv.Itoa(ps[1]),
		"--webhook-port="+strconv.Itoa(ps[2]),
		"--debug",
	); err != nil {
		return nil, err
	}
	// The RBAC manager's metrics listen on :8080, which it takes no flag to
	// change; it fails at start if the port is taken.
	if err := x.start(env, "rbac", "http://127.0.0.1:8080/metrics", bin, "rbac", "start", "--debug"); err != nil {
		return nil, err
	}
	return x, nil
}

func writeSecretFiles(ctx context.Context, kube client.Client, name, dir string) error {
	s := &corev1.Secret{}
	if err := kube.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, s); err != nil {
		return fmt.Errorf("cannot read the Secret %s that crossplane core init fills: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, k := range []string{"ca.crt", corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
		if len(s.Data[k]) == 0 {
			return fmt.Errorf("the Secret %s has no %s", name, k)
		}
		if err := os.WriteFile(filepath.Join(dir, k), s.Data[k], 0o600); err != nil {
			return err
		}
	}
	return nil
}

// start runs one Crossplane process, its output prefixed with name in Logs,
// and waits until its controller manager serves metrics at metrics.
func (x *Crossplane) start(env []string, name, metrics, bin string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(slices.Clone(env), "TLS_CLIENT_CERTS_DIR="+filepath.Join(x.dir, "tls-client"))
	w := &prefixWriter{x: x, prefix: name + ": "}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = controlplane.SysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start crossplane %s: %w", name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	x.procs, x.done = append(x.procs, cmd), append(x.done, done)
	// A process that fails its flags or a port exits at once; say so here
	// rather than as a package that never installs.
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case <-done:
			return false, fmt.Errorf("crossplane %s exited at start:\n%s", name, x.Logs())
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, metrics, nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("crossplane %s serves no metrics at %s: %w", name, metrics, err)
	}
	return nil
}

// Running reports whether every Crossplane process still runs.
func (x *Crossplane) Running() error {
	for i, d := range x.done {
		select {
		case <-d:
			return fmt.Errorf("crossplane %s exited:\n%s", strings.Join(x.procs[i].Args[1:3], " "), x.Logs())
		default:
		}
	}
	return nil
}

// Logs is what Crossplane's processes printed.
func (x *Crossplane) Logs() string {
	x.logMu.Lock()
	defer x.logMu.Unlock()
	return x.logs.String()
}

// Stop stops Crossplane.
func (x *Crossplane) Stop() {
	for i, p := range x.procs {
		_ = p.Process.Kill()
		<-x.done[i]
	}
	x.procs, x.done = nil, nil
}

type prefixWriter struct {
	x      *Crossplane
	prefix string
}

func (w *prefixWriter) Write(b []byte) (int, error) {
	w.x.logMu.Lock()
	defer w.x.logMu.Unlock()
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		w.x.logs.WriteString(w.prefix)
		w.x.logs.WriteString(line)
	}
	return len(b), nil
}

// EnvPackage, set to a package file's path, runs test/e2e's hold and
// records scenarios against a provider the real Crossplane installed from
// it (test/e2e StartCrossplane) instead of the local control plane.
const EnvPackage = "PROVIDER_CODER_E2E_CROSSPLANE_XPKG"
