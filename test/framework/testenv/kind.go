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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// StartKind connects to a cluster `make e2e` set up (test/framework/kind): the
// provider installed as a Crossplane package and the fake Coders deployed.
// Env.Coder is nil there: only the scenarios that use Env.Cluster run.
func StartKind(ctx context.Context, kubeconfig string) (*Env, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	s, err := provider.Scheme()
	if err != nil {
		return nil, err
	}
	kube, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	host, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	c := &kindCluster{cs: cs, kube: kube, rt: rt, host: host, logs: kind.NewProviderLogs(cs, kind.APILogReader(cs))}
	if _, err := c.providerPod(ctx); err != nil {
		return nil, err
	}
	return &Env{Config: cfg, Kube: kube, Logs: &LogBuffer{}, Cluster: c}, nil
}

// kindCluster reaches the provider and the fake Coders through the API
// server: services and pods proxies, and the pods/log API.
type kindCluster struct {
	cs     kubernetes.Interface
	kube   client.Client
	rt     http.RoundTripper // authenticates to the API server
	host   *url.URL
	spares atomic.Int32
	// logs keeps what every provider pod of the run logged, also the pods
	// RestartProvider deleted.
	logs *kind.ProviderLogs
}

func (c *kindCluster) Coder(t *testing.T) Coder { return c.coder(t, kind.CoderName) }

// SpareCoder hands out the next spare fake Coder, emptied first; there are
// kind.SpareCoders() of them for one test run, as many as the scenarios
// declare (test/framework/kind.Scenarios).
func (c *kindCluster) SpareCoder(t *testing.T) Coder {
	t.Helper()
	i := int(c.spares.Add(1))
	if n := kind.SpareCoders(); i > n {
		t.Fatalf("all %d spare fake Coders are in use: %s takes one more than test/framework/kind.Scenarios declares", n, t.Name())
	}
	rc := c.coder(t, kind.SpareCoderName(i))
	if err := rc.admin.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	return rc
}

// RealCoder skips t: the real Coder runs on this host's loopback, which
// the provider's pod in the kind cluster cannot reach, and a ProviderConfig
// naming it there would fail for a reason no scenario is about. make test
// runs the same scenarios on the real Coder against a local control plane.
func (c *kindCluster) RealCoder(t *testing.T) Coder {
	t.Helper()
	t.Skip("skipping the real Coder on kind: it runs on this host's loopback, which the provider's pod cannot reach (make test runs it)")
	return nil
}

func (c *kindCluster) coder(t *testing.T, name string) *remoteCoder {
	t.Helper()
	svc := func(port int) string {
		return fmt.Sprintf("/api/v1/namespaces/%s/services/http:%s:%d/proxy", kind.CoderNamespace, name, port)
	}
	rc := &remoteCoder{
		t:     t,
		url:   kind.CoderURL(name),
		admin: &fakecoder.AdminClient{BaseURL: "http://fakecoder", HTTP: c.proxyClient(svc(kind.AdminPort))},
		api:   c.proxyClient(svc(kind.CoderPort)),
	}
	cfg, err := rc.admin.Config(t.Context())
	if err != nil {
		t.Fatalf("cannot reach fake Coder %s: %v", name, err)
	}
	rc.token = cfg.Token
	return rc
}

// proxyClient sends each request to prefix+path on the API server, whatever
// host the request names; codersdk resolves paths against its URL's root,
// which would lose a proxy prefix.
func (c *kindCluster) proxyClient(prefix string) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: roundTripperFn(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		u := *c.host
		u.Path = path.Join(c.host.Path, prefix, r.URL.Path)
		u.RawQuery = r.URL.RawQuery
		r.URL, r.Host = &u, u.Host
		return c.rt.RoundTrip(r)
	})}
}

func (c *kindCluster) providerPod(ctx context.Context) (*corev1.Pod, error) {
	l, err := c.cs.CoreV1().Pods(kind.ProviderNamespace).List(ctx, metav1.ListOptions{LabelSelector: kind.ProviderPodSelector})
	if err != nil {
		return nil, err
	}
	var ready []*corev1.Pod
	for i := range l.Items {
		p := &l.Items[i]
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && kind.PodReady(p) {
			ready = append(ready, p)
		}
	}
	if len(ready) != 1 {
		return nil, fmt.Errorf("%d ready provider pods (%s in %s), want 1", len(ready), kind.ProviderPodSelector, kind.ProviderNamespace)
	}
	return ready[0], nil
}

// RestartProvider deletes the provider's pod without a grace period, as a
// crash or a node loss would, and waits for its replacement. The pod's logs
// are kept first, for ProviderLogs and the final RBAC check.
func (c *kindCluster) RestartProvider(t *testing.T) {
	t.Helper()
	old, err := c.providerPod(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.logs.Retire(t.Context(), old); err != nil {
		t.Fatalf("cannot keep the logs of the provider pod before deleting it: %v", err)
	}
	if err := c.cs.CoreV1().Pods(old.Namespace).Delete(t.Context(), old.Name, *metav1.NewDeleteOptions(0)); err != nil {
		t.Fatal(err)
	}
	Eventually(t, 2*time.Minute, "a new provider pod", func() (bool, string) {
		p, err := c.providerPod(t.Context())
		if err != nil {
			return false, err.Error()
		}
		return p.UID != old.UID, "the old pod is still the ready one"
	})
}

// ProviderLogs is what every provider pod of the run logged, the pods
// RestartProvider deleted first; it only grows.
func (c *kindCluster) ProviderLogs(t *testing.T) string {
	t.Helper()
	s, err := c.logs.All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (c *kindCluster) ProviderMetrics(t *testing.T) []*dto.MetricFamily {
	t.Helper()
	p, err := c.providerPod(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.cs.CoreV1().Pods(p.Namespace).ProxyGet("http", p.Name, fmt.Sprint(kind.MetricsPort), "metrics", nil).DoRaw(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := parseMetrics(b)
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

func parseMetrics(b []byte) ([]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	byName, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	out := make([]*dto.MetricFamily, 0, len(byName))
	for _, mf := range byName {
		out = append(out, mf)
	}
	return out, nil
}

// remoteCoder is a fake Coder in the cluster, driven through its admin API;
// a failing admin call fails the test that made it.
type remoteCoder struct {
	t     *testing.T
	url   string
	token string
	admin *fakecoder.AdminClient
	api   *http.Client
}

func (c *remoteCoder) URL() string   { return c.url }
func (c *remoteCoder) Token() string { return c.token }

func (c *remoteCoder) SetFault(endpoint string, f fakecoder.Fault) error {
	return c.admin.SetFault(context.Background(), endpoint, f)
}

func (c *remoteCoder) ClearFault(endpoint string) {
	if err := c.admin.ClearFault(context.Background(), endpoint); err != nil {
		c.t.Errorf("cannot clear the fault of %s: %v", endpoint, err)
	}
}

// SetDown goes through the admin listener, which stays up.
func (c *remoteCoder) SetDown(refuse bool) error {
	if refuse {
		return c.admin.Down(context.Background(), 0)
	}
	return c.admin.Up(context.Background())
}

func (c *remoteCoder) Keys() []fakecoder.KeyRow {
	k, err := c.admin.Keys(context.Background())
	if err != nil {
		c.t.Fatalf("cannot list the fake Coder's keys: %v", err)
	}
	return k
}

func (c *remoteCoder) Providers(includeDeleted bool) []fakecoder.ProviderRow {
	p, err := c.admin.Providers(context.Background(), includeDeleted)
	if err != nil {
		c.t.Fatalf("cannot list the fake Coder's providers: %v", err)
	}
	return p
}

func (c *remoteCoder) Requests(endpoint string) int {
	n, err := c.admin.Requests(context.Background())
	if err != nil {
		c.t.Fatalf("cannot read the fake Coder's request counts: %v", err)
	}
	return n[endpoint]
}

// ServesKeys is true: the fakes in the cluster are licensed.
func (c *remoteCoder) ServesKeys() bool { return true }

func (c *remoteCoder) SetClockOffset(d time.Duration) error {
	return c.admin.SetClockOffset(context.Background(), d)
}

func (c *remoteCoder) Now() time.Time {
	clock, err := c.admin.Clock(context.Background())
	if err != nil {
		c.t.Fatalf("cannot read the fake Coder's clock: %v", err)
	}
	return clock.Now
}

func (c *remoteCoder) Heartbeat(id uuid.UUID, at time.Time) error {
	return c.admin.Heartbeat(context.Background(), id, at)
}

func (c *remoteCoder) SDK(*testing.T) *codersdk.Client {
	cl := codersdk.New(&url.URL{Scheme: "http", Host: "fakecoder"})
	cl.HTTPClient = c.api
	cl.SetSessionToken(c.token)
	return cl
}

// RBACFailures returns what the provider's RBAC refused, from the denials
// recorded in process or from the logs of every provider pod of the run.
func (e *Env) RBACFailures() []string {
	var out []string
	if e.Denials != nil {
		out = append(out, e.Denials.All()...)
	}
	logs := e.Logs.String()
	if c, ok := e.Cluster.(*kindCluster); ok {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		l, err := c.logs.All(ctx)
		if err != nil {
			return append(out, "cannot read the provider's logs to look for RBAC denials: "+err.Error())
		}
		logs = l
	}
	if c, ok := e.Cluster.(*processCluster); ok {
		logs = c.proc.Logs()
	}
	if _, local := e.Cluster.(localCluster); local && e.Denials != nil {
		return append(out, e.Denials.unexpectedInLog(logs)...)
	}
	return append(out, packagerbac.LoggedDenials(logs)...)
}
