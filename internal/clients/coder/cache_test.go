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
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCacheReusesTheClientForTheSameConfig(t *testing.T) {
	cfg := Config{URL: "https://coder.example.com", Token: testToken}
	cases := map[string]struct {
		reason string
		other  Config
		same   bool
	}{
		"SameConfig": {
			reason: "every reconcile with the same config gets the same client and its connections",
			other:  cfg,
			same:   true,
		},
		"RotatedToken": {
			reason: "a rotated token gets a new client",
			other:  Config{URL: cfg.URL, Token: testToken + "-rotated"},
		},
		"OtherURL": {
			reason: "another URL gets a new client",
			other:  Config{URL: "https://other.example.com", Token: testToken},
		},
		"Insecure": {
			reason: "another TLS setting gets a new client",
			other:  Config{URL: cfg.URL, Token: testToken, InsecureSkipVerify: true},
		},
		"OtherTenant": {
			reason: "another namespace's ProviderConfig with the same URL and token gets a client of its own, taking its own tenant's slots",
			other:  Config{URL: cfg.URL, Token: testToken, Tenant: "team-b"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cache := NewCache(10, time.Hour)
			a, err := cache.Get(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := cache.Get(tc.other)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.same, a == b); diff != "" {
				t.Errorf("%s\nsame client: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCacheEvictsLeastRecentlyUsedBeyondItsBound(t *testing.T) {
	cache := NewCache(2, time.Hour)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	cache.now = clock.now
	cfg := func(i int) Config {
		return Config{URL: fmt.Sprintf("https://coder-%d.example.com", i), Token: testToken}
	}

	first, _ := cache.Get(cfg(1))
	clock.advance(time.Millisecond)
	_, _ = cache.Get(cfg(2))
	clock.advance(time.Millisecond)
	_, _ = cache.Get(cfg(1)) // 2 is now the least recently used
	clock.advance(time.Millisecond)
	_, _ = cache.Get(cfg(3))

	if diff := cmp.Diff(2, cache.Len()); diff != "" {
		t.Errorf("size: -want, +got:\n%s", diff)
	}
	again, _ := cache.Get(cfg(1))
	if first != again {
		t.Errorf("the recently used client was evicted instead of the least recently used one")
	}
}

func TestCacheDropsIdleClients(t *testing.T) {
	cache := NewCache(10, 50*time.Millisecond)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	cache.now = clock.now
	a := Config{URL: "https://a.example.com", Token: testToken}
	b := Config{URL: "https://b.example.com", Token: testToken}

	first, _ := cache.Get(a)
	clock.advance(100 * time.Millisecond)
	_, _ = cache.Get(b)

	if diff := cmp.Diff(1, cache.Len()); diff != "" {
		t.Errorf("the idle client must be dropped\nsize: -want, +got:\n%s", diff)
	}
	again, _ := cache.Get(a)
	if first == again {
		t.Errorf("a dropped client was served again")
	}
}

func TestCacheForgetsATenantsSlotsWithItsLastClient(t *testing.T) {
	cache := NewCache(10, 50*time.Millisecond)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	cache.now = clock.now
	for i := range 3 {
		if _, err := cache.Get(Config{URL: fmt.Sprintf("https://coder-%d.example.com", i), Token: testToken, Tenant: "team-a"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(cache.pools); got != 1 {
		t.Errorf("3 clients of one tenant: %d slot pools, want 1", got)
	}
	clock.advance(100 * time.Millisecond)
	if _, err := cache.Get(Config{URL: "https://coder.example.com", Token: testToken, Tenant: "team-b"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.pools["team-a"]; ok || len(cache.pools) != 1 {
		t.Errorf("after team-a's clients went idle: pools of %v, want only team-b's", slices.Collect(maps.Keys(cache.pools)))
	}
}

func TestCacheDoesNotKeepFailedConfigsOrPrintTokens(t *testing.T) {
	cache := NewCache(10, time.Hour)
	if _, err := cache.Get(Config{URL: "https://coder.example.com"}); err == nil {
		t.Fatal("a config without a token must fail")
	}
	if _, err := cache.Get(Config{URL: "https://coder.example.com", Token: testToken}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(1, cache.Len()); diff != "" {
		t.Errorf("size: -want, +got:\n%s", diff)
	}
	for _, s := range []string{fmt.Sprintf("%v", cache), fmt.Sprintf("%+v", cache), fmt.Sprintf("%#v", cache)} {
		if strings.Contains(s, testToken) {
			t.Errorf("the cache prints the token: %s", s)
		}
	}
}

func TestFingerprintChangesWithEveryField(t *testing.T) {
	base := Config{URL: "https://coder.example.com", Token: testToken, CABundle: []byte("ca"), Timeout: time.Second}
	cases := map[string]struct {
		reason string
		cfg    Config
		same   bool
	}{
		"Same":     {reason: "an equal config has the same fingerprint", cfg: base, same: true},
		"Token":    {reason: "a rotated token changes it", cfg: Config{URL: base.URL, Token: testToken + "x", CABundle: base.CABundle, Timeout: base.Timeout}},
		"URL":      {reason: "a new URL changes it", cfg: Config{URL: base.URL + "/", Token: testToken, CABundle: base.CABundle, Timeout: base.Timeout}},
		"CA":       {reason: "a new CA bundle changes it", cfg: Config{URL: base.URL, Token: testToken, CABundle: []byte("cb"), Timeout: base.Timeout}},
		"Insecure": {reason: "insecureSkipVerify changes it", cfg: Config{URL: base.URL, Token: testToken, CABundle: base.CABundle, Timeout: base.Timeout, InsecureSkipVerify: true}},
		"Timeout":  {reason: "a new timeout changes it", cfg: Config{URL: base.URL, Token: testToken, CABundle: base.CABundle, Timeout: 2 * time.Second}},
		"Shifted":  {reason: "moving bytes between fields changes it", cfg: Config{URL: base.URL + testToken, CABundle: base.CABundle, Timeout: base.Timeout}},
		"Tenant":   {reason: "another tenant changes it", cfg: Config{URL: base.URL, Token: testToken, CABundle: base.CABundle, Timeout: base.Timeout, Tenant: "team-a"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fp := Fingerprint(tc.cfg)
			if diff := cmp.Diff(tc.same, fp == Fingerprint(base)); diff != "" {
				t.Errorf("%s\nsame fingerprint: -want, +got:\n%s", tc.reason, diff)
			}
			if strings.Contains(fp, testToken) {
				t.Errorf("the fingerprint contains the token")
			}
		})
	}
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
