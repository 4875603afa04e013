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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
)

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
