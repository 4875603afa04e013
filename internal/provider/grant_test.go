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

package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

// grantAfter refuses every review until n reviews were made, as RBAC does
// until Crossplane's RBAC manager creates the provider's ClusterRole.
type grantAfter struct {
	mu    sync.Mutex
	n     int
	asked []string
}

func (g *grantAfter) review(_ context.Context, verb string) (bool, string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, verb)
	if len(g.asked) > g.n {
		return true, "", nil
	}
	return false, `RBAC: clusterrole.rbac.authorization.k8s.io "crossplane:provider:provider-coder-1:system" not found`, nil
}

type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func logTo(w io.Writer) logging.Logger {
	return logging.NewLogrLogger(zap.New(zap.WriteTo(w)))
}

func TestTheProviderStartsOnceRBACGrantsItsOwnKinds(t *testing.T) {
	g := &grantAfter{n: 3}
	out := &lines{}
	granted, waited, err := WaitForGrant(t.Context(), GrantWait{Review: g.review, Log: logTo(out), Bound: time.Minute, Every: 10 * time.Millisecond})
	if err != nil || !granted {
		t.Fatalf("WaitForGrant = %t, %v; want granted", granted, err)
	}
	// list refused 3 times, then list and watch allowed.
	if want := []string{"list", "list", "list", "list", "watch"}; fmt.Sprint(g.asked) != fmt.Sprint(want) {
		t.Errorf("asked %q, want %q", g.asked, want)
	}
	if waited < 30*time.Millisecond {
		t.Errorf("waited %s, want at least three retries", waited)
	}
	log := out.String()
	if strings.Count(log, "Waiting for RBAC") != 1 || strings.Count(log, "RBAC now lets the provider") != 1 {
		t.Errorf("want one line that it waits, naming why, and one that it starts; log:\n%s", log)
	}
	if !strings.Contains(log, "crossplane:provider:provider-coder-1:system") {
		t.Errorf("the waiting line does not say what RBAC answered; log:\n%s", log)
	}
}

func TestTheProviderStartsAtOnceWhenRBACGrantsItsOwnKinds(t *testing.T) {
	g := &grantAfter{}
	out := &lines{}
	granted, _, err := WaitForGrant(t.Context(), GrantWait{Review: g.review, Log: logTo(out), Bound: time.Minute, Every: time.Hour})
	if err != nil || !granted {
		t.Fatalf("WaitForGrant = %t, %v; want granted", granted, err)
	}
	if out.String() != "" {
		t.Errorf("a provider granted at once logs nothing about it, got:\n%s", out.String())
	}
}

func TestTheGrantWaitIsBounded(t *testing.T) {
	g := &grantAfter{n: 1 << 30}
	out := &lines{}
	granted, waited, err := WaitForGrant(t.Context(), GrantWait{Review: g.review, Log: logTo(out), Bound: 50 * time.Millisecond, Every: 10 * time.Millisecond})
	if err != nil || granted {
		t.Fatalf("WaitForGrant = %t, %v; want not granted, no error: the provider starts anyway", granted, err)
	}
	if waited < 50*time.Millisecond || waited > 5*time.Second {
		t.Errorf("waited %s, want the bound (50ms)", waited)
	}
	if !strings.Contains(out.String(), "starting its controllers anyway") {
		t.Errorf("the provider does not say it starts without its grant; log:\n%s", out.String())
	}
}

func TestAReviewThatKeepsFailingFailsTheStartAfterTheBound(t *testing.T) {
	broken := func(context.Context, string) (bool, string, error) {
		return false, "", errors.New("connection refused")
	}
	_, _, err := WaitForGrant(t.Context(), GrantWait{Review: broken, Log: logTo(io.Discard), Bound: 30 * time.Millisecond, Every: 10 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("WaitForGrant = %v, want the review's error", err)
	}
}

// While it waits, the provider is alive and not ready: a readiness probe
// keeps its Provider from turning Healthy, a liveness probe does not
// restart it. Once granted, the address is free for the manager.
func TestWhileItWaitsForRBACTheProviderIsAliveAndNotReady(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	release := make(chan struct{})
	review := func(ctx context.Context, _ string) (bool, string, error) {
		select {
		case <-release:
			return true, "", nil
		default:
			return false, "no role yet", nil
		}
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := WaitForGrant(context.Background(), GrantWait{Review: review, Log: logTo(io.Discard), Bound: time.Minute, Every: 10 * time.Millisecond, Probes: addr})
		done <- err
	}()
	status := func(path string) int {
		var code int
		var last error
		// The probes answer once WaitForGrant serves them.
		if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
			resp, err := http.Get("http://" + addr + path) //nolint:noctx // a test's probe
			if last = err; err != nil {
				return false, nil
			}
			_ = resp.Body.Close()
			code = resp.StatusCode
			return true, nil
		}); err != nil {
			t.Fatalf("GET %s: %v", path, last)
		}
		return code
	}
	if got := status("/healthz"); got != http.StatusOK {
		t.Errorf("/healthz while waiting = %d, want 200", got)
	}
	if got := status("/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz while waiting = %d, want 503", got)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the probes' address is still taken once the provider starts: %v", err)
	}
	_ = l.Close()
}
