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
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// bigKeys is a list of n keys with names of size bytes.
func bigKeys(n, size int) []codersdk.AIGatewayKey {
	out := make([]codersdk.AIGatewayKey, n)
	for i := range out {
		out[i] = codersdk.AIGatewayKey{ID: uuid.New(), Name: fmt.Sprintf("%0*d", size, i)}
	}
	return out
}

// listed lists scope and fails the test on an error.
func listed(t *testing.T, l *KeyLister, scope string, c *Client) {
	t.Helper()
	if _, err := l.List(context.Background(), scope, c); err != nil {
		t.Fatalf("List(%s): %v", scope, err)
	}
}

func TestKeyListerDropsExpiredLists(t *testing.T) {
	answer := keysNamed("a", "b")
	c, _ := keyServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, answer) })
	l := NewKeyLister(time.Minute)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	l.now = clock.now

	listed(t, l, "pc-1 https://coder-1.example.com", c)
	one := listBytes(answer)
	if l.bytes != one {
		t.Fatalf("one list cached: %d bytes held, want %d", l.bytes, one)
	}
	clock.advance(2 * time.Minute)
	listed(t, l, "pc-2 https://coder-2.example.com", c)
	if l.bytes != one {
		t.Errorf("after the first list expired and a second was made: %d bytes held, want the second's %d", l.bytes, one)
	}
	if s := l.scopes["pc-1 https://coder-1.example.com"]; s != nil && s.valid {
		t.Errorf("the expired list of pc-1 is still cached")
	}
}

func TestKeyListerDeletesIdleScopes(t *testing.T) {
	c, _ := keyServer(t, func(i int64, w http.ResponseWriter, _ *http.Request) {
		if i%3 == 0 {
			writeJSON(w, 500, codersdk.Response{Message: "Failed to list keys."})
			return
		}
		writeJSON(w, 200, keysNamed("a"))
	})
	l := NewKeyLister(time.Minute)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	l.now = clock.now

	// A ProviderConfig whose URL changes at every call: a scope each,
	// some of whose lists failed (nothing cached) and some invalidated.
	for i := range 60 {
		scope := fmt.Sprintf("pc https://coder-%d.example.com", i)
		_, _ = l.List(context.Background(), scope, c)
		if i%5 == 0 {
			l.Invalidate(scope)
		}
	}
	clock.advance(2 * time.Minute)
	listed(t, l, "pc https://coder-now.example.com", c)
	if got := len(l.scopes); got != 1 {
		t.Errorf("60 idle scopes and a new one: %d scopes held, want only the new one", got)
	}
}

func TestKeyListerKeepsAScopeWhoseListIsInFlight(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	c, n := keyServer(t, func(i int64, w http.ResponseWriter, _ *http.Request) {
		if i == 1 {
			close(arrived)
			<-release
		}
		writeJSON(w, 200, keysNamed("a"))
	})
	l := NewKeyLister(time.Minute)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	l.now = clock.now

	done := make(chan error, 1)
	go func() { _, err := l.List(context.Background(), "pc-1", c); done <- err }()
	<-arrived
	// Another scope's call prunes while pc-1's list is in flight.
	clock.advance(2 * time.Minute)
	listed(t, l, "pc-2", c)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The flight's answer was stored in the scope callers find: no new
	// request within the TTL.
	listed(t, l, "pc-1", c)
	if got := n.Load(); got != 2 {
		t.Errorf("Coder got %d lists, want 2 (pc-1's in flight, then pc-2's): a scope pruned under its flight loses the answer", got)
	}
}

func TestKeyListerCapsTheBytesItCachesEvictingTheOldest(t *testing.T) {
	answer := bigKeys(10, 1000)
	size := listBytes(answer)
	cases := map[string]struct {
		reason   string
		maxBytes int64
		// lists is the scopes listed in order, a millisecond apart; then
		// each of again is listed once more.
		lists []string
		again []string
		// wantRequests is how many lists reach Coder in all.
		wantRequests int64
		wantHeld     int64
	}{
		"OldestEvicted": {
			reason:   "with room for two lists, the third evicts the oldest: listing it again reaches Coder, the newest is served from the cache",
			maxBytes: 2*size + size/2,
			lists:    []string{"a", "b", "c"}, again: []string{"c", "a"},
			wantRequests: 4, wantHeld: 2 * size,
		},
		"RoomForAll": {
			reason:   "within the bound every list is served from the cache",
			maxBytes: 3 * size,
			lists:    []string{"a", "b", "c"}, again: []string{"a", "b", "c"},
			wantRequests: 3, wantHeld: 3 * size,
		},
		"ListLargerThanTheBound": {
			reason:   "a list larger than the whole bound serves only its callers: nothing is cached",
			maxBytes: size - 1,
			lists:    []string{"a"}, again: []string{"a"},
			wantRequests: 2, wantHeld: 0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, n := keyServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, answer) })
			l := NewKeyLister(time.Minute)
			l.maxBytes = tc.maxBytes
			clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
			l.now = clock.now
			for _, s := range tc.lists {
				listed(t, l, s, c)
				clock.advance(time.Millisecond)
			}
			for _, s := range tc.again {
				listed(t, l, s, c)
			}
			if got := n.Load(); got != tc.wantRequests {
				t.Errorf("%s\nCoder got %d lists, want %d", tc.reason, got, tc.wantRequests)
			}
			if l.bytes != tc.wantHeld || l.bytes > tc.maxBytes {
				t.Errorf("%s\n%d bytes held, want %d (bound %d)", tc.reason, l.bytes, tc.wantHeld, tc.maxBytes)
			}
		})
	}
}

// TestKeyListerMemoryStaysBoundedWhileScopesChurn reports what the shared
// key list holds with the production bounds when 60 hostile ProviderConfigs
// each answer a 640 KiB list at once (more than the bound in all), and when
// one ProviderConfig's URL changes every minute for an hour.
func TestKeyListerMemoryStaysBoundedWhileScopesChurn(t *testing.T) {
	hostileAnswer, answer := bigKeys(64, 10<<10), keysNamed("gw-1", "gw-2", "gw-3")
	hostileBody, body := listBytes(hostileAnswer), listBytes(answer)
	c, n := keyServer(t, func(i int64, w http.ResponseWriter, _ *http.Request) {
		if i <= 60 {
			writeJSON(w, 200, hostileAnswer)
			return
		}
		writeJSON(w, 200, answer)
	})
	l := NewKeyLister(DefaultKeyListTTL)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	l.now = clock.now

	peak := int64(0)
	for i := range 60 {
		listed(t, l, fmt.Sprintf("team-%d/default https://hostile-%d.example.com", i, i), c)
		peak = max(peak, l.bytes)
	}
	hostile, hostileScopes := l.bytes, len(l.scopes)
	for minute := range 60 {
		clock.advance(time.Minute)
		listed(t, l, fmt.Sprintf("team-x/default https://coder.example.com/%d", minute), c)
		peak = max(peak, l.bytes)
	}
	report := fmt.Sprintf("60 hostile scopes with a %d KiB list each hold %d KiB in %d scopes (unbounded: %d KiB); "+
		"after a URL changed every minute for an hour: %d bytes in %d scope; peak %d KiB of the %d KiB bound; %d lists sent",
		hostileBody>>10, hostile>>10, hostileScopes, 60*hostileBody>>10, l.bytes, len(l.scopes), peak>>10, DefaultKeyListBytes>>10, n.Load())
	t.Log(report)
	fmt.Println("shared key list: " + report)
	if peak > DefaultKeyListBytes {
		t.Errorf("peak %d bytes held, over the bound %d", peak, DefaultKeyListBytes)
	}
	if l.bytes != body || len(l.scopes) != 1 {
		t.Errorf("after the churn: %d bytes in %d scopes, want one list (%d bytes) in 1 scope", l.bytes, len(l.scopes), body)
	}
}
