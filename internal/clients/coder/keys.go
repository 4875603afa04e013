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
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
)

// DefaultKeyListTTL covers every key of a ProviderConfig polling at about
// the same time, and is short enough that changes made outside show soon.
const DefaultKeyListTTL = 5 * time.Second

// DefaultKeyListBytes bounds all scopes' lists together: two hostile lists
// at the body bound (16 MiB), or thousands of real ones (kilobytes).
const DefaultKeyListBytes = 32 << 20

// keyBytes is a listed key beyond its strings (struct, two index entries).
const keyBytes = 256

// ListKeys lists every AI Gateway key; prefer KeyLister's shared list.
func (c *Client) ListKeys(ctx context.Context) ([]codersdk.AIGatewayKey, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointKeys)
	keys, err := c.sdk.ListAIGatewayKeys(ctx)
	return keys, wrap(rec, err)
}

// CreateKey creates an AI Gateway key; its plaintext comes only this once.
func (c *Client) CreateKey(ctx context.Context, name string) (codersdk.CreateAIGatewayKeyResponse, error) {
	ctx, rec := c.begin(ctx, http.MethodPost, EndpointKeys)
	resp, err := c.sdk.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: name})
	return resp, wrap(rec, err)
}

// DeleteKey deletes an AI Gateway key; a missing one is a NotFound error.
func (c *Client) DeleteKey(ctx context.Context, id uuid.UUID) error {
	ctx, rec := c.begin(ctx, http.MethodDelete, EndpointKey)
	return wrap(rec, c.sdk.DeleteAIGatewayKey(ctx, id))
}

// KeyLister shares one key list per scope (a Coder and a credential:
// ListScope) among concurrent callers, for the TTL; errors are not cached.
// It is bounded whatever the ProviderConfigs say: expired lists and idle
// scopes are dropped, and all lists hold at most maxBytes, oldest out first.
type KeyLister struct {
	ttl      time.Duration
	maxBytes int64
	// now is the clock; tests set it.
	now func() time.Time

	mu     sync.Mutex
	scopes map[string]*keyScope
	bytes  int64
	pruned time.Time
}

type keyScope struct {
	// gen counts Invalidate calls: a list is served or stored only in the
	// generation it started in, so one started before our own create or
	// delete never answers a later caller.
	gen uint64

	cached  *KeyList
	valid   bool
	size    int64
	expires time.Time
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

// NewKeyLister returns a KeyLister whose lists live ttl, or DefaultKeyListTTL.
func NewKeyLister(ttl time.Duration) *KeyLister {
	if ttl <= 0 {
		ttl = DefaultKeyListTTL
	}
	return &KeyLister{ttl: ttl, maxBytes: DefaultKeyListBytes, scopes: map[string]*keyScope{}, now: time.Now}
}

// List returns the keys of scope, listed with c unless a current list is
// cached or in flight; the list is shared and read-only.
func (l *KeyLister) List(ctx context.Context, scope string, c *Client) (*KeyList, error) {
	return l.ListSince(ctx, scope, c, time.Time{})
}

// ListSince is List with a list sent at since or later: a caller about to
// conclude a key is absent asks for one, as a cached list may predate it.
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
		// Too old: a new generation, so its answer is not stored.
		s.gen++
		l.forget(s)
	}
	if f != nil && f.gen == s.gen {
		err := c.Stalled()
		if err == nil {
			err = c.Silent(f.started)
		}
		if err != nil {
			// The flight probes a silent Coder: waiting would hold this
			// worker, and other tenants' resources, for its timeout.
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

	if err := c.await(ctx, f.done, f.started); err != nil {
		return nil, err
	}
	return f.keys, f.err
}

func (l *KeyLister) run(ctx context.Context, s *keyScope, f *keyFlight, c *Client) {
	keys, err := c.ListKeys(ctx)
	var list *KeyList
	if err == nil {
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

// Invalidate forgets scope's list, in flight too; call it after our own
// create or delete of a key, so later callers get a later list.
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

// store caches keys for s within the byte bound, evicting older lists; a
// list past the bound serves only the callers that waited for it.
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

// evictOldest forgets the list that expires first; false when none is.
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

func (l *KeyLister) forget(s *keyScope) {
	l.bytes -= s.size
	s.cached, s.valid, s.size = nil, false, 0
}

// prune drops expired lists and empty scopes, at most once a TTL; a deleted
// scope is made afresh, with no generation a list could be stored against.
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

func listBytes(keys []codersdk.AIGatewayKey) int64 {
	n := int64(0)
	for _, k := range keys {
		n += keyBytes + int64(len(k.Name)+len(k.KeyPrefix))
	}
	return n
}

// A KeyList is one answer of Coder's key list, indexed by id and by the last
// word of each name, so a poll finds its key in a few map reads (at 5,000
// keys a scan took 8 ms a poll). Read-only: methods return copies or values.
type KeyList struct {
	keys []codersdk.AIGatewayKey
	byID map[uuid.UUID]int
	// byWord holds the positions of the keys each word finds (nameWords).
	byWord map[string][]int
	sent   time.Time
}

// NewKeyList indexes keys, which the caller must not change afterwards.
func NewKeyList(keys []codersdk.AIGatewayKey) *KeyList {
	l := &KeyList{keys: keys, byID: make(map[uuid.UUID]int, len(keys)), byWord: make(map[string][]int, len(keys))}
	for i, k := range keys {
		l.byID[k.ID] = i
		for _, w := range nameWords(k.Name) {
			l.byWord[w] = append(l.byWord[w], i)
		}
	}
	return l
}

// Sent is when the list's request was sent: a list sent after Coder
// answered a delete verifies it by not showing what it deleted.
func (l *KeyList) Sent() time.Time { return l.sent }

// Len is how many keys the list holds; zero for a nil list.
func (l *KeyList) Len() int {
	if l == nil {
		return 0
	}
	return len(l.keys)
}

// Keys is a copy of every key, in Coder's order.
func (l *KeyList) Keys() []codersdk.AIGatewayKey {
	if l == nil {
		return nil
	}
	return slices.Clone(l.keys)
}

// ByID returns the key of id, if the list holds it.
func (l *KeyList) ByID(id uuid.UUID) (codersdk.AIGatewayKey, bool) {
	if l == nil {
		return codersdk.AIGatewayKey{}, false
	}
	i, ok := l.byID[id]
	if !ok {
		return codersdk.AIGatewayKey{}, false
	}
	return l.keys[i], true
}

// Find returns, in Coder's order and once each, the keys whose name ends in
// word (nameWords) and the keys of ids. It narrows a search and decides
// nothing: callers test each key. With no word it returns every key.
func (l *KeyList) Find(word string, ids ...string) []codersdk.AIGatewayKey {
	if l == nil {
		return nil
	}
	if word == "" {
		return l.Keys()
	}
	at := slices.Clone(l.byWord[word])
	for _, s := range ids {
		id, err := uuid.Parse(s)
		if err != nil {
			continue
		}
		if i, ok := l.byID[id]; ok {
			at = append(at, i)
		}
	}
	slices.Sort(at)
	at = slices.Compact(at)
	out := make([]codersdk.AIGatewayKey, 0, len(at))
	for _, i := range at {
		out = append(out, l.keys[i])
	}
	return out
}

// nameWords are a name's last hyphen-separated word and, after a rotation
// suffix r<n>, the word before: derived names end in the owner's UID
// characters (aigatewaykey.RotatedKeyName).
func nameWords(name string) []string {
	rest, last := lastWord(name)
	if !isRotation(last) || rest == "" {
		return []string{last}
	}
	_, before := lastWord(rest)
	return []string{last, before}
}

func lastWord(name string) (string, string) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

// isRotation reports whether w is a rotation suffix: r and a counter from 1.
func isRotation(w string) bool {
	if len(w) < 2 || w[0] != 'r' || w[1] == '0' {
		return false
	}
	_, err := strconv.ParseUint(w[1:], 10, 32)
	return err == nil
}
