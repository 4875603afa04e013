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
	"net/url"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	dto "github.com/prometheus/client_model/go"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// Cluster is what the hold and records scenarios need beyond the Kubernetes
// API: the provider running in the cluster and the fake Coder it talks to.
// localCluster runs both in this process; kindCluster reaches them in a kind
// cluster through the API server.
type Cluster interface {
	// Coder is the fake Coder every scenario shares.
	Coder(t *testing.T) Coder
	// SpareCoder is a fake Coder of another deployment, for t alone.
	SpareCoder(t *testing.T) Coder
	// RealCoder is the shared real Coder where the provider can reach it,
	// started on first use; it skips t where the real Coder cannot run or
	// the provider cannot reach it (in kind).
	RealCoder(t *testing.T) Coder
	// RestartProvider stops the provider as a crash would and waits until
	// it runs again.
	RestartProvider(t *testing.T)
	// ProviderLogs is what the provider logged, and only grows: this run
	// locally, every provider pod of the run on kind (those RestartProvider
	// deleted, each restarted container's previous log).
	ProviderLogs(t *testing.T) string
	// ProviderMetrics gathers the provider's Prometheus metrics.
	ProviderMetrics(t *testing.T) []*dto.MetricFamily
}

// Coder is a fake Coder as the scenarios drive it; *fakecoder.Server has
// every method but SDK. URL is the address the provider reaches it at.
type Coder interface {
	URL() string
	Token() string
	SetFault(endpoint string, f fakecoder.Fault) error
	ClearFault(endpoint string)
	SetDown(refuse bool) error
	Keys() []fakecoder.KeyRow
	Providers(includeDeleted bool) []fakecoder.ProviderRow
	Requests(endpoint string) int
	// SDK is a codersdk client acting as a human with the token would.
	SDK(t *testing.T) *codersdk.Client
	// ServesKeys reports whether the deployment serves AI Gateway keys (a
	// premium feature): the fakes do; the real Coder only with the licence
	// a user supplies (realcoder.EnvLicenseFile).
	ServesKeys() bool
	// SetClockOffset makes the deployment's clock run d ahead of the
	// cluster's (behind when d is negative), for the rows it creates from
	// now on and the Date of its answers.
	SetClockOffset(d time.Duration) error
	// Now is the time on the deployment's clock.
	Now() time.Time
	// Heartbeat records that a gateway replica using key id checked in at
	// at, a time on the deployment's clock.
	Heartbeat(id uuid.UUID, at time.Time) error
}

// localCluster is the control plane of StartLocal.
type localCluster struct{ e *Env }

// IsLocal reports whether c is the provider run in the test binary's own
// process (StartLocal).
func IsLocal(c Cluster) bool {
	_, ok := c.(localCluster)
	return ok
}

func (c localCluster) Coder(*testing.T) Coder { return localCoder{c.e.Coder} }

func (c localCluster) RealCoder(t *testing.T) Coder { t.Helper(); return RealCoder(t) }

func (c localCluster) SpareCoder(t *testing.T) Coder {
	t.Helper()
	s := fakecoder.New(fakecoder.Options{})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return localCoder{s}
}

func (c localCluster) RestartProvider(t *testing.T) {
	t.Helper()
	c.e.StopProvider()
	if err := c.e.StartProvider(); err != nil {
		t.Fatal(err)
	}
}

func (c localCluster) ProviderLogs(*testing.T) string { return c.e.Logs.String() }

func (c localCluster) ProviderMetrics(t *testing.T) []*dto.MetricFamily {
	t.Helper()
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

type localCoder struct{ *fakecoder.Server }

// LocalCoder is the fake Coder s as the scenarios drive it.
func LocalCoder(s *fakecoder.Server) Coder { return localCoder{s} }

// ServesKeys is true: the shared fake is licensed, and a scenario that
// takes the licence away gives it back.
func (c localCoder) ServesKeys() bool { return true }

func (c localCoder) SetClockOffset(d time.Duration) error {
	c.Server.SetClockOffset(d)
	return nil
}

func (c localCoder) SDK(t *testing.T) *codersdk.Client {
	t.Helper()
	u, err := url.Parse(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	cl := codersdk.New(u)
	cl.SetSessionToken(c.Token())
	return cl
}

// Counter returns the value of the counter name with the label, 0 if the
// provider has not counted it yet.
func Counter(mfs []*dto.MetricFamily, name, label, value string) float64 {
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// LiveKey reports whether Coder holds a key with the id.
func LiveKey(c Coder, id string) bool {
	for _, row := range c.Keys() {
		if row.ID.String() == id {
			return true
		}
	}
	return false
}

// KeysNamed returns Coder's keys named name.
func KeysNamed(c Coder, name string) []fakecoder.KeyRow {
	var out []fakecoder.KeyRow
	for _, k := range c.Keys() {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}
