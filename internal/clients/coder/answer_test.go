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

package coder

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/coder/v2/codersdk"
)

// buildInfoServer answers the build info with status, after release is
// closed; arrived closes when the first request arrives.
func buildInfoServer(t *testing.T, status int, release <-chan struct{}) (*Client, *atomic.Int64, <-chan struct{}) {
	t.Helper()
	var n atomic.Int64
	arrived := make(chan struct{})
	var first sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/buildinfo", func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		first.Do(func() { close(arrived) })
		<-release
		if status != http.StatusOK {
			writeJSON(w, status, codersdk.Response{Message: "unavailable"})
			return
		}
		writeJSON(w, http.StatusOK, codersdk.BuildInfoResponse{DeploymentID: "deployment-1"})
	})
	_, c := newServer(t, mux)
	return c, &n, arrived
}

// askTogether has callers ask the deployment id at once, while the first
// request waits for all of them, and returns their errors.
func askTogether(t *testing.T, c *Client, arrived <-chan struct{}, release chan<- struct{}, callers int, ctxOf func(i int) context.Context) []error {
	t.Helper()
	var wg, begun sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		begun.Add(1)
		go func() {
			defer wg.Done()
			begun.Done()
			id, err := c.DeploymentID(ctxOf(i))
			if err == nil && id != "deployment-1" {
				err = errors.New("answered " + id)
			}
			errs[i] = err
		}()
	}
	<-arrived
	begun.Wait()
	close(release)
	wg.Wait()
	return errs
}

// The deletes of a ProviderConfig's keys all ask which deployment their
// client reaches within the same moment, when its answer has expired: they
// share one request, not one each (issue 33: 4 to 6 requests in 1.7 s of
// deletes where one was due).
func TestCallersWhoseDeploymentIDExpiredTogetherShareOneRequest(t *testing.T) {
	release := make(chan struct{})
	c, n, arrived := buildInfoServer(t, http.StatusOK, release)
	const callers = 50
	for i, err := range askTogether(t, c, arrived, release, callers, func(int) context.Context { return context.Background() }) {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	if got := n.Load(); got != 1 {
		t.Errorf("%d callers at once sent %d build info requests, want 1", callers, got)
	}
}

// A caller that stops waiting does not fail the request it started, which
// the callers after it share.
func TestACallerThatGivesUpLeavesTheSharedRequestToTheOthers(t *testing.T) {
	release := make(chan struct{})
	c, n, arrived := buildInfoServer(t, http.StatusOK, release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	if _, err := c.DeploymentID(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that gave up got %v, want its own cancellation", err)
	}
	for i, err := range askTogether(t, c, arrived, release, 10, func(int) context.Context { return context.Background() }) {
		if err != nil {
			t.Errorf("caller %d failed with another's cancellation: %v", i, err)
		}
	}
	if got := n.Load(); got != 1 {
		t.Errorf("build info requests = %d, want 1: the callers after the one that gave up share its request", got)
	}
}

// An error is every waiting caller's, and is not kept: the next caller asks
// again.
func TestAFailedDeploymentIDIsNotKept(t *testing.T) {
	release := make(chan struct{})
	c, n, arrived := buildInfoServer(t, http.StatusServiceUnavailable, release)
	for i, err := range askTogether(t, c, arrived, release, 5, func(int) context.Context { return context.Background() }) {
		if err == nil {
			t.Errorf("caller %d got an id from a failed request", i)
		}
	}
	if _, err := c.DeploymentID(context.Background()); err == nil {
		t.Error("DeploymentID after a failure answered without asking")
	}
	if got := n.Load(); got != 2 {
		t.Errorf("build info requests = %d, want 2 (the shared one, then the next caller's)", got)
	}
}
