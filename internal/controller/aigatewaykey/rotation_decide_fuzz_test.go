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

package aigatewaykey

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// rotationState builds a RotationState from the fuzzer's plain values. Each
// three bytes of keys are one key: its counter (0-7; Coder's unique names
// make counters unique, so a repeated one is skipped), its creation minute,
// and its last heartbeat minute (0: none). A key's id is "k<counter>"; an
// id byte names the key of that counter, 0xff none, anything above 7 a key
// that is not in Coder. Times are minutes from t0.
func rotationState(keys []byte, external, published byte, writes bool, records []byte, requested, handled string, every, settle, now uint16) RotationState {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	id := func(b byte) string {
		if b == 0xff {
			return ""
		}
		return fmt.Sprintf("k%d", b)
	}
	s := RotationState{
		ExternalName: id(external), Published: id(published), WritesSecret: writes,
		Requested: requested, Handled: handled,
		Every: time.Duration(every) * time.Minute, Settle: time.Duration(settle) * time.Minute, Now: at(int(now)),
		// The maximum is the default's ratio to the default window.
		MaxSettle: 12 * time.Duration(settle) * time.Minute,
		// Coder's clock is ours; TestDecideRotationWaitsOnCodersClockNotOurs
		// covers the skew.
		Clock: coder.Clock{Date: at(int(now)), Received: at(int(now))},
	}
	seen := map[int]bool{}
	for i := 0; i+2 < len(keys); i += 3 {
		c := int(keys[i] % 8)
		if seen[c] {
			continue
		}
		seen[c] = true
		k := Key{Counter: c, ID: fmt.Sprintf("k%d", c), Name: fmt.Sprintf("n-r%d", c), Prefix: fmt.Sprintf("p%d", c), CreatedAt: at(int(keys[i+1]))}
		if keys[i+2] != 0 {
			hb := at(int(keys[i+2]) - 1)
			k.LastHeartbeatAt = &hb
		}
		s.Keys = append(s.Keys, k)
	}
	for _, r := range records {
		s.Records = append(s.Records, int(r%8))
	}
	return s
}

// FuzzDecideRotationKeepsTheServingKey checks the rotation's invariants for
// any state: the key replicas hold is never deleted (discarded or retired),
// nor is the key the resource committed to (it was published once);
// old keys retire only after the new key is both published and committed,
// and only when the settle window is over or the replicas moved, and while
// one still has heartbeats only at the maximum; a start happens only when
// the serving key is the resource's only key, so at most two keys exist,
// unless the Secret lost the committed key; and the plan does not depend on
// the order Coder lists the keys or the records in.
func FuzzDecideRotationKeepsTheServingKey(f *testing.F) {
	// The table cases of TestDecideRotation...: k0 created at 0, k1 at 10,
	// k2 at 20 minutes; settle 5 minutes.
	k0, k1, k2 := []byte{0, 0, 0}, []byte{1, 10, 0}, []byte{2, 20, 0}
	cat := slices.Concat[[]byte]
	for _, s := range []struct {
		keys               []byte
		ext, pub           byte
		writes             bool
		records            []byte
		requested, handled string
		every, now         uint16
	}{
		{keys: k0, ext: 0, pub: 0, records: []byte{0}, now: 60},                  // Steady
		{keys: k0, ext: 0, pub: 0xff, now: 60},                                   // SteadyWithoutSecret
		{keys: k0, ext: 0, pub: 0xff, writes: true, records: []byte{0}, now: 60}, // PlaintextNeverPublished
		{keys: k1, ext: 1, pub: 0, writes: true, now: 60},                        // SecretHoldsADeletedKey
		{ext: 0, pub: 0},                    // NothingServes
		{keys: k1, ext: 0, pub: 0, now: 60}, // KeyDeletedByHandLeavesUnpublishedKey
		{keys: k0, ext: 0, pub: 0, records: []byte{0}, requested: "2", handled: "1", now: 1},                       // StartOnRequest
		{keys: k1, ext: 1, pub: 1, records: []byte{1}, every: 60, now: 70},                                         // StartEvery
		{keys: cat(k0, k1), ext: 0, pub: 0, records: []byte{0, 1}, requested: "2", handled: "1", now: 11},          // InterruptedBeforePublish
		{keys: cat(k0, k1), ext: 0, pub: 1, records: []byte{0, 1}, requested: "2", handled: "1", now: 11},          // InterruptedAfterPublish
		{keys: cat(k0, k1), ext: 0, pub: 0xff, records: []byte{0, 1}, requested: "2", handled: "1", now: 11},       // InterruptedWithoutSecret
		{keys: cat(k0, k1), ext: 1, pub: 1, writes: true, records: []byte{0, 1}, now: 14},                          // SettleWindowOpen
		{keys: cat(k0, k1), ext: 1, pub: 1, writes: true, records: []byte{0, 1}, now: 15},                          // SettleWindowOver
		{keys: cat(k0, k1), ext: 1, pub: 1, records: []byte{0, 1}, requested: "3", handled: "2", now: 12},          // RequestDuringWindowWaits
		{keys: cat([]byte{0, 0, 10}, []byte{1, 10, 12}), ext: 1, pub: 1, records: []byte{0, 1}, now: 11},           // ReplicasMoved
		{keys: cat([]byte{0, 0, 11}, []byte{1, 10, 12}), ext: 1, pub: 1, records: []byte{0, 1}, now: 11},           // OldKeyStillBeating
		{keys: cat(k1), ext: 1, pub: 1, records: []byte{1, 0}, requested: "2", handled: "2", now: 16},              // Finish
		{keys: k0, ext: 0, pub: 0, records: []byte{0, 1}, now: 60},                                                 // LeftoverNewerRecordIsNotFinished
		{keys: cat(k0, k2, k1), ext: 2, pub: 2, records: []byte{0, 1, 2}, now: 25},                                 // TwoOldKeysRetireTogether
		{keys: k1, ext: 1, pub: 9, records: []byte{1}, now: 16},                                                    // SecretHoldsDeletedKey
		{keys: cat(k0, k1, k2), ext: 0, pub: 1, writes: true, records: []byte{0, 1, 2}, requested: "x", now: 30},   // published, uncommitted, and newer
		{keys: cat(k2, k0), ext: 2, pub: 0, writes: false, records: []byte{2}, requested: "x", every: 1, now: 300}, // Secret behind the committed key
		{keys: cat(k0, k1, k2), ext: 2, pub: 0xff, writes: true, records: []byte{0, 1, 2}, now: 21},                // SecretLostAgainDuringTheWindow
	} {
		f.Add(s.keys, s.ext, s.pub, s.writes, s.records, s.requested, s.handled, s.every, uint16(5), s.now)
	}
	f.Fuzz(func(t *testing.T, keys []byte, external, published byte, writes bool, records []byte, requested, handled string, every, settle, now uint16) {
		s := rotationState(keys, external, published, writes, records, requested, handled, every, settle, now)
		p := DecideRotation(s)
		checkRotation(t, s, p)

		// Coder lists keys, and Kubernetes records, in any order.
		r := s
		r.Keys, r.Records = slices.Clone(s.Keys), slices.Clone(s.Records)
		slices.Reverse(r.Keys)
		slices.Reverse(r.Records)
		if diff := cmp.Diff(p, DecideRotation(r)); diff != "" {
			t.Fatalf("the plan depends on the order of keys or records: -in order, +reversed:\n%s", diff)
		}
	})
}

func checkRotation(t *testing.T, s RotationState, p RotationPlan) {
	t.Helper()
	var published *Key
	for i := range s.Keys {
		if s.Keys[i].ID == s.Published {
			published = &s.Keys[i]
		}
	}
	deleted := slices.Concat(p.Discard, p.RetireOldest)
	if p.Action == ActionRetire {
		deleted = append(deleted, p.Retiring...)
	}
	for _, k := range slices.Concat(p.Discard, p.Retiring, p.RetireOldest) {
		if published != nil && k.ID == published.ID {
			t.Fatalf("%s plans to delete the key the Secret holds (%s): %+v", p.Action, k.ID, p)
		}
		if p.Current != nil && k.ID == p.Current.ID {
			t.Fatalf("%s plans to delete the current key %s: %+v", p.Action, k.ID, p)
		}
	}
	if p.Current == nil {
		if p.Action != ActionNone && p.Action != ActionDiscard {
			t.Fatalf("%s without a serving key: %+v", p.Action, p)
		}
		if len(p.Discard) != len(s.Keys) || (p.Action == ActionNone) != (len(s.Keys) == 0) {
			t.Fatalf("nothing serves: want every key discarded, got %+v", p)
		}
		return
	}
	var committed *Key
	for i := range s.Keys {
		if s.Keys[i].ID == s.ExternalName {
			committed = &s.Keys[i]
		}
	}
	for _, k := range deleted {
		if s.WritesSecret && committed != nil && k.ID == committed.ID {
			t.Fatalf("%s plans to delete the committed key %s, published once: %+v", p.Action, k.ID, p)
		}
	}
	lost := s.WritesSecret && committed != nil && (published == nil || published.Counter < committed.Counter)
	if lost {
		if p.Current.ID != committed.ID || !slices.Contains([]Action{ActionStart, ActionDiscard, ActionRetireOldest, ActionNone}, p.Action) {
			t.Fatalf("the Secret lost committed key %s, but the plan is %+v", committed.ID, p)
		}
		if p.Action == ActionStart && p.Trigger != TriggerSecretLost {
			t.Fatalf("the Secret lost committed key %s, but the start's trigger is %q", committed.ID, p.Trigger)
		}
		checkBound(t, s, p)
		return
	}
	if published != nil && p.Current.ID != published.ID {
		t.Fatalf("the Secret holds %s but %s serves", published.ID, p.Current.ID)
	}
	if published == nil && (s.WritesSecret || p.Current.ID != s.ExternalName) {
		t.Fatalf("%s serves, but the Secret holds none of the keys and the resource committed to %q", p.Current.ID, s.ExternalName)
	}
	for _, k := range p.Discard {
		if k.Counter <= p.Current.Counter {
			t.Fatalf("discards %s (counter %d), not newer than the serving key (%d)", k.ID, k.Counter, p.Current.Counter)
		}
	}
	for _, k := range p.Retiring {
		if k.Counter >= p.Current.Counter {
			t.Fatalf("retires %s (counter %d), not older than the serving key (%d)", k.ID, k.Counter, p.Current.Counter)
		}
	}
	switch p.Action {
	case ActionRetire:
		if p.Current.ID != s.ExternalName || (s.WritesSecret && p.Current.ID != s.Published) {
			t.Fatalf("retires before the new key %s is published (%q) and committed (%q)", p.Current.ID, s.Published, s.ExternalName)
		}
		if !p.EarlyEnd && s.Now.Before(p.Current.CreatedAt.Add(s.Settle)) {
			t.Fatalf("retires at %s, before the settle window ends at %s", s.Now, p.Current.CreatedAt.Add(s.Settle))
		}
		if len(deleted) == 0 {
			t.Fatalf("retire with nothing to retire")
		}
		revokeBy := p.Current.CreatedAt.Add(max(s.Settle, s.MaxSettle))
		if inUse := heartbeating(p.Retiring, s.Now); !p.EarlyEnd && inUse && s.Now.Before(revokeBy) {
			t.Fatalf("retires a key still in use at %s, before the maximum at %s", s.Now, revokeBy)
		}
		if p.RevokedInUse != (!p.EarlyEnd && heartbeating(p.Retiring, s.Now)) {
			t.Fatalf("RevokedInUse is %v, but the retiring keys' heartbeats say otherwise: %+v", p.RevokedInUse, p)
		}
	case ActionStart:
		if len(s.Keys) != 1 {
			t.Fatalf("starts a rotation with %d keys in Coder: %d would exist", len(s.Keys), len(s.Keys)+1)
		}
		if p.Next != p.Current.Counter+1 || p.Current.ID != s.ExternalName {
			t.Fatalf("starts counter %d from an uncommitted or other key: %+v", p.Next, p)
		}
	case ActionFinish:
		if len(p.Retiring) > 0 {
			t.Fatalf("finishes while keys still retire: %+v", p)
		}
		for _, r := range p.Finished {
			if r >= p.Current.Counter || !slices.Contains(s.Records, r) {
				t.Fatalf("finishes record %d, not an older record: %+v", r, p)
			}
		}
	case ActionCommit:
		if p.Current.ID == s.ExternalName {
			t.Fatalf("commits the key already committed")
		}
	}
}

// checkBound checks the plan of a lost Secret keeps the resource within
// MaxKeys: a start only with fewer keys, and only the oldest retiring keys
// go before their window ends, as many as the start needs.
func checkBound(t *testing.T, s RotationState, p RotationPlan) {
	t.Helper()
	if p.Action == ActionStart && len(s.Keys) >= MaxKeys {
		t.Fatalf("starts a rotation with %d keys in Coder: %d would exist, more than MaxKeys (%d)", len(s.Keys), len(s.Keys)+1, MaxKeys)
	}
	if (p.Action == ActionRetireOldest) != (len(p.RetireOldest) > 0) {
		t.Fatalf("%s with %d oldest keys to retire", p.Action, len(p.RetireOldest))
	}
	if p.Action != ActionRetireOldest {
		return
	}
	if left := len(s.Keys) - len(p.RetireOldest); left != MaxKeys-1 {
		t.Fatalf("retires the oldest %d of %d keys: %d are left, want %d so the next start makes MaxKeys", len(p.RetireOldest), len(s.Keys), left, MaxKeys-1)
	}
	for _, k := range s.Keys {
		gone := slices.ContainsFunc(p.RetireOldest, func(r Key) bool { return r.ID == k.ID })
		for _, r := range p.RetireOldest {
			if !gone && k.Counter < r.Counter {
				t.Fatalf("retires %s but keeps the older %s: %+v", r.ID, k.ID, p)
			}
		}
	}
}

// FuzzRotationUnderALostSecretNeverExceedsMaxKeys applies the plans one
// after another from a resource's first key, as the reconciler does, while
// the Secret is lost (deleted, or overwritten by a sync) at any step and
// time moves on by any amount: Coder never holds more than MaxKeys of the
// resource's keys, however often the Secret goes.
func FuzzRotationUnderALostSecretNeverExceedsMaxKeys(f *testing.F) {
	// Each byte is a step: bit 7 loses the Secret before it, bits 0-6 are
	// the seconds it comes after the one before, times ten.
	f.Add([]byte{0x80, 1, 0x80, 1, 0x80, 1, 0x80, 1, 0x80, 1, 0x80, 1})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})
	f.Add([]byte{0x80, 40, 40, 0x80, 1, 0x80, 100, 100, 0x80})
	f.Fuzz(func(t *testing.T, steps []byte) {
		w := newWorld()
		for i, b := range steps {
			w.now = w.now.Add(time.Duration(b&0x7f) * 10 * time.Second)
			if b&0x80 != 0 {
				w.s.Published = ""
			}
			p := DecideRotation(w.state())
			w.apply(t, p)
			if n := len(w.s.Keys); n > MaxKeys {
				t.Fatalf("step %d (%s): %d keys in Coder, more than MaxKeys (%d)", i, p.Action, n, MaxKeys)
			}
		}
	})
}

// world is a resource, its keys in Coder and its Secret, changed only by
// the plans applied to it.
type world struct {
	s   RotationState
	now time.Time
	ids int
}

func newWorld() *world {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	k0 := Key{Counter: 0, ID: "id0", Prefix: "p0", CreatedAt: t0}
	return &world{
		s: RotationState{
			Keys: []Key{k0}, ExternalName: k0.ID, Published: k0.ID, WritesSecret: true, Records: []int{0},
			Settle: 5 * time.Minute, MaxSettle: time.Hour,
		},
		now: t0, ids: 1,
	}
}

func (w *world) state() RotationState {
	s := w.s
	s.Keys, s.Records = slices.Clone(w.s.Keys), slices.Clone(w.s.Records)
	s.Now, s.Clock = w.now, coder.Clock{Date: w.now, Received: w.now}
	return s
}

// apply takes the step of p as the reconciler does, at once and in full.
func (w *world) apply(t *testing.T, p RotationPlan) {
	t.Helper()
	remove := func(keys []Key) {
		w.s.Keys = slices.DeleteFunc(w.s.Keys, func(k Key) bool {
			return slices.ContainsFunc(keys, func(r Key) bool { return r.ID == k.ID })
		})
	}
	switch p.Action {
	case ActionStart:
		k := Key{Counter: p.Next, ID: fmt.Sprintf("id%d", w.ids), Prefix: fmt.Sprintf("p%d", w.ids), CreatedAt: w.now}
		w.ids++
		w.s.Keys = append(w.s.Keys, k)
		w.s.Records = append(w.s.Records, p.Next)
		w.s.Published, w.s.ExternalName, w.s.Handled = k.ID, k.ID, w.s.Requested
	case ActionCommit:
		w.s.ExternalName = p.Current.ID
	case ActionDiscard:
		remove(p.Discard)
	case ActionRetireOldest:
		remove(p.RetireOldest)
	case ActionRetire:
		remove(p.Retiring)
	case ActionFinish:
		w.s.Records = slices.DeleteFunc(w.s.Records, func(r int) bool { return slices.Contains(p.Finished, r) })
	case ActionNone, ActionRestart:
	default:
		t.Fatalf("unknown action %s", p.Action)
	}
}
