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
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"

	"k8s.io/apimachinery/pkg/util/wait"
)

// stallingServer accepts every request and answers none until the test
// ends; it counts the requests it holds and the most it held at once.
func stallingServer(t *testing.T) (url string, held *atomic.Int64) {
	t.Helper()
	held = &atomic.Int64{}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
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
	return srv.URL, held
}

// callAll makes n concurrent calls and returns each one's error and how
// long it took.
func callAll(n int, call func() error) ([]error, []time.Duration) {
	errs, took := make([]error, n), make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			errs[i] = call()
			took[i] = time.Since(start)
		}()
	}
	wg.Wait()
	return errs, took
}

// The production timeout: a Coder that never answers must not hold every
// caller for it.
const productionTimeout = 30 * time.Second

func TestACoderThatNeverAnswersHoldsAtMostItsSlots(t *testing.T) {
	url, held := stallingServer(t)
	c, err := New(Config{URL: url, Token: testToken, Timeout: productionTimeout, MaxInFlight: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var slotted sync.WaitGroup
	slotted.Add(3)
	// Three calls take the slots and wait for Coder.
	for range 3 {
		go func() {
			slotted.Done()
			_, _ = c.GetProvider(ctx, "openai")
		}()
	}
	slotted.Wait()
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return held.Load() >= 3, nil
	}); err != nil {
		t.Fatalf("Coder holds %d requests, want the 3 slots", held.Load())
	}
	// The others wait for a slot while Coder is young, then give up.
	errs, took := callAll(12, func() error { _, err := c.GetProvider(context.Background(), "openai"); return err })
	for i, err := range errs {
		if !errors.Is(err, errStalled) || ClassOf(err) != ClassUnavailable {
			t.Errorf("call %d beyond the slots: %v (class %s), want the Coder-busy error", i, err, ClassOf(err))
		}
		if took[i] > c.SlotWait()+2*time.Second {
			t.Errorf("call %d beyond the slots waited %s, want at most the slot wait %s", i, took[i], c.SlotWait())
		}
	}
	// Silent for the slot wait: a further call fails at once.
	start := time.Now()
	if _, err := c.GetProvider(context.Background(), "openai"); !errors.Is(err, errStalled) || time.Since(start) > time.Second {
		t.Errorf("a call to a Coder silent for %s: %v after %s, want the busy error at once", c.SlotWait(), err, time.Since(start))
	}
	if got := held.Load(); got != 3 {
		t.Errorf("Coder got %d requests, want 3: one per slot", got)
	}
	cancel()
}

func TestABusyCoderThatAnswersServesEveryCaller(t *testing.T) {
	const calls = 40
	var inFlight, most atomic.Int64
	// Each request is held until the next one arrives (the last until it
	// arrives itself): Coder is always busy with one when another comes.
	arrived := make(chan chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		release := make(chan struct{})
		arrived <- release
		<-release
		inFlight.Add(-1)
		writeJSON(w, http.StatusOK, keysNamed("a"))
	}))
	t.Cleanup(srv.Close)
	go func() {
		var held chan struct{}
		for range calls {
			next := <-arrived
			if held != nil {
				close(held)
			}
			held = next
		}
		close(held)
	}()
	c, err := New(Config{URL: srv.URL, Token: testToken, Timeout: productionTimeout, MaxInFlight: 2})
	if err != nil {
		t.Fatal(err)
	}
	errs, _ := callAll(calls, func() error { _, err := c.ListKeys(context.Background()); return err })
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v, want an answer: a Coder that answers is waited for", i, err)
		}
	}
	if most.Load() > 2 {
		t.Errorf("Coder saw %d requests at once, want at most the 2 slots", most.Load())
	}
}

func TestKeyListCallersStopWaitingOnASilentCoder(t *testing.T) {
	url, held := stallingServer(t)
	c, err := New(Config{URL: url, Token: testToken, Timeout: productionTimeout})
	if err != nil {
		t.Fatal(err)
	}
	l := NewKeyLister(time.Minute)
	errs, took := callAll(20, func() error { _, err := l.List(context.Background(), "pc", c); return err })
	for i, err := range errs {
		if !errors.Is(err, errStalled) {
			t.Errorf("caller %d: %v, want the busy error", i, err)
		}
		if took[i] > c.SlotWait()+2*time.Second {
			t.Errorf("caller %d waited %s on a list Coder never answers, want at most %s", i, took[i], c.SlotWait()+time.Second)
		}
	}
	if got := held.Load(); got != 1 {
		t.Errorf("Coder got %d lists, want the 1 shared", got)
	}
}

// drippingServer sends its headers and the first byte of a key list at
// once, then drips the rest a byte every 50ms, the last byte only once drip
// is closed, as a hostile or overloaded Coder does within the timeout.
// headers gets a value when a request's headers are on the wire.
func drippingServer(t *testing.T) (url string, requests *atomic.Int64, headers <-chan struct{}, drip chan struct{}) {
	t.Helper()
	requests = &atomic.Int64{}
	sent := make(chan struct{}, 16)
	drip = make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body := []byte(`[{"id":"6f4b7c1e-0000-4000-8000-000000000001","name":"a"}]`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:1])
		w.(http.Flusher).Flush()
		sent <- struct{}{}
		// Every byte but the last one dripped; the last waits for drip.
		for _, b := range body[1 : len(body)-1] {
			if !sleep(r.Context(), 50*time.Millisecond) {
				return
			}
			_, _ = w.Write([]byte{b})
			w.(http.Flusher).Flush()
		}
		select {
		case <-drip:
			_, _ = w.Write(body[len(body)-1:])
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests, sent, drip
}

// sleep waits d, or until ctx ends: false.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func TestARequestSlotIsHeldUntilTheBodyIsClosed(t *testing.T) {
	url, requests, headers, drip := drippingServer(t)
	c, err := New(Config{URL: url, Token: testToken, Timeout: productionTimeout, MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { _, err := c.ListKeys(context.Background()); first <- err }()
	<-headers
	// The first list has its headers and is reading a dripped body: its
	// slot is still taken, so a second request waits for it and gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 2*c.SlotWait())
	defer cancel()
	start := time.Now()
	_, err = c.ListKeys(ctx)
	if !errors.Is(err, errStalled) {
		t.Errorf("a request while the only slot reads a dripped body: %v after %s, want the busy error", err, time.Since(start))
	}
	if got := requests.Load(); got != 1 {
		t.Errorf("Coder got %d requests while the one slot read a body, want 1", got)
	}
	close(drip)
	if err := <-first; err != nil {
		t.Fatalf("the dripped list: %v", err)
	}
	// Read and closed: the slot is back.
	keys, err := c.ListKeys(context.Background())
	if err != nil || len(keys) != 1 {
		t.Errorf("a list after the dripped one was closed: %d keys, %v; want the 1 key", len(keys), err)
	}
}

func TestAnErrorAnswerGivesItsSlotBack(t *testing.T) {
	_, c := newServer(t, coderError(http.StatusInternalServerError, codersdk.Response{Message: "boom"}))
	// One slot of its own per client: if a failed call kept it, the
	// second would find it taken.
	for i := range 2 * DefaultMaxInFlight {
		if _, err := c.ListKeys(context.Background()); errors.Is(err, errStalled) {
			t.Fatalf("call %d: %v, want Coder's 500: every failed call gives its slot back", i, err)
		}
	}
}

func TestATenantsProviderConfigsShareItsRequestSlots(t *testing.T) {
	cases := map[string]struct {
		reason string
		// tenants of the two ProviderConfigs, which have tokens of their own.
		tenants [2]string
		want    int64
	}{
		"SameTenant": {
			reason:  "two ProviderConfigs of one namespace share its 2 slots: writing a second one doubles nothing",
			tenants: [2]string{"team-a", "team-a"},
			want:    2,
		},
		"Platform": {
			reason:  "the cluster-scoped kinds are the platform's: one tenant",
			tenants: [2]string{"", ""},
			want:    2,
		},
		"TwoTenants": {
			reason:  "each namespace has slots of its own",
			tenants: [2]string{"team-a", "team-b"},
			want:    4,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			url, held := stallingServer(t)
			// gaveUp counts the calls that returned: only those beyond the
			// slots do, once their wait for one ends.
			var gaveUp atomic.Int64
			cache := NewCache(10, time.Hour)
			cache.MaxInFlight = 2
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			for i, tenant := range tc.tenants {
				c, err := cache.Get(Config{URL: url, Token: fmt.Sprintf("%s-%d", testToken, i), Tenant: tenant, Timeout: productionTimeout})
				if err != nil {
					t.Fatal(err)
				}
				for range 3 {
					go func() {
						_, _ = c.GetProvider(ctx, "openai")
						gaveUp.Add(1)
					}()
				}
			}
			if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
				return held.Load() >= tc.want, nil
			}); err != nil {
				t.Fatalf("%s\nCoder holds %d requests, want %d", tc.reason, held.Load(), tc.want)
			}
			// The calls beyond the slots wait for one, then give up.
			beyond := int64(len(tc.tenants)*3) - tc.want
			if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, maxSlotWait+5*time.Second, true, func(context.Context) (bool, error) {
				return gaveUp.Load() >= beyond, nil
			}); err != nil {
				t.Fatalf("%s\n%d calls gave up waiting for a slot, want %d", tc.reason, gaveUp.Load(), beyond)
			}
			if got := held.Load(); got != tc.want {
				t.Errorf("%s\nCoder got %d requests, want %d", tc.reason, got, tc.want)
			}
		})
	}
}
