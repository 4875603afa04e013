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

// Package controlplane runs a real, throwaway Kubernetes control plane for
// tests: etcd, kube-apiserver and a kube-controller-manager running the
// namespace and garbage collector controllers, so that namespace deletion,
// foreground deletion and RBAC behave as they do in a cluster. Unlike
// envtest's control plane it runs those controllers, and it can mint
// credentials for arbitrary users so code can be tested under a
// least-privilege role.
//
// The binaries are built from source by cluster/local/build.sh (`make
// controlplane`) and cached outside the checkout; see BinDir.
package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/crossplane-contrib/provider-coder/test/framework/ports"
)

const (
	// defaultStartTimeout bounds Start when its context has no deadline.
	// Startup takes seconds; this only turns a hang into an error.
	defaultStartTimeout = 2 * time.Minute
	// stopGrace is how long a component may take to exit after SIGTERM.
	// Nothing it holds outlives Stop, so there is no point waiting longer.
	stopGrace = 5 * time.Second
	// pollInterval paces readiness checks.
	pollInterval = 50 * time.Millisecond

	// adminUser is the identity of Config. It is in system:masters, which
	// bypasses RBAC, as a cluster admin's credentials would.
	adminUser = "provider-coder:admin"
	// controllerManagerUser is kube-controller-manager's identity. The
	// namespace and garbage collector controllers delete arbitrary objects,
	// including custom resources with no bootstrap RBAC, so it runs as a
	// master too; a distinct name keeps its requests apart in logs and
	// managedFields.
	controllerManagerUser = "system:kube-controller-manager"
	mastersGroup          = "system:masters"
)

// Options configure a control plane.
type Options struct {
	// BinDir holds the etcd, kube-apiserver, kube-controller-manager and
	// kubectl binaries. Defaults to the result of BinDir().
	BinDir string

	// Logs receives the components' output, each line prefixed with the
	// component's name. If nil, each component logs to <Dir>/logs/<name>.log,
	// which Stop removes.
	Logs io.Writer

	// APIServerArgs are extra kube-apiserver flags, e.g. an audit log for a
	// benchmark that counts a client's writes.
	APIServerArgs []string
}

// A ControlPlane is a running etcd, kube-apiserver and
// kube-controller-manager, listening on loopback only.
type ControlPlane struct {
	// Config authenticates as a cluster admin (system:masters).
	Config *rest.Config

	// KubeconfigPath is a kubeconfig file for Config, for kubectl and other
	// tools that want one.
	KubeconfigPath string

	// Dir is the temporary directory holding the control plane's data,
	// credentials and (by default) logs. Stop removes it.
	Dir string

	binDir        string
	apiServerArgs []string
	ca            *authority
	host          string

	logs  io.Writer
	logMu sync.Mutex
	procs []*process

	stopOnce sync.Once
	stopErr  error
}

// Start starts a control plane and returns once the API server is ready and
// kube-controller-manager has been seen to work (see probeControllers).
// ctx bounds startup only; the control plane runs until Stop is called.
// On error nothing is left running.
func Start(ctx context.Context, o Options) (_ *ControlPlane, err error) {
	binDir := o.BinDir
	if binDir == "" {
		if binDir, err = BinDir(); err != nil {
			return nil, err
		}
	}

	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultStartTimeout)
		defer cancel()
	}

	dir, err := os.MkdirTemp("", "provider-coder-controlplane-")
	if err != nil {
		return nil, fmt.Errorf("cannot create control plane directory: %w", err)
	}
	c := &ControlPlane{Dir: dir, binDir: binDir, logs: o.Logs, apiServerArgs: o.APIServerArgs}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()

	// The ports lie below the ephemeral range, so no outgoing connection
	// can take one before its component binds it (package ports says why);
	// should another listener take one, the component exits and Start
	// reports its output.
	ps, err := ports.Free(3)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer, apiServer := ps[0], ps[1], ps[2]
	c.host = "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(apiServer))

	if err := c.writeCredentials(); err != nil {
		return nil, err
	}
	etcdURL, err := c.startEtcd(etcdClient, etcdPeer)
	if err != nil {
		return nil, err
	}
	// Starting kube-apiserver before etcd is healthy saves nothing
	// measurable (its etcd client backs off) and buries a failing etcd
	// under the API server's connection errors.
	if err := c.waitForEtcd(ctx, etcdURL); err != nil {
		return nil, err
	}
	if err := c.startAPIServer(apiServer, etcdURL); err != nil {
		return nil, err
	}
	if err := c.waitForAPIServer(ctx); err != nil {
		return nil, err
	}
	// kube-controller-manager exits if the API server is not healthy within
	// ten seconds of its start, so it starts only now.
	if err := c.startControllerManager(); err != nil {
		return nil, err
	}
	if err := c.probeControllers(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop stops every component, most dependent first, and removes Dir. It is
// safe to call more than once; later calls return the first call's result.
func (c *ControlPlane) Stop() error {
	c.stopOnce.Do(func() {
		var errs []error
		for i := len(c.procs) - 1; i >= 0; i-- {
			errs = append(errs, c.procs[i].stop(stopGrace))
		}
		if err := os.RemoveAll(c.Dir); err != nil {
			errs = append(errs, fmt.Errorf("cannot remove control plane directory: %w", err))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// UserConfig returns a rest.Config that authenticates as user, a member of
// groups, using a client certificate signed by the control plane's CA. The
// user has no permissions until RBAC grants some (system:masters excepted),
// which is the point: tests can bind a least-privilege role and check that
// it suffices. It panics if it cannot issue a certificate, which only a
// failing random number source can cause.
func (c *ControlPlane) UserConfig(user string, groups ...string) *rest.Config {
	cfg, err := c.userConfig(user, groups...)
	if err != nil {
		panic(fmt.Sprintf("cannot create config for user %q: %v", user, err))
	}
	return cfg
}

// Kubectl returns a command running kubectl as the cluster admin, e.g.
// c.Kubectl("get", "namespaces").CombinedOutput().
func (c *ControlPlane) Kubectl(args ...string) *exec.Cmd {
	return exec.Command(filepath.Join(c.binDir, binKubectl), append([]string{"--kubeconfig", c.KubeconfigPath}, args...)...)
}

func (c *ControlPlane) userConfig(user string, groups ...string) (*rest.Config, error) {
	kp, err := c.ca.clientCert(user, groups...)
	if err != nil {
		return nil, err
	}
	return &rest.Config{
		Host: c.host,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   c.ca.certPEM,
			CertData: kp.certPEM,
			KeyData:  kp.keyPEM,
		},
	}, nil
}

func (c *ControlPlane) path(elem ...string) string {
	return filepath.Join(append([]string{c.Dir}, elem...)...)
}

// writeCredentials creates the CA, the API server's serving certificate, the
// service account signing key and the admin and controller manager
// kubeconfigs. All are made fresh for each control plane, so nothing secret
// is checked in or shared between runs.
func (c *ControlPlane) writeCredentials() error {
	ca, err := newAuthority()
	if err != nil {
		return err
	}
	c.ca = ca

	serving, err := ca.servingCert()
	if err != nil {
		return err
	}
	// kube-apiserver signs service account tokens with this key and
	// verifies them with its public half; it refuses to start without.
	saKey, err := newKey()
	if err != nil {
		return err
	}
	saKeyPEM, err := privateKeyPEM(saKey)
	if err != nil {
		return err
	}
	saPubPEM, err := publicKeyPEM(saKey.Public())
	if err != nil {
		return err
	}

	if err := os.MkdirAll(c.path("pki"), 0o700); err != nil {
		return fmt.Errorf("cannot create pki directory: %w", err)
	}
	for name, data := range map[string][]byte{
		"ca.crt":        ca.certPEM,
		"apiserver.crt": serving.certPEM,
		"apiserver.key": serving.keyPEM,
		"sa.key":        saKeyPEM,
		"sa.pub":        saPubPEM,
	} {
		if err := os.WriteFile(c.path("pki", name), data, 0o600); err != nil {
			return fmt.Errorf("cannot write %s: %w", name, err)
		}
	}

	if c.Config, err = c.userConfig(adminUser, mastersGroup); err != nil {
		return err
	}
	c.KubeconfigPath = c.path("kubeconfig")
	if err := writeKubeconfig(c.KubeconfigPath, c.Config); err != nil {
		return err
	}
	kcm, err := c.userConfig(controllerManagerUser, mastersGroup)
	if err != nil {
		return err
	}
	return writeKubeconfig(c.path("kube-controller-manager.kubeconfig"), kcm)
}

func writeKubeconfig(path string, cfg *rest.Config) error {
	const name = "provider-coder-test"
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
	}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
	}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: metav1.NamespaceDefault}
	kc.CurrentContext = name
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("cannot write kubeconfig %s: %w", path, err)
	}
	return nil
}

func (c *ControlPlane) start(name string, args ...string) error {
	logDir := c.path("logs")
	if c.logs == nil {
		if err := os.MkdirAll(logDir, 0o700); err != nil {
			return fmt.Errorf("cannot create log directory: %w", err)
		}
	}
	p, err := startProcess(name, filepath.Join(c.binDir, name), args, c.logs, &c.logMu, logDir)
	if err != nil {
		return err
	}
	c.procs = append(c.procs, p)
	return nil
}

// startEtcd starts etcd and returns its client URL.
func (c *ControlPlane) startEtcd(clientPort, peerPort int) (string, error) {
	client := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))
	peer := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))
	err := c.start(binEtcd,
		"--name=controlplane",
		"--data-dir="+c.path("etcd"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		// A single member still listens for peers; keep that on loopback
		// and on a port of our choosing rather than the default 2380.
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=controlplane="+peer,
		// The data is thrown away on Stop, so durability buys nothing and
		// fsync is the bulk of etcd's write latency.
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	)
	return client, err
}

func (c *ControlPlane) waitForEtcd(ctx context.Context, url string) error {
	// Plain HTTP on loopback: etcd is reachable by nothing but this host.
	hc := &http.Client{Timeout: time.Second}
	return c.waitFor(ctx, "etcd to become healthy", func(ctx context.Context) (bool, error) {
		return httpOK(ctx, hc, url+"/health")
	})
}

func (c *ControlPlane) startAPIServer(port int, etcdURL string) error {
	return c.start(binAPIServer, append([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		// Without it the API server advertises the host's first non-loopback
		// address in the kubernetes Service's endpoints.
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + c.path("pki"),
		"--tls-cert-file=" + c.path("pki", "apiserver.crt"),
		"--tls-private-key-file=" + c.path("pki", "apiserver.key"),
		"--client-ca-file=" + c.path("pki", "ca.crt"),
		"--authorization-mode=RBAC",
		// NamespaceLifecycle is on by default; name it because tests rely on
		// it refusing new objects in a terminating namespace. ServiceAccount
		// admission is off because no controller creates the default
		// service account it would demand of every pod.
		"--enable-admission-plugins=NamespaceLifecycle",
		"--disable-admission-plugins=ServiceAccount",
		"--service-account-issuer=" + c.host,
		"--service-account-key-file=" + c.path("pki", "sa.pub"),
		"--service-account-signing-key-file=" + c.path("pki", "sa.key"),
		// Only an allocation range for Service objects; nothing routes it.
		"--service-cluster-ip-range=10.0.0.0/24",
		"--profiling=false",
		// The default reconciler publishes the advertise address as the
		// kubernetes Service's endpoint, which validation refuses for a
		// loopback address, logging an error every ten seconds.
		"--endpoint-reconciler-type=none",
	}, c.apiServerArgs...)...,
	)
}

func (c *ControlPlane) waitForAPIServer(ctx context.Context) error {
	rt, err := rest.TransportFor(c.Config)
	if err != nil {
		return fmt.Errorf("cannot create API server transport: %w", err)
	}
	hc := &http.Client{Transport: rt, Timeout: 5 * time.Second}
	return c.waitFor(ctx, "kube-apiserver to become ready", func(ctx context.Context) (bool, error) {
		return httpOK(ctx, hc, c.host+"/readyz")
	})
}

func (c *ControlPlane) startControllerManager() error {
	return c.start(binControllerManager,
		"--kubeconfig="+c.path("kube-controller-manager.kubeconfig"),
		// The two controllers whose absence makes envtest unlike a cluster:
		// without them namespaces never finish terminating and foreground
		// deletion never completes.
		"--controllers=namespace,garbagecollector",
		"--leader-elect=false",
		// Serve nothing: health and metrics are not needed, and no port
		// means no port to collide on.
		"--secure-port=0",
	)
}

// probeControllers returns once the garbage collector has deleted an orphaned
// dependent, which shows kube-controller-manager is up, authenticated and has
// synced its informers. A live process is not enough: the controllers need a
// moment after start to discover resources, and tests that run before then
// would see deletions hang.
//
// The namespace controller is exercised too, by deleting the probe's
// namespace, but not waited for: it deliberately waits five seconds (a
// constant, not a flag) before acting on any deleted namespace, which would
// more than double startup. It starts together with the garbage collector,
// so a working garbage collector is good evidence it is running.
func (c *ControlPlane) probeControllers(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return fmt.Errorf("cannot create clientset: %w", err)
	}
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "controlplane-probe-"},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("cannot create probe namespace: %w", err)
	}
	cms := cs.CoreV1().ConfigMaps(ns.Name)
	owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("cannot create probe owner: %w", err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:            "dependent",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}},
	}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("cannot create probe dependent: %w", err)
	}
	// Background propagation deletes the owner at once and leaves the
	// dependent to the garbage collector alone.
	bg := metav1.DeletePropagationBackground
	if err := cms.Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		return fmt.Errorf("cannot delete probe owner: %w", err)
	}
	if err := c.waitFor(ctx, "the garbage collector to delete a dependent", func(ctx context.Context) (bool, error) {
		return gone(cms.Get(ctx, "dependent", metav1.GetOptions{}))
	}); err != nil {
		return err
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("cannot delete probe namespace: %w", err)
	}
	return nil
}

// waitFor polls cond until it returns true, failing early if any component
// exits: they depend on each other, so any exit means startup has failed.
// cond's errors are transient (a component may not be listening yet); the
// last one is reported if ctx ends first.
func (c *ControlPlane) waitFor(ctx context.Context, what string, cond func(context.Context) (bool, error)) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if ok {
			return true, nil
		}
		last = err
		for _, p := range c.procs {
			select {
			case <-p.done:
				return false, p.exited()
			default:
			}
		}
		return false, nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() == nil:
		return fmt.Errorf("cannot wait for %s: %w", what, err)
	case last == nil:
		return fmt.Errorf("cannot wait for %s: %w", what, ctx.Err())
	default:
		return fmt.Errorf("cannot wait for %s: %w (last error: %w)", what, ctx.Err(), last)
	}
}

func httpOK(ctx context.Context, hc *http.Client, url string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	rsp, err := hc.Do(req)
	if err != nil {
		return false, err
	}
	body, _ := io.ReadAll(io.LimitReader(rsp.Body, 4<<10))
	_ = rsp.Body.Close()
	if rsp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("%s: %s: %s", url, rsp.Status, body)
	}
	return true, nil
}

// gone adapts a Get to a wait condition that holds once the object is gone.
func gone[T any](_ T, err error) (bool, error) {
	switch {
	case kerrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	default:
		return false, errors.New("still exists")
	}
}
