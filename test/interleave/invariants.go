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

package interleave

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
)

// The invariants are pure functions of what a run gathered, so each can be
// shown to fail on a table of made-up states (invariants_test.go).

// An Incarnation is one life of a world resource: the object the harness
// created, with the UID the API server gave it.
type Incarnation struct {
	MR  int
	UID types.UID
}

// A Row is an object in Coder that appeared during the run.
type Row struct {
	Kind MRKind
	ID   string
	// Name is the key's or provider's name in Coder.
	Name string
}

// Ownership is what the world says about who may own a row now.
type Ownership struct {
	World        World
	Incarnations []Incarnation
	// Live is the UID of each resource's incarnation that exists, if any
	// (once quiet, one still being deleted waits on a ProviderConfig that
	// is not, as documented).
	Live map[int]types.UID
	// Imported maps the id of an object the harness made in Coder to the
	// resource that imports it.
	Imported map[string]int
	// Adopted are the imported ids the provider took charge of: a record
	// names them. One it never recorded was never its to delete (a
	// tenant's external name alone proves nothing).
	Adopted map[string]bool
}

// Leaks is invariant 1: every object in Coder that appeared during the run
// (or that the provider took charge of by import) is owned by a live
// resource, kept on purpose (Orphan, observe-only), or gone. It returns one
// line per leaked row.
func Leaks(rows []Row, o Ownership) []string {
	var out []string
	for _, r := range rows {
		if _, imported := o.Imported[r.ID]; imported && !o.Adopted[r.ID] {
			continue
		}
		mr, uid, ok := o.owner(r)
		if !ok {
			out = append(out, fmt.Sprintf("%s %q (%s) belongs to no resource of the world", kindName(r.Kind), r.Name, r.ID))
			continue
		}
		m := o.World.MRs[mr]
		if m.Keeps() {
			continue
		}
		live, isLive := o.Live[mr]
		if isLive && (uid == "" || uid == live) {
			continue
		}
		who := objName(m.Namespace, m.Name)
		if uid != "" {
			who += " (uid " + string(uid) + ")"
		}
		out = append(out, fmt.Sprintf("%s %q (%s) of %s is left in Coder though its resource is gone", kindName(r.Kind), r.Name, r.ID, who))
	}
	sort.Strings(out)
	return out
}

// owner finds the resource of a row: an imported object by id, a key by its
// UID-derived name (which also names the incarnation), a provider by its
// Coder name.
func (o Ownership) owner(r Row) (mr int, uid types.UID, ok bool) {
	if i, ok := o.Imported[r.ID]; ok {
		return i, "", true
	}
	if r.Kind == Key {
		for _, inc := range o.Incarnations {
			m := o.World.MRs[inc.MR]
			if m.Kind != Key {
				continue
			}
			if _, ok := aigatewaykey.RotationOf(r.Name, "", m.Namespace, m.Name, string(inc.UID)); ok {
				return inc.MR, inc.UID, true
			}
		}
		return 0, "", false
	}
	for i, m := range o.World.MRs {
		if m.Kind == r.Kind && m.CoderName == r.Name {
			return i, "", true
		}
	}
	return 0, "", false
}

// KeysPerIncarnation counts rows by the incarnation whose derived name they
// carry.
func KeysPerIncarnation(rows []Row, o Ownership) map[types.UID]int {
	n := map[types.UID]int{}
	for _, r := range rows {
		if r.Kind != Key {
			continue
		}
		if _, uid, ok := o.owner(r); ok && uid != "" {
			n[uid]++
		}
	}
	return n
}

// Duplicates is invariant 5: at most the rotation's two keys per resource
// at any time. peaks is the most keys each incarnation had at once.
func Duplicates(peaks map[types.UID]int) []string {
	var out []string
	for uid, n := range peaks {
		if n > 2 {
			out = append(out, fmt.Sprintf("incarnation %s had %d keys in Coder at once (at most 2: the rotation's)", uid, n))
		}
	}
	sort.Strings(out)
	return out
}

// A RecordEvent is one change of a cleanup record the harness watched, in
// the order of the API server's resource versions (one etcd: one order).
type RecordEvent struct {
	RV        uint64
	Record    string
	UID       types.UID
	Abandoned bool
	Deleted   bool
	// Released: Abandoned by the provider's release of its resource, not
	// by the sweep finding the resource gone.
	Released bool
}

// A Gone is a resource incarnation's removal from the API server.
type Gone struct {
	RV  uint64
	UID types.UID
	// Stripped: the harness removed the provider's finalizer by hand. A
	// release the provider decided (its records Abandoned by the release)
	// stands whoever removed the finalizer, and the provider counts it when
	// it sees the finalizer gone; a strip racing that decision may leave it
	// uncounted, or have the provider decide on a copy read before the
	// strip, so such a release may be counted or not.
	Stripped bool
}

// ExpectedReleases is how many releases without delete the provider must
// have counted (must), and may have (may): the incarnations that went while
// a record of theirs stood Abandoned. The finalizer settles records before
// it goes (Abandoned for a release without delete, deleted for a verified
// delete), so the records' state when the resource goes is what the
// provider decided. One stripped by hand while Abandoned may be counted or
// not (see Gone.Stripped).
func ExpectedReleases(records []RecordEvent, gone []Gone) (must, may []types.UID) {
	for _, g := range gone {
		if g.Stripped {
			if releasedEver(records, g.UID) {
				may = append(may, g.UID)
			}
			continue
		}
		abandoned := map[string]bool{}
		for _, e := range records {
			if e.RV > g.RV {
				break
			}
			if e.UID != g.UID {
				continue
			}
			abandoned[e.Record] = e.Abandoned && !e.Deleted
		}
		for _, a := range abandoned {
			if !a {
				continue
			}
			must = append(must, g.UID)
			break
		}
	}
	return must, may
}

// releasedEver reports whether a record of uid was ever Abandoned by the
// provider's release of it.
func releasedEver(records []RecordEvent, uid types.UID) bool {
	for _, e := range records {
		if e.UID == uid && e.Released {
			return true
		}
	}
	return false
}

// Releases is invariant 3: the metric rose exactly once per release without
// delete, and at most once per release that may count (mayAlso). lostToKills is how many releases a SIGKILL may have cut between
// the persisted finalizer removal and the count: those are the only
// shortfall allowed, and an excess never is.
func Releases(counted, expected, mayAlso, lostToKills int) []string {
	switch {
	case counted > expected+mayAlso:
		return []string{fmt.Sprintf("released_without_delete_total rose by %d, but only %d resources were released without a delete", counted, expected)}
	case counted < expected-lostToKills:
		return []string{fmt.Sprintf("released_without_delete_total rose by %d, but %d resources were released without a delete", counted, expected)}
	}
	return nil
}

// Exposed is invariant 4: no secret in any text the provider published. It
// names where each secret appeared, never the secret itself.
func Exposed(texts map[string]string, secrets []string) []string {
	var out []string
	for where, text := range texts {
		for _, s := range secrets {
			if len(s) >= 8 && strings.Contains(text, s) {
				out = append(out, fmt.Sprintf("a secret (%s…) appears in %s", s[:4], where))
			}
		}
	}
	sort.Strings(out)
	return out
}

// A Published is a key resource that reports Ready, with what its
// connection Secret holds.
type Published struct {
	Name string
	// Plaintext is the Secret's key; empty when the Secret or the key is
	// missing.
	Plaintext string
	// Valid: Coder knows the plaintext as a live key.
	Valid bool
}

// ReadyWithoutPlaintext is invariant 6: no resource reports Ready with a
// connection Secret missing its plaintext (or holding a dead key).
func ReadyWithoutPlaintext(ps []Published) []string {
	var out []string
	for _, p := range ps {
		switch {
		case p.Plaintext == "":
			out = append(out, fmt.Sprintf("%s is Ready but its connection Secret holds no key", p.Name))
		case !p.Valid:
			out = append(out, fmt.Sprintf("%s is Ready but its connection Secret holds a key Coder does not know", p.Name))
		}
	}
	return out
}

// A Waiting is an object a cleanup record keeps for the ProviderConfig
// that made it: a provider or MCP server known by name only (released
// while the answer to its create went unread), whose creator cannot reach
// Coder now (deleted, or its credentials gone). Only that ProviderConfig
// may find it by name, so it stays in Coder, and the record says so, until
// an operator makes it reach Coder again (docs/how-to/deletion.md). The
// quiet world's check allows it; the teardown does what the record asks
// and allows no leak after.
type Waiting struct {
	Kind MRKind
	Name string
}

// LeftForCreators is rows without the objects waiting names.
func LeftForCreators(rows []Row, waiting []Waiting) []Row {
	var out []Row
	for _, r := range rows {
		if !slices.Contains(waiting, Waiting{Kind: r.Kind, Name: r.Name}) {
			out = append(out, r)
		}
	}
	return out
}
