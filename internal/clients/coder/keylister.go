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
	"sync"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

// DefaultKeyListTTL is how long a key list serves callers when NewKeyLister
// is given no TTL: long enough to cover every key of a ProviderConfig polling
// at about the same time, short enough that changes made outside show soon.
const DefaultKeyListTTL = 5 * time.Second

// DefaultKeyListBytes bounds what the lists of every scope hold together.
// A real deployment's list is kilobytes; a hostile server's may reach the
// body bound (16 MiB), so this holds two of those and thousands of real
// ones.
const DefaultKeyListBytes = 32 << 20

// keyBytes is what one listed key holds beyond its strings: the struct
// (an id, two string headers, two times) and its two index entries (by id,
// by word: see KeyList), rounded up.
const keyBytes = 256

// KeyLister shares one AI Gateway key list per scope (a Coder and the
// credential it is listed with: ListScope) among every caller: concurrent callers share one request, and a
// successful list serves later callers for the TTL. Errors are not cached.
//
// What it holds is bounded whatever the ProviderConfigs say: a list is
// dropped once expired, a scope with neither a list nor one in flight is
// deleted (a URL that changes every minute leaves nothing behind), and the
// cached lists hold at most maxBytes in all, the oldest evicted first.
type KeyLister struct {
	ttl time.Duration
	// maxBytes bounds the bytes of every cached list together.
	maxBytes int64
	// now is the clock; tests set it.
	now func() time.Time

	mu     sync.Mutex
	scopes map[string]*keyScope
	// bytes is what the cached lists hold.
	bytes int64
	// pruned is when expired lists and idle scopes were last dropped.
	pruned time.Time
}

type keyScope struct {
	// gen counts Invalidate calls. A list is served or stored only for the
	// generation it started in, so one started before our own create or
	// delete never answers a caller that came after it.
	gen uint64

	cached  *KeyList
	valid   bool
	size    int64
	expires time.Time
	// started is when the request of the cached list was sent.
	started time.Time

	flight *keyFlight
}

type keyFlight struct {
	gen     uint64
	started time.Time
	done    chan struct{}
	keys    *KeyList
	err     error
}

// NewKeyLister returns a KeyLister whose lists live for ttl, or for
// DefaultKeyListTTL when ttl is not positive.
func NewKeyLister(ttl time.Duration) *KeyLister {
	if ttl <= 0 {
		ttl = DefaultKeyListTTL
	}
	return &KeyLister{ttl: ttl, maxBytes: DefaultKeyListBytes, scopes: map[string]*keyScope{}, now: time.Now}
}

// List returns the keys of scope, listing them with c unless a list of the
// current generation is cached or in flight. A caller whose ctx ends gets
// ctx.Err() and leaves the list running for the others; the list itself is
// bounded by c's timeout. Every caller shares the list returned: it is
// read-only.
func (l *KeyLister) List(ctx context.Context, scope string, c *Client) (*KeyList, error) {
	return l.ListSince(ctx, scope, c, time.Time{})
}

// ListSince is List with a list whose request was sent at since or later:
// a key made in Coder by someone else a moment ago is in it. A caller about
// to conclude that a key is absent asks for one, since a cached list may
// predate the key.
func (l *KeyLister) ListSince(ctx context.Context, scope string, c *Client, since time.Time) (*KeyList, error) {
	l.mu.Lock()
	l.prune(l.now())
	s := l.scopes[scope]
	if s == nil {
		s = &keyScope{}
		l.scopes[scope] = s
	}
	if s.valid && l.now().Before(s.expires) && !s.started.Before(since) {
		keys := s.cached
		l.mu.Unlock()
		return keys, nil
	}
	f := s.flight
	if f != nil && f.gen == s.gen && f.started.Before(since) {
		// Too old for this caller: a new generation, so the old flight's
		// answer is not stored over the newer one.
		s.gen++
		l.forget(s)
	}
	if f != nil && f.gen == s.gen {
		err := c.Stalled()
		if err == nil {
			err = c.Silent(f.started)
		}
		if err != nil {
			// The list in flight is the probe of a Coder that stopped
			// answering, or it has waited long without an answer: waiting
			// on it would hold this worker for the rest of its timeout,
			// and every other tenant's resources with it.
			l.mu.Unlock()
			return nil, err
		}
	}
	if f == nil || f.gen != s.gen {
		f = &keyFlight{gen: s.gen, started: l.now(), done: make(chan struct{})}
		s.flight = f
		c.detached(ctx, func(ctx context.Context) { l.run(ctx, s, f, c) })
	}
	l.mu.Unlock()

	// Every caller waits on the one list, each no longer than Coder stays
	// silent.
	if err := c.await(ctx, f.done, f.started); err != nil {
		return nil, err
	}
	return f.keys, f.err
}

func (l *KeyLister) run(ctx context.Context, s *keyScope, f *keyFlight, c *Client) {
	keys, err := c.ListKeys(ctx)
	var list *KeyList
	if err == nil {
		// Indexed once, outside the lock, for every caller.
		list = NewKeyList(keys)
		list.sent = f.started
	}

	l.mu.Lock()
	f.keys, f.err = list, err
	if s.flight == f {
		s.flight = nil
	}
	if err == nil && f.gen == s.gen {
		l.store(s, list, f.started)
	}
	l.mu.Unlock()
	close(f.done)
}

// Invalidate forgets the list of scope, including one in flight: callers that
// arrive afterwards get a list that started afterwards. Call it after our own
// create or delete of a key.
func (l *KeyLister) Invalidate(scope string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.scopes[scope]
	if s == nil {
		return
	}
	s.gen++
	l.forget(s)
}

// store caches keys as the list of s, sent at started, within the byte
// bound: older lists of other scopes are evicted to make room, and a list
// larger than the bound serves only the callers that waited for it.
func (l *KeyLister) store(s *keyScope, keys *KeyList, started time.Time) {
	l.forget(s)
	size := listBytes(keys.keys)
	if size > l.maxBytes {
		return
	}
	for l.bytes+size > l.maxBytes && l.evictOldest() {
	}
	s.cached, s.valid, s.size, s.expires, s.started = keys, true, size, l.now().Add(l.ttl), started
	l.bytes += size
}

// evictOldest forgets the cached list that expires first; false when none
// is cached.
func (l *KeyLister) evictOldest() bool {
	var oldest *keyScope
	for _, s := range l.scopes {
		if s.valid && (oldest == nil || s.expires.Before(oldest.expires)) {
			oldest = s
		}
	}
	if oldest == nil {
		return false
	}
	l.forget(oldest)
	return true
}

// forget drops the cached list of s.
func (l *KeyLister) forget(s *keyScope) {
	l.bytes -= s.size
	s.cached, s.valid, s.size = nil, false, 0
}

// prune drops the lists that expired and deletes the scopes that hold
// nothing (no list, none in flight), at most once a TTL. A deleted scope
// is made afresh by its next caller: with nothing cached or in flight,
// there is no generation a list could be stored against.
func (l *KeyLister) prune(now time.Time) {
	if now.Sub(l.pruned) < l.ttl {
		return
	}
	l.pruned = now
	for name, s := range l.scopes {
		if s.valid && !now.Before(s.expires) {
			l.forget(s)
		}
		if !s.valid && s.flight == nil {
			delete(l.scopes, name)
		}
	}
}

// listBytes is about what keys hold in memory.
func listBytes(keys []codersdk.AIGatewayKey) int64 {
	n := int64(0)
	for _, k := range keys {
		n += keyBytes + int64(len(k.Name)+len(k.KeyPrefix))
	}
	return n
}
