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

// ListKeys lists every AI Gateway key. Prefer KeyLister, which shares one list
// among the callers of a ProviderConfig.
func (c *Client) ListKeys(ctx context.Context) ([]codersdk.AIGatewayKey, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointKeys)
	keys, err := c.sdk.ListAIGatewayKeys(ctx)
	return keys, wrap(rec, err)
}

// CreateKey creates an AI Gateway key. The response carries the key's
// plaintext, which Coder returns only this once.
func (c *Client) CreateKey(ctx context.Context, name string) (codersdk.CreateAIGatewayKeyResponse, error) {
	ctx, rec := c.begin(ctx, http.MethodPost, EndpointKeys)
	resp, err := c.sdk.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: name})
	return resp, wrap(rec, err)
}

// DeleteKey deletes an AI Gateway key. A key that does not exist is a NotFound
// error.
func (c *Client) DeleteKey(ctx context.Context, id uuid.UUID) error {
	ctx, rec := c.begin(ctx, http.MethodDelete, EndpointKey)
	return wrap(rec, c.sdk.DeleteAIGatewayKey(ctx, id))
}

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

// A KeyList is one answer of Coder's key list, indexed by id and by the
// last word of each key's name, and shared by every caller of a scope: a
// poll finds its key in a few map reads, not by reading every key of the
// deployment (at 5,000 keys, 8 ms a poll). It is read-only: what its
// methods return is a copy, or a key (a value).
type KeyList struct {
	keys []codersdk.AIGatewayKey
	byID map[uuid.UUID]int
	// byWord holds, per word, the positions of the keys whose name ends in
	// it (see nameWords).
	byWord map[string][]int
	// sent is when the request of the list was sent.
	sent time.Time
}

// NewKeyList indexes keys; the list keeps keys, which the caller must not
// change afterwards.
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

// Sent is when the request of the list was sent: a list sent after Coder
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
// word (its last hyphen-separated word, or the word before a rotation's
// "-r<n>" suffix) and the keys of ids (strings that are no id are
// skipped). It narrows a search, and decides nothing: callers test each key
// it returns. With no word it cannot narrow, and returns every key.
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

// nameWords are the words a key name is found by: its last hyphen-separated
// word and, when that word is a rotation suffix r<n>, the word before it.
// The names the provider derives end in the owner's UID characters, then
// an optional -r<n> (aigatewaykey.RotatedKeyName), so the UID characters
// find every key of one owner.
func nameWords(name string) []string {
	rest, last := lastWord(name)
	if !isRotation(last) || rest == "" {
		return []string{last}
	}
	_, before := lastWord(rest)
	return []string{last, before}
}

// lastWord splits name at its last hyphen.
func lastWord(name string) (string, string) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

// isRotation reports whether w is a rotation suffix: r and a counter
// from 1 (aigatewaykey.RotatedKeyName).
func isRotation(w string) bool {
	if len(w) < 2 || w[0] != 'r' || w[1] == '0' {
		return false
	}
	_, err := strconv.ParseUint(w[1:], 10, 32)
	return err == nil
}
