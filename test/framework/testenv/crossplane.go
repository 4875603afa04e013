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

package testenv

import (
	"context"
	"fmt"
	"os"
	"testing"

	pkgv1 "github.com/crossplane/crossplane/apis/v2/pkg/v1"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/providerprocess"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// StartCrossplane starts a control plane and the real Crossplane on it,
// installs the package file xpkg from a registry on loopback with a Provider
// object, applies examples/install/rbac.yaml, and runs the provider binary
// from the package's image as the ServiceAccount Crossplane's RBAC manager
// bound: the provider as a user installs it, without a kubelet. The fake
// Coders run in this process, as for StartLocal.
func StartCrossplane(ctx context.Context, xpkg string) (_ *Env, err error) {
	dir, err := os.MkdirTemp("", "provider-coder-e2e-crossplane-")
	if err != nil {
		return nil, err
	}
	e := &Env{Logs: &LogBuffer{}}
	c := &processCluster{e: e}
	e.Cluster = c
	e.teardown = append(e.teardown, func() { _ = os.RemoveAll(dir) })
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()
	bin, err := controlplane.BinDir()
	if err != nil {
		return nil, err
	}
	if e.ControlPlane, err = controlplane.Start(ctx, controlplane.Options{BinDir: bin}); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(e.ControlPlane.Config)
	cfg.QPS, cfg.Burst = 200, 400
	e.Config = cfg
	s, err := provider.Scheme()
	if err != nil {
		return nil, err
	}
	if err := pkgv1.AddToScheme(s); err != nil {
		return nil, err
	}
	if e.Kube, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		return nil, err
	}
	xp, err := crossplane.Start(ctx, e.ControlPlane, e.Kube, dir)
	if err != nil {
		return nil, err
	}
	c.crossplane = xp
	e.teardown = append(e.teardown, xp.Stop)
	reg := crossplane.StartRegistry()
	e.teardown = append(e.teardown, reg.Close)
	ref, err := reg.Push(xpkg, "provider-coder", "v0.1.0")
	if err != nil {
		return nil, err
	}
	if _, err := crossplane.Install(ctx, e.ControlPlane, e.Kube, ref); err != nil {
		return nil, fmt.Errorf("%w\nCrossplane's logs:\n%s", err, xp.Logs())
	}
	if c.proc, err = crossplane.RunProvider(ctx, e.Kube, e.ControlPlane, xpkg, dir, append(kind.ProviderArgs(), "--health-probe-bind-address=0")...); err != nil {
		return nil, err
	}
	e.teardown = append(e.teardown, c.proc.Stop)
	e.Coder = fakecoder.New(fakecoder.Options{})
	if err := e.Coder.Start(); err != nil {
		return nil, err
	}
	return e, nil
}

// processCluster is the control plane of StartCrossplane: the provider is a
// process of the package's binary.
type processCluster struct {
	e          *Env
	crossplane *crossplane.Crossplane
	proc       *providerprocess.Process
}

func (c *processCluster) Coder(*testing.T) Coder { return localCoder{c.e.Coder} }

func (c *processCluster) SpareCoder(t *testing.T) Coder { return localCluster{c.e}.SpareCoder(t) }

// RealCoder is the shared real Coder: the provider's process runs on this
// host and reaches its loopback.
func (c *processCluster) RealCoder(t *testing.T) Coder {
	t.Helper()
	return localCluster{c.e}.RealCoder(t)
}

// RestartProvider kills the provider with SIGKILL, as a crash would, and
// starts it again.
func (c *processCluster) RestartProvider(t *testing.T) {
	t.Helper()
	c.proc.Kill()
	if err := c.proc.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// ProviderLogs is what every provider process of the run logged.
func (c *processCluster) ProviderLogs(*testing.T) string { return c.proc.Logs() }

func (c *processCluster) ProviderMetrics(t *testing.T) []*dto.MetricFamily {
	t.Helper()
	s, err := c.proc.Scrape(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s.Families()
}

// CrossplaneRan ends a run of StartCrossplane whose scenarios exited with
// code: a Crossplane that stopped fails the run, and a failed run writes
// the provider's and Crossplane's logs to provider.log and crossplane.log in
// the working directory. It returns the run's exit code.
func CrossplaneRan(e *Env, code int) int {
	c := e.Cluster.(*processCluster)
	if err := c.crossplane.Running(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "provider logs: %s\n", c.proc.LogPath())
		_ = os.WriteFile("provider.log", []byte(c.proc.Logs()), 0o600)
		_ = os.WriteFile("crossplane.log", []byte(c.crossplane.Logs()), 0o600)
		fmt.Println("provider and Crossplane logs written to test/e2e/provider.log and test/e2e/crossplane.log")
	}
	return code
}
