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

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
)

func TestPlainHTTPToAnotherHostWarnsOnTheProviderConfig(t *testing.T) {
	ns := env.Namespace(t)
	// The fake Coder listens on 127.0.0.1: loopback, no warning.
	local := env.ProviderConfig(t, ns)
	c := env.WaitCondition(t, local, config.TypeInsecureTransport, corev1.ConditionFalse, testenv.WaitLong)
	if c.Reason != config.ReasonLoopback {
		t.Errorf("a ProviderConfig of %s: InsecureTransport reason %q, want %q", local.Spec.URL, c.Reason, config.ReasonLoopback)
	}

	// Nothing answers there; the warning comes from the URL alone.
	remote := testenv.ProviderConfigOf(ns, "remote", "http://coder.example.invalid", "coder-token")
	env.Create(t, remote)
	c = env.WaitCondition(t, remote, config.TypeInsecureTransport, corev1.ConditionTrue, testenv.WaitLong)
	if c.Reason != config.ReasonPlaintextHTTP || c.Message == "" {
		t.Errorf("a ProviderConfig of %s: InsecureTransport %s/%q, want %s with a message", remote.Spec.URL, c.Reason, c.Message, config.ReasonPlaintextHTTP)
	}
}

// stallingCoder answers build info and the token's user as Coder, so its
// ProviderConfig is Ready and its resources connect, and holds every other
// request without answering, as an overloaded or hostile Coder does.
func stallingCoder(t *testing.T) (srv *httptest.Server, token string, held *atomic.Int64) {
	t.Helper()
	spare := env.Cluster.SpareCoder(t)
	u, err := url.Parse(spare.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	release := make(chan struct{})
	held = &atomic.Int64{}
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v2/buildinfo", "/api/v2/users/me":
			proxy.ServeHTTP(w, r)
			return
		}
		held.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv, spare.Token(), held
}

// timeToReady creates a key on the ProviderConfig "default" of ns and
// returns how long it took to become Ready.
func timeToReady(t *testing.T, ns, name string) time.Duration {
	t.Helper()
	k := newKey(ns, name)
	start := time.Now()
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return time.Since(start)
}

func TestSlowTenantDoesNotStallOthers(t *testing.T) {
	good := env.Namespace(t)
	env.ProviderConfig(t, good)
	alone := timeToReady(t, good, "alone")

	slow := env.Namespace(t)
	srv, token, held := stallingCoder(t)
	env.TokenSecret(t, slow, "coder-token", token)
	pc := testenv.ProviderConfigOf(slow, "default", srv.URL, "coder-token")
	env.Create(t, pc)
	env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	const n = 100
	for i := range n {
		env.Create(t, newKey(slow, fmt.Sprintf("stalled-%d", i)))
	}
	// The slow tenant's reconciles are now waiting on its Coder.
	testenv.Eventually(t, testenv.WaitLong, "requests held by the slow Coder", func() (bool, string) {
		return held.Load() >= 5, fmt.Sprintf("%d held", held.Load())
	})

	beside := timeToReady(t, good, "beside")

	t.Logf("a new key became Ready in %s alone, %s beside %d keys of a Coder that never answers (%d requests held)", alone, beside, n, held.Load())
	fmt.Printf("slow tenant: key Ready in %s alone, %s beside %d keys of a stalled Coder\n", alone.Round(time.Millisecond), beside.Round(time.Millisecond), n)
	if beside > 30*time.Second {
		t.Errorf("a key took %s to become Ready beside a stalled tenant, want under 30s", beside)
	}
}
