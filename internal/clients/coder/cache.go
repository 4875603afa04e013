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
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// Cache keeps one Client per Config, so reconciles that connect on every pass
// reuse the same connections instead of building a transport each time.
// Entries are keyed by a hash of the Config, never by the token itself, and
// are dropped after being unused for the idle period or, beyond the size
// bound, least recently used first. The clients of one Config.Tenant share
// one pool of request slots: a tenant that writes two ProviderConfigs for
// its Coder gets no more requests in flight than one.
type Cache struct {
	max  int
	idle time.Duration
	// MaxInFlight is the Config.MaxInFlight of the clients it makes when
	// their Config says nothing; set it before the first Get.
	MaxInFlight int
	// now is the clock; tests set it.
	now func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]*cacheEntry
	pools   map[string]*tenantPool
}

type cacheEntry struct {
	client   *Client
	tenant   string
	lastUsed time.Time
}

// tenantPool is the request slots of one tenant, and how many cached
// clients take from them: a pool no client uses is forgotten.
type tenantPool struct {
	slots   chan struct{}
	clients int
}

// NewCache returns a Cache of at most size clients (at least 1) that drops a
// client unused for idle (never, when idle is not positive).
func NewCache(size int, idle time.Duration) *Cache {
	return &Cache{
		max: max(size, 1), idle: idle, now: time.Now,
		entries: map[[sha256.Size]byte]*cacheEntry{}, pools: map[string]*tenantPool{},
	}
}

// Get returns the cached Client for cfg, creating it on first use.
func (c *Cache) Get(cfg Config) (*Client, error) {
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = c.MaxInFlight
	}
	k := cacheKey(cfg)
	now := c.now()

	c.mu.Lock()
	defer c.mu.Unlock()
	c.evictIdle(now)
	if e, ok := c.entries[k]; ok {
		e.lastUsed = now
		return e.client, nil
	}
	if len(c.entries) >= c.max {
		c.evictOldest()
	}
	p := c.pools[cfg.Tenant]
	if p == nil {
		p = &tenantPool{slots: newSlots(cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight))}
	}
	cl, err := newClient(cfg, p.slots)
	if err != nil {
		return nil, err
	}
	p.clients++
	c.pools[cfg.Tenant] = p
	c.entries[k] = &cacheEntry{client: cl, tenant: cfg.Tenant, lastUsed: now}
	return cl, nil
}

// Len is the number of cached clients.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *Cache) evictIdle(now time.Time) {
	if c.idle <= 0 {
		return
	}
	for k, e := range c.entries {
		if now.Sub(e.lastUsed) > c.idle {
			c.drop(k)
		}
	}
}

func (c *Cache) evictOldest() {
	var (
		oldest [sha256.Size]byte
		at     time.Time
		found  bool
	)
	for k, e := range c.entries {
		if !found || e.lastUsed.Before(at) {
			oldest, at, found = k, e.lastUsed, true
		}
	}
	if found {
		c.drop(oldest)
	}
}

// drop forgets a client. A reconcile may still hold it, so only its idle
// connections are closed; requests in progress finish.
func (c *Cache) drop(k [sha256.Size]byte) {
	e := c.entries[k]
	e.client.CloseIdleConnections()
	delete(c.entries, k)
	if p := c.pools[e.tenant]; p != nil {
		if p.clients--; p.clients <= 0 {
			delete(c.pools, e.tenant)
		}
	}
}

// Fingerprint identifies cfg without revealing it: equal configs have equal
// fingerprints, and any change (a rotated token, a new CA) changes it. It is
// meant for comparisons in memory; there is no reason to publish it.
func Fingerprint(cfg Config) string {
	k := cacheKey(cfg)
	return hex.EncodeToString(k[:])
}

// ListScope identifies what a key list through cfg answers: the Coder
// (its URL, and how its certificate is checked) and the credential. Every
// client of one ListScope, whatever its tenant or ProviderConfig, gets the
// same list from Coder, so they share one (KeyLister): the lists sent per
// TTL do not grow with the ProviderConfigs that use one Coder user. Like
// Fingerprint, it is for comparisons in memory, never to publish.
func ListScope(cfg Config) string {
	k := hashFields(append([][]byte{[]byte("key list"), []byte(CanonicalURL(cfg.URL))}, coderFields(cfg)[1:]...)...)
	return hex.EncodeToString(k[:])
}

// coderFields are what decides which Coder a client reaches and as whom:
// its URL, token, CA bundle and whether certificates are checked.
func coderFields(cfg Config) [][]byte {
	insecure := []byte{0}
	if cfg.InsecureSkipVerify {
		insecure = []byte{1}
	}
	return [][]byte{[]byte(cfg.URL), []byte(cfg.Token), cfg.CABundle, insecure}
}

// cacheKey hashes every field that shapes a Client.
func cacheKey(cfg Config) [sha256.Size]byte {
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], uint64(cfg.Timeout))
	// Two tenants with the same token and URL still get a client each,
	// so each takes its own tenant's slots.
	return hashFields(append(coderFields(cfg), t[:], []byte(cfg.Tenant))...)
}

// hashFields hashes fields, each length-prefixed so no two lists share an
// encoding.
func hashFields(fields ...[]byte) [sha256.Size]byte {
	h := sha256.New()
	for _, b := range fields {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	var k [sha256.Size]byte
	copy(k[:], h.Sum(nil))
	return k
}
