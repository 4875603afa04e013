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

// Package testenv starts what the scenario suites run on: a cluster with the
// provider running (in this process on the local control plane, as the
// process Crossplane installed, or as a pod on kind) and the Coder it talks
// to (the fake, or the real server), and gives a scenario its helpers on it.
// test/e2e, test/interleave, test/argocdsync and hack/bench use it. Time is
// compressed through the provider's own knobs (poll interval, ProviderConfig
// deletion bounds), never by stubbing clocks.
package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// Env is a cluster with the provider running, and the Coder it talks to.
type Env struct {
	// Config and Kube act as a cluster admin.
	Config *rest.Config
	Kube   client.Client
	// Coder is the fake Coder deployment the ProviderConfigs point at.
	Coder *fakecoder.Server
	// Logs holds everything the provider logged.
	Logs *LogBuffer
	// Cluster is what the hold and records scenarios use, so they run
	// against this control plane or a kind cluster alike.
	Cluster Cluster
	// Denials records every request of the provider that RBAC refused.
	Denials *Denials

	// ControlPlane is the control plane the test binary started, nil on a
	// cluster it did not (kind).
	ControlPlane *controlplane.ControlPlane
	// Options are the provider's options where it runs in this process
	// (StartLocal), its production defaults elsewhere.
	Options provider.Options

	provider *runningProvider
	// providerConfig authenticates as the provider's ServiceAccount, bound
	// to exactly the ClusterRoles a Crossplane installation gives it.
	providerConfig *rest.Config
	// teardown stops what a start function started besides the above, in
	// reverse order.
	teardown []func()
}

// StartLocal starts a control plane, installs the CRDs, grants the
// provider's ServiceAccount the RBAC of its package, starts a fake Coder and
// runs the provider in this process as that ServiceAccount.
func StartLocal(ctx context.Context, o provider.Options) (_ *Env, err error) {
	dir, err := controlplane.BinDir()
	if err != nil {
		return nil, err
	}
	var cpLogs io.Writer
	if os.Getenv("PROVIDER_CODER_TEST_VERBOSE") != "" {
		cpLogs = os.Stderr
	}
	cp, err := controlplane.Start(ctx, controlplane.Options{BinDir: dir, Logs: cpLogs})
	if err != nil {
		return nil, err
	}
	// The test's own admin client: scenarios create hundreds of objects,
	// and client-go's default of 5 requests per second would measure the
	// test's throttle, not the provider.
	cfg := rest.CopyConfig(cp.Config)
	cfg.QPS, cfg.Burst = 200, 400
	e := &Env{Config: cfg, ControlPlane: cp, Logs: &LogBuffer{}, Denials: &Denials{}, Options: o}
	e.Cluster = localCluster{e}
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()
	s, err := provider.Scheme()
	if err != nil {
		return nil, err
	}
	if e.Kube, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		return nil, err
	}
	if err := crds.Install(ctx, cp.Config); err != nil {
		return nil, err
	}
	if err := GrantPackageRBAC(ctx, e.Kube); err != nil {
		return nil, err
	}
	// The provider runs in its ServiceAccount's namespace, as Crossplane
	// runs it (POD_NAMESPACE), and keeps its own Secrets there.
	if e.Options.Namespace == "" {
		e.Options.Namespace = packagerbac.ServiceAccountNamespace
	}
	if err := e.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.Options.Namespace}}); err != nil && !kerrors.IsAlreadyExists(err) {
		return nil, err
	}
	// The provider's client is paced as in production; cfg's limits are
	// the test's own.
	pcfg := provider.RESTConfig(cp.UserConfig(packagerbac.User(), packagerbac.Groups()...))
	pcfg.WrapTransport = e.Denials.Wrap
	e.providerConfig = pcfg
	e.Coder = fakecoder.New(fakecoder.Options{})
	if err := e.Coder.Start(); err != nil {
		return nil, err
	}
	if err := e.StartProvider(); err != nil {
		return nil, err
	}
	return e, nil
}

// Stop stops everything StartLocal started.
func (e *Env) Stop() {
	e.StopProvider()
	if e.Coder != nil {
		e.Coder.Close()
	}
	for i := len(e.teardown) - 1; i >= 0; i-- {
		e.teardown[i]()
	}
	e.teardown = nil
	if e.ControlPlane != nil {
		_ = e.ControlPlane.Stop()
	}
}

// GrantPackageRBAC creates the ClusterRoles of package/ (what Crossplane
// grants, and examples/install/rbac.yaml) and binds them to the
// provider's ServiceAccount.
func GrantPackageRBAC(ctx context.Context, kube client.Client) error {
	pkg, err := packagerbac.Load(crds.RepoRoot())
	if err != nil {
		return err
	}
	objs := []client.Object{pkg.SystemClusterRole(), pkg.ExtraClusterRole()}
	for _, b := range pkg.Bindings() {
		objs = append(objs, b)
	}
	for _, o := range objs {
		if err := kube.Create(ctx, o); err != nil {
			return fmt.Errorf("cannot create %T %s: %w", o, o.GetName(), err)
		}
	}
	return nil
}

// KubeconfigPath is an admin kubeconfig for kubectl.
func (e *Env) KubeconfigPath() string { return e.ControlPlane.KubeconfigPath }

type runningProvider struct {
	cancel context.CancelFunc
	done   chan error
}

// StartProvider runs the provider in this process until StopProvider.
func (e *Env) StartProvider() error {
	if e.provider != nil {
		return nil
	}
	o := e.Options
	o.LogOutput = e.Logs
	o.MetricsBindAddress = "0"
	o.HealthProbeBindAddress = "0"
	// The same process runs the provider again after a simulated crash.
	o.SkipControllerNameValidation = true
	ctx, cancel := context.WithCancel(context.Background())
	p := &runningProvider{cancel: cancel, done: make(chan error, 1)}
	go func() { p.done <- provider.Run(ctx, e.providerConfig, o) }()
	select {
	case err := <-p.done:
		cancel()
		return fmt.Errorf("provider exited at start: %w", err)
	case <-time.After(200 * time.Millisecond):
	}
	e.provider = p
	return nil
}

// StopProvider stops the provider as a crash would, from the cluster's point
// of view: it stops reconciling whatever it was doing.
func (e *Env) StopProvider() {
	if e.provider == nil {
		return
	}
	e.provider.cancel()
	select {
	case err := <-e.provider.done:
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(os.Stderr, "provider stopped with: %v\n", err)
		}
	case <-time.After(30 * time.Second):
	}
	e.provider = nil
}

// LogBuffer collects the provider's log output; it is safe for concurrent
// use.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if os.Getenv("PROVIDER_CODER_TEST_VERBOSE") != "" {
		_, _ = os.Stderr.Write(p)
	}
	return l.buf.Write(p)
}

// String returns everything logged so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Contains reports whether the logs contain s.
func (l *LogBuffer) Contains(s string) bool { return strings.Contains(l.String(), s) }
