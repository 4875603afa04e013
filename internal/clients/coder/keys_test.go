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
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

func keysNamed(names ...string) []codersdk.AIGatewayKey {
	out := make([]codersdk.AIGatewayKey, 0, len(names))
	for i, n := range names {
		out = append(out, codersdk.AIGatewayKey{ID: uuid.NewMD5(uuid.Nil, []byte{byte(i)}), Name: n})
	}
	return out
}

// keyServer answers the key list with answer(n) for the n-th request (from 1).
func keyServer(t *testing.T, answer func(n int64, w http.ResponseWriter, r *http.Request)) (*Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/ai-gateway/keys", func(w http.ResponseWriter, r *http.Request) {
		answer(n.Add(1), w, r)
	})
	_, c := newServer(t, mux)
	return c, &n
}

func TestKeyListerSharesOneRequestAmongConcurrentCallers(t *testing.T) {
	want := keysNamed("a", "b")
	// The answer waits until the request is in flight and every caller has
	// begun: the callers pile up on the flight.
	arrived, release := make(chan struct{}), make(chan struct{})
	var first sync.Once
	c, n := keyServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		first.Do(func() { close(arrived) })
		<-release
		writeJSON(w, 200, want)
	})
	l := NewKeyLister(time.Minute)

	const callers = 200
	var wg, begun sync.WaitGroup
	errs := make(chan error, callers)
	got := make([][]codersdk.AIGatewayKey, callers)
	for i := range callers {
		wg.Add(1)
		begun.Add(1)
		go func() {
			defer wg.Done()
			begun.Done()
			keys, err := l.List(context.Background(), "pc-1", c)
			errs <- err
			got[i] = keys.Keys()
		}()
	}
	<-arrived
	begun.Wait()
	close(release)
	wg.Wait()
	close(errs)

	for err := range errs {
		if err != nil {
			t.Fatalf("List: %v", err)
		}
	}
	if diff := cmp.Diff(int64(1), n.Load()); diff != "" {
		t.Errorf("200 concurrent callers must share one request\nrequests: -want, +got:\n%s", diff)
	}
	for i := range got {
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Fatalf("caller %d got another list: -want, +got:\n%s", i, diff)
		}
	}
}

func TestKeyListerKeepsScopesApart(t *testing.T) {
	c, n := keyServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, keysNamed("a")) })
	l := NewKeyLister(time.Minute)

	for _, scope := range []string{"pc-1", "pc-2", "pc-1"} {
		if _, err := l.List(context.Background(), scope, c); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(int64(2), n.Load()); diff != "" {
		t.Errorf("each ProviderConfig has its own list\nrequests: -want, +got:\n%s", diff)
	}
}

func TestKeyListerListsAgainAfterTTL(t *testing.T) {
	c, n := keyServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, keysNamed("a")) })
	l := NewKeyLister(50 * time.Millisecond)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	l.now = clock.now

	for range 2 {
		if _, err := l.List(context.Background(), "pc-1", c); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(int64(1), n.Load()); diff != "" {
		t.Errorf("within the TTL the list is served from the cache\nrequests: -want, +got:\n%s", diff)
	}
	clock.advance(100 * time.Millisecond)
	if _, err := l.List(context.Background(), "pc-1", c); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(int64(2), n.Load()); diff != "" {
		t.Errorf("after the TTL the keys are listed again\nrequests: -want, +got:\n%s", diff)
	}
}

func TestKeyListerDoesNotCacheErrors(t *testing.T) {
	c, n := keyServer(t, func(i int64, w http.ResponseWriter, _ *http.Request) {
		if i == 1 {
			writeJSON(w, 500, codersdk.Response{Message: "Failed to list keys."})
			return
		}
		writeJSON(w, 200, keysNamed("a"))
	})
	l := NewKeyLister(time.Minute)

	if _, err := l.List(context.Background(), "pc-1", c); !IsUnavailable(err) {
		t.Fatalf("first List: want an Unavailable error, got %v", err)
	}
	list, err := l.List(context.Background(), "pc-1", c)
	keys := list.Keys()
	if err != nil {
		t.Fatalf("the error must not be served again: %v", err)
	}
	if diff := cmp.Diff(keysNamed("a"), keys); diff != "" {
		t.Errorf("keys: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(int64(2), n.Load()); diff != "" {
		t.Errorf("requests: -want, +got:\n%s", diff)
	}
}

func TestKeyListerNeverServesAListStartedBeforeInvalidate(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	c, n := keyServer(t, func(i int64, w http.ResponseWriter, _ *http.Request) {
		if i == 1 {
			// The list in flight when we create a key: it does not show it.
			close(started)
			<-release
			writeJSON(w, 200, keysNamed("old"))
			return
		}
		writeJSON(w, 200, keysNamed("old", "created"))
	})
	t.Cleanup(unblock) // runs before the server's Close, which waits for handlers
	l := NewKeyLister(time.Minute)

	first := make(chan []codersdk.AIGatewayKey, 1)
	go func() {
		keys, _ := l.List(context.Background(), "pc-1", c)
		first <- keys.Keys()
	}()
	<-started

	l.Invalidate("pc-1") // after our own create

	// Bounded, so joining the stale flight fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	after, err := l.List(ctx, "pc-1", c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(keysNamed("old", "created"), after.Keys()); diff != "" {
		t.Errorf("a caller after Invalidate must get a list started after it\nkeys: -want, +got:\n%s", diff)
	}

	unblock()
	if diff := cmp.Diff(keysNamed("old"), <-first); diff != "" {
		t.Errorf("the caller before Invalidate gets the list it waited for\nkeys: -want, +got:\n%s", diff)
	}

	cached, err := l.List(context.Background(), "pc-1", c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(keysNamed("old", "created"), cached.Keys()); diff != "" {
		t.Errorf("the stale list must not be stored when it finishes last\nkeys: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(int64(2), n.Load()); diff != "" {
		t.Errorf("requests: -want, +got:\n%s", diff)
	}
}

func TestKeyListerWaiterCancelLeavesTheFlightForOthers(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	c, n := keyServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-release:
			writeJSON(w, 200, keysNamed("a"))
		case <-r.Context().Done():
			// The flight was cancelled: the test fails on the count below.
		}
	})
	l := NewKeyLister(time.Minute)

	ctx, cancel := context.WithCancel(context.Background())
	impatient := make(chan error)
	go func() {
		_, err := l.List(ctx, "pc-1", c)
		impatient <- err
	}()
	<-started

	patient := make(chan error)
	go func() {
		_, err := l.List(context.Background(), "pc-1", c)
		patient <- err
	}()

	cancel()
	select {
	case err := <-impatient:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled waiter returns ctx.Err(), got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled waiter is still waiting for the shared request")
	}

	close(release)
	if err := <-patient; err != nil {
		t.Errorf("the other waiter still gets the list: %v", err)
	}
	if diff := cmp.Diff(int64(1), n.Load()); diff != "" {
		t.Errorf("one waiter's cancel must not cancel the shared request\nrequests: -want, +got:\n%s", diff)
	}
}

func TestKeyListerListSinceSendsANewRequestOnlyForAnOlderList(t *testing.T) {
	c, n := keyServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		// Each list shows one more key: a key made in Coder meanwhile.
		names := []string{"a", "b", "c"}[:n]
		writeJSON(w, 200, keysNamed(names...))
	})
	l := NewKeyLister(time.Minute)
	ctx := context.Background()
	before := time.Now()
	if _, err := l.List(ctx, "pc-1", c); err != nil {
		t.Fatal(err)
	}
	got, err := l.ListSince(ctx, "pc-1", c, before)
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 1 || got.Len() != 1 {
		t.Errorf("a list sent after since must serve: %d requests, %d keys; want 1, 1", n.Load(), got.Len())
	}
	after := time.Now()
	got, err = l.ListSince(ctx, "pc-1", c, after)
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 || got.Len() != 2 {
		t.Errorf("a cached list older than since must not serve: %d requests, %d keys; want 2, 2", n.Load(), got.Len())
	}
	got, err = l.List(ctx, "pc-1", c)
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 || got.Len() != 2 {
		t.Errorf("the newer list must be the one cached: %d requests, %d keys; want 2, 2", n.Load(), got.Len())
	}
}

func TestKeyListerDoesNotWaitOnTheProbeOfAStalledCoder(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c, n := keyServer(t, func(_ int64, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	l := NewKeyLister(time.Minute)
	probeDone := make(chan error, 1)
	go func() {
		_, err := l.List(context.Background(), "pc-1", c)
		probeDone <- err
	}()
	for n.Load() == 0 {
		runtime.Gosched()
	}
	// The list in flight is the probe of a Coder whose last request went
	// unanswered.
	c.breaker.mu.Lock()
	c.breaker.openUntil, c.breaker.probing = time.Now().Add(-time.Second), true
	c.breaker.mu.Unlock()

	start := time.Now()
	_, err := l.List(context.Background(), "pc-1", c)
	if d := time.Since(start); d > c.Timeout()/4 || !IsUnavailable(err) {
		t.Errorf("a caller joining the probe's list returned after %s with %v; want Unavailable at once", d, err)
	}
	if err := <-probeDone; !IsUnavailable(err) {
		t.Errorf("the probe's list: %v, want Unavailable", err)
	}
}
