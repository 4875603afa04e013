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
	"slices"
	"time"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// Rotation annotations. RotateAnnotation is the user's: changing its value
// asks for one rotation. RotatedAnnotation is ours: the value of
// RotateAnnotation that the last rotation answered.
const (
	RotateAnnotation  = "coder.crossplane.io/rotate"
	RotatedAnnotation = "coder.crossplane.io/rotated"
)

// HeartbeatPeriod is how often Coder refreshes a key's last heartbeat while
// a gateway replica using it is connected.
const HeartbeatPeriod = 60 * time.Second

// DefaultSettleWindow is how long the old key stays valid when
// spec.forProvider.rotation.settleWindow is not set.
const DefaultSettleWindow = 5 * time.Minute

// DefaultMaxSettleWindow is how long a retiring key still in use is kept when
// spec.forProvider.rotation.maxSettleWindow is not set (or the settle window,
// when that is longer).
const DefaultMaxSettleWindow = time.Hour

// MaxKeys is the most keys a resource has in Coder at once: the serving
// key, the one a rotation retires, and the new key of a rotation a lost
// connection Secret starts before that window ends. A Secret lost again
// and again (a GitOps tool that owns it) would otherwise start a key each
// time while none settles.
const MaxKeys = 3

// inUseFor is how recent a heartbeat shows a key in use: two heartbeat
// periods, so one late heartbeat does not count as the replicas gone.
const inUseFor = 2 * HeartbeatPeriod

// A Key is one of a resource's keys in Coder. Counter is its rotation
// counter: 0 for the first key, one more per rotation.
type Key struct {
	Counter         int
	ID              string
	Name            string
	Prefix          string
	CreatedAt       time.Time
	LastHeartbeatAt *time.Time
}

// RotationState is everything the rotation decision reads. The reconciler
// gathers it from Coder (the keys), the connection Secret (which key it
// holds), the cleanup records and the managed resource.
type RotationState struct {
	// Keys are the resource's keys in Coder.
	Keys []Key
	// ExternalName is the id of the key the resource last committed to.
	ExternalName string
	// Published is the id of the key whose plaintext the connection Secret
	// holds; empty when the resource writes no Secret or the Secret holds
	// no plaintext.
	Published string
	// WritesSecret: the resource has a connection Secret, so only a key
	// whose plaintext reached it can serve. A key whose plaintext was lost
	// is replaced, never reported Ready without it.
	WritesSecret bool
	// Records are the rotation counters of the resource's cleanup records.
	Records []int
	// Requested is the value of RotateAnnotation, Handled the value of
	// RotatedAnnotation. Removing RotateAnnotation asks for nothing.
	Requested, Handled string
	// Every is rotation.every; zero rotates only on demand.
	Every time.Duration
	// Settle is the settle window; MaxSettle how long a retiring key still
	// in use is kept at most (at least Settle).
	Settle, MaxSettle time.Duration
	// RestartPending are the workloads of rotation.restart whose pod
	// template does not name the serving key yet.
	RestartPending []string
	// Now is the time of the decision, by our clock.
	Now time.Time
	// Clock is Coder's clock, from the answer that listed the keys. Every
	// time a rotation waits on (a key's creation, its heartbeats) is
	// Coder's, so Now meets them only on Coder's clock. When it is not
	// known, no step waits out a time: a window neither ends nor ends
	// early, no periodic rotation starts.
	Clock coder.Clock
}

// An Action is the next step of a rotation.
type Action string

// The steps of a rotation, in the order a rotation takes them.
const (
	// ActionNone: nothing to do now; a rotation may be waiting for its
	// settle window (RetiresAt).
	ActionNone Action = "None"
	// ActionStart: create the key of counter Next, publish it to the
	// connection Secret and commit to it.
	ActionStart Action = "Start"
	// ActionCommit: the Secret holds a key the resource has not committed
	// to (a start was interrupted after publishing): record it as the
	// external name.
	ActionCommit Action = "Commit"
	// ActionRestart: restart the workloads of rotation.restart that do not
	// run the serving key yet (Restart), while the retiring keys wait.
	ActionRestart Action = "Restart"
	// ActionRetire: the settle window is over; delete the retiring keys.
	ActionRetire Action = "Retire"
	// ActionFinish: the retiring keys are verified gone; delete their
	// cleanup records (Finished) and announce the rotation.
	ActionFinish Action = "Finish"
	// ActionDiscard: delete keys whose plaintext nobody holds (a start
	// was interrupted before publishing). They were never published, so no
	// replica uses them.
	ActionDiscard Action = "Discard"
	// ActionRetireOldest: the Secret lost the committed key while older
	// keys still retire; delete the oldest of them (RetireOldest) before
	// their window ends, so the start that follows keeps MaxKeys.
	ActionRetireOldest Action = "RetireOldest"
)

// Rotation triggers, for events and logs.
const (
	TriggerRequested = "requested"
	TriggerEvery     = "every"
	// TriggerSecretLost: the connection Secret no longer holds the
	// committed key's plaintext (deleted, or edited by hand or by a sync).
	// The committed key may be in use, so it retires like any other.
	TriggerSecretLost = "secretLost"
)

// A RotationPlan is the decision: the key that serves now, the keys being
// retired, and the next step.
type RotationPlan struct {
	Action Action
	// Current is the key replicas get from the Secret; nil when none of
	// the resource's keys serves, so the resource does not exist yet.
	Current *Key
	// Retiring are older keys still in Coder, newest first.
	Retiring []Key
	// Discard are the keys ActionDiscard deletes.
	Discard []Key
	// RetireOldest are the retiring keys ActionRetireOldest deletes,
	// newest first: the oldest of Retiring.
	RetireOldest []Key
	// Next is the counter of the key ActionStart creates; Trigger says why.
	Next    int
	Trigger string
	// StartedAt and RetiresAt bound the settle window while keys retire;
	// RevokeBy ends the time a retiring key still in use is kept.
	StartedAt, RetiresAt, RevokeBy time.Time
	// EarlyEnd: the replicas moved, so the window ends before RetiresAt.
	EarlyEnd bool
	// InUse: the settle window is over but a retiring key still has
	// heartbeats, so it is kept until they stop or until RevokeBy.
	InUse bool
	// RevokedInUse: ActionRetire deletes a key still in use, at RevokeBy.
	RevokedInUse bool
	// Restart are the workloads ActionRestart restarts.
	Restart []string
	// Finished are the record counters ActionFinish deletes.
	Finished []int
	// NextRotationAt is when Every starts the next rotation; zero when
	// rotations are on demand only.
	NextRotationAt time.Time
}

// DecideRotation returns the next step of a key's rotation. It is the whole
// rotation logic; the reconciler gathers the state and applies the step.
// Every step is safe to repeat, and any interruption leaves a state that
// this function resumes from: the Coder key names carry the counter and the
// Secret says which plaintext replicas have, so nothing depends on status.
func DecideRotation(s RotationState) RotationPlan {
	// Zero when Coder's clock is unknown: before every time of Coder's.
	now := s.Clock.At(s.Now)
	keys := slices.Clone(s.Keys)
	slices.SortFunc(keys, func(a, b Key) int { return b.Counter - a.Counter })

	if lost := secretLost(keys, s); lost != nil {
		return restore(keys, *lost, s)
	}
	cur := serving(keys, s.Published, s.ExternalName, s.WritesSecret)
	if cur == nil {
		// Nothing serves: the resource is created anew. Keys of it that
		// nobody holds go first, so their names are free.
		if len(keys) > 0 {
			return RotationPlan{Action: ActionDiscard, Discard: keys}
		}
		return RotationPlan{Action: ActionNone}
	}
	p := RotationPlan{Action: ActionNone, Current: cur}
	if s.Every > 0 {
		p.NextRotationAt = cur.CreatedAt.Add(s.Every)
	}
	var newer []Key
	for _, k := range keys {
		switch {
		case k.Counter > cur.Counter:
			newer = append(newer, k)
		case k.Counter < cur.Counter:
			p.Retiring = append(p.Retiring, k)
		}
	}
	if len(newer) > 0 {
		p.Action, p.Discard = ActionDiscard, newer
		return p
	}
	if s.ExternalName != cur.ID {
		p.Action = ActionCommit
		return p
	}
	if len(p.Retiring) > 0 {
		return settle(p, s, now)
	}
	for _, r := range s.Records {
		if r < cur.Counter {
			p.Finished = append(p.Finished, r)
		}
	}
	if len(p.Finished) > 0 {
		slices.Sort(p.Finished)
		p.Action = ActionFinish
		return p
	}
	switch {
	case s.Requested != "" && s.Requested != s.Handled:
		p.Trigger = TriggerRequested
	case s.Every > 0 && !now.Before(p.NextRotationAt):
		p.Trigger = TriggerEvery
	default:
		return p
	}
	p.Action, p.Next = ActionStart, cur.Counter+1
	return p
}

// settle decides the step of a rotation whose retiring keys wait: the window
// starts when Coder created the serving key, so it survives restarts and lost
// status writes. A retiring key goes when the replicas moved, at the end of
// the window once nothing uses it, or at RevokeBy in use or not; until then
// the workloads that read the Secret are restarted.
func settle(p RotationPlan, s RotationState, now time.Time) RotationPlan {
	cur := *p.Current
	p.StartedAt = cur.CreatedAt
	p.RetiresAt = cur.CreatedAt.Add(s.Settle)
	p.RevokeBy = cur.CreatedAt.Add(max(s.Settle, s.MaxSettle))
	p.EarlyEnd = moved(cur, p.Retiring, now)
	inUse := heartbeating(p.Retiring, now)
	switch {
	case p.EarlyEnd:
		p.Action = ActionRetire
	case now.Before(p.RetiresAt):
	case !inUse:
		p.Action = ActionRetire
	case !now.Before(p.RevokeBy):
		p.Action, p.RevokedInUse = ActionRetire, true
	default:
		p.InUse = true
	}
	if p.Action == ActionNone && len(s.RestartPending) > 0 {
		p.Action, p.Restart = ActionRestart, slices.Clone(s.RestartPending)
	}
	return p
}

// secretLost returns the key the resource committed to when the connection
// Secret no longer holds its plaintext, nor that of a newer key: the Secret
// was deleted, or edited by hand or by a sync. The committed key was
// published once, so replicas may still use it: it is retired through a
// rotation, never deleted at once. Nil when the Secret is as it should be,
// or the resource writes none.
func secretLost(keys []Key, s RotationState) *Key {
	if !s.WritesSecret || s.ExternalName == "" {
		return nil
	}
	committed := byID(keys, s.ExternalName)
	if committed == nil {
		return nil
	}
	if p := byID(keys, s.Published); p != nil && p.Counter >= committed.Counter {
		return nil
	}
	return committed
}

// restore is the plan when the Secret lost the committed key: keys newer
// than it were never published (a start publishes before it commits), so
// they go first; then a rotation publishes a new key, and the committed key
// and every older one retire through the settle window. The plaintext of
// the committed key exists nowhere else, so the Secret cannot be restored
// from it. A Secret lost again before that window ends would start a key
// each time: the oldest retiring keys go first, so the new key makes no
// more than MaxKeys.
func restore(keys []Key, committed Key, s RotationState) RotationPlan {
	p := RotationPlan{Action: ActionNone, Current: &committed}
	var newer []Key
	for _, k := range keys {
		switch {
		case k.Counter > committed.Counter:
			newer = append(newer, k)
		case k.Counter < committed.Counter:
			p.Retiring = append(p.Retiring, k)
		}
	}
	if len(newer) > 0 {
		p.Action, p.Discard = ActionDiscard, newer
		return p
	}
	if s.Every > 0 {
		p.NextRotationAt = committed.CreatedAt.Add(s.Every)
	}
	// The committed key and the new one stay: MaxKeys-2 retiring keys may.
	if keep := MaxKeys - 2; len(p.Retiring) > keep {
		p.Action, p.RetireOldest = ActionRetireOldest, slices.Clone(p.Retiring[keep:])
		return p
	}
	p.Action, p.Next, p.Trigger = ActionStart, committed.Counter+1, TriggerSecretLost
	return p
}

// byID is the key of id among keys; nil when none is.
func byID(keys []Key, id string) *Key {
	if id == "" {
		return nil
	}
	for i := range keys {
		if keys[i].ID == id {
			k := keys[i]
			return &k
		}
	}
	return nil
}

// serving is the key replicas get: the one whose plaintext the Secret
// holds. Without a Secret, it is the one the resource committed to: its
// plaintext went to nobody but whoever reads the create's answer.
func serving(keys []Key, published, externalName string, writesSecret bool) *Key {
	ids := []string{published}
	if !writesSecret {
		ids = append(ids, externalName)
	}
	for _, id := range ids {
		if k := byID(keys, id); k != nil {
			return k
		}
	}
	return nil
}

// moved reports whether Coder shows the gateway replicas on the new key: it
// has a heartbeat after the rotation began, and no retiring key has had one
// for two heartbeat periods before now, Coder's time.
func moved(cur Key, retiring []Key, now time.Time) bool {
	if cur.LastHeartbeatAt == nil || !cur.LastHeartbeatAt.After(cur.CreatedAt) {
		return false
	}
	return !heartbeating(retiring, now)
}

// heartbeating reports whether any of keys had a heartbeat within inUseFor
// before now, Coder's time: gateway replicas still use it.
func heartbeating(keys []Key, now time.Time) bool {
	for _, k := range keys {
		if k.LastHeartbeatAt != nil && now.Sub(*k.LastHeartbeatAt) < inUseFor {
			return true
		}
	}
	return false
}
