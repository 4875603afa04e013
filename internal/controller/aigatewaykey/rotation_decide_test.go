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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

func TestDecideRotationTakesEveryStepAndResumesAfterEveryInterruption(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := t0.Add
	beat := func(d time.Duration) *time.Time { b := at(d); return &b }
	// k0 is the first key; k1 the key of the first rotation, created at
	// t0+10m; k2 a key from an interrupted second rotation.
	k0 := Key{Counter: 0, ID: "k0", Prefix: "p0", CreatedAt: at(0)}
	k1 := Key{Counter: 1, ID: "k1", Prefix: "p1", CreatedAt: at(10 * time.Minute)}
	k2 := Key{Counter: 2, ID: "k2", Prefix: "p2", CreatedAt: at(20 * time.Minute)}
	k3 := Key{Counter: 3, ID: "k3", Prefix: "p3", CreatedAt: at(30 * time.Minute)}
	with := func(k Key, hb *time.Time) Key { k.LastHeartbeatAt = hb; return k }
	settle := 5 * time.Minute

	cases := map[string]struct {
		reason string
		in     RotationState
		want   RotationPlan
	}{
		"Steady": {
			reason: "one committed, published key and no request: nothing to do",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Published: "k0", Records: []int{0}, Settle: settle, Now: at(time.Hour)},
			want:   RotationPlan{Action: ActionNone, Current: &k0},
		},
		"SteadyWithoutSecret": {
			reason: "a resource that writes no Secret serves its committed key",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Settle: settle, Now: at(time.Hour)},
			want:   RotationPlan{Action: ActionNone, Current: &k0},
		},
		"SecretLost": {
			reason: "the Secret no longer holds the committed key's plaintext (deleted, or edited by hand or by a sync): the key was published once and may be in use, so a rotation publishes a new key and the committed one retires through the window, never at once",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", WritesSecret: true, Records: []int{0}, Settle: settle, Now: at(time.Hour)},
			want:   RotationPlan{Action: ActionStart, Current: &k0, Next: 1, Trigger: TriggerSecretLost},
		},
		"SecretHoldsADeletedKey": {
			reason: "the Secret's plaintext is of a key no longer in Coder: the committed key's plaintext is lost, so it is rotated out",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k1", Published: "k0", WritesSecret: true, Settle: settle, Now: at(time.Hour)},
			want:   RotationPlan{Action: ActionStart, Current: &k1, Next: 2, Trigger: TriggerSecretLost},
		},
		"SecretRestoredToTheRetiringKey": {
			reason: "a sync put back an older Secret holding the retiring key: the committed key is never discarded, a rotation moves the Secret past both",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k1", Published: "k0", WritesSecret: true, Records: []int{0, 1}, Settle: settle, Now: at(12 * time.Minute)},
			want:   RotationPlan{Action: ActionStart, Current: &k1, Retiring: []Key{k0}, Next: 2, Trigger: TriggerSecretLost},
		},
		"SecretLostWithAnUnpublishedNewerKey": {
			reason: "a key newer than the committed one was never published (a start publishes before it commits): it goes first, so its counter is free",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k0", WritesSecret: true, Records: []int{0, 1}, Settle: settle, Now: at(12 * time.Minute)},
			want:   RotationPlan{Action: ActionDiscard, Current: &k0, Discard: []Key{k1}},
		},
		"SecretLostEvery": {
			reason: "a lost Secret shows when the committed key would rotate next",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k1", WritesSecret: true, Every: time.Hour, Settle: settle, Now: at(20 * time.Minute)},
			want:   RotationPlan{Action: ActionStart, Current: &k1, Next: 2, Trigger: TriggerSecretLost, NextRotationAt: at(70 * time.Minute)},
		},
		"SecretLostAgainDuringTheWindow": {
			reason: "the Secret was lost before the last rotation, itself started by a lost Secret, settled: a fourth key would exist, so the oldest retiring key goes first, before its window ends",
			in:     RotationState{Keys: []Key{k0, k1, k2}, ExternalName: "k2", WritesSecret: true, Records: []int{0, 1, 2}, Settle: settle, Now: at(21 * time.Minute)},
			want:   RotationPlan{Action: ActionRetireOldest, Current: &k2, Retiring: []Key{k1, k0}, RetireOldest: []Key{k0}},
		},
		"SecretLostAgainOnceTheOldestRetired": {
			reason: "with the oldest retiring key gone, the lost Secret's rotation starts: three keys at most",
			in:     RotationState{Keys: []Key{k1, k2}, ExternalName: "k2", WritesSecret: true, Records: []int{0, 1, 2}, Settle: settle, Now: at(21 * time.Minute)},
			want:   RotationPlan{Action: ActionStart, Current: &k2, Retiring: []Key{k1}, Next: 3, Trigger: TriggerSecretLost},
		},
		"SecretLostWithManyRetiringKeys": {
			reason: "keys piled up before the bound (an older provider): every retiring key but the newest goes before the next start",
			in:     RotationState{Keys: []Key{k0, k1, k2, k3}, ExternalName: "k3", Published: "k1", WritesSecret: true, Records: []int{0, 1, 2, 3}, Every: time.Hour, Settle: settle, Now: at(31 * time.Minute)},
			want: RotationPlan{
				Action: ActionRetireOldest, Current: &k3, Retiring: []Key{k2, k1, k0}, RetireOldest: []Key{k1, k0}, NextRotationAt: at(90 * time.Minute),
			},
		},
		"SecretLostAgainWithAnUnpublishedNewerKey": {
			reason: "an unpublished newer key goes before the oldest retiring one: the discard frees its counter, then the bound applies",
			in:     RotationState{Keys: []Key{k0, k1, k2, k3}, ExternalName: "k2", WritesSecret: true, Records: []int{0, 1, 2, 3}, Settle: settle, Now: at(31 * time.Minute)},
			want:   RotationPlan{Action: ActionDiscard, Current: &k2, Retiring: []Key{k1, k0}, Discard: []Key{k3}},
		},
		"OldKeyInUseAfterTheWindow": {
			reason: "the window is over but a replica used the old key within two heartbeat periods: keep it, and say so",
			in: RotationState{
				Keys:         []Key{with(k0, beat(15*time.Minute)), k1},
				ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, MaxSettle: time.Hour, Now: at(16 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionNone, Current: &k1, Retiring: []Key{with(k0, beat(15*time.Minute))},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(70 * time.Minute), InUse: true,
			},
		},
		"OldKeyHeartbeatsStopped": {
			reason: "the window is over and the old key's last heartbeat is two periods old: retire it, though the new key has none (no early end)",
			in: RotationState{
				Keys:         []Key{with(k0, beat(14*time.Minute)), k1},
				ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, MaxSettle: time.Hour, Now: at(16 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionRetire, Current: &k1, Retiring: []Key{with(k0, beat(14*time.Minute))},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(70 * time.Minute),
			},
		},
		"OldKeyInUseAtTheMaximum": {
			reason: "at rotation.maxSettleWindow the old key goes, in use or not, and the plan says it was in use",
			in: RotationState{
				Keys:         []Key{with(k0, beat(69*time.Minute)), k1},
				ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, MaxSettle: time.Hour, Now: at(70 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionRetire, Current: &k1, Retiring: []Key{with(k0, beat(69*time.Minute))},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(70 * time.Minute), RevokedInUse: true,
			},
		},
		"MaximumShorterThanTheWindow": {
			reason: "a maximum below the settle window is the settle window: the window is never cut short",
			in: RotationState{
				Keys:         []Key{with(k0, beat(15*time.Minute)), k1},
				ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, MaxSettle: time.Minute, Now: at(15 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionRetire, Current: &k1, Retiring: []Key{with(k0, beat(15*time.Minute))},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute), RevokedInUse: true,
			},
		},
		"RestartTheWorkloads": {
			reason: "during the window, workloads of rotation.restart not yet on the new key are restarted",
			in: RotationState{
				Keys: []Key{with(k0, beat(11*time.Minute)), k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1},
				Settle: settle, MaxSettle: time.Hour, RestartPending: []string{"Deployment/gw"}, Now: at(11 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionRestart, Current: &k1, Retiring: []Key{with(k0, beat(11*time.Minute))}, Restart: []string{"Deployment/gw"},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(70 * time.Minute),
			},
		},
		"RestartFailingDoesNotHoldTheRetire": {
			reason: "a restart that keeps failing (no RBAC) never holds the retire past its bound: at the maximum the key goes",
			in: RotationState{
				Keys: []Key{with(k0, beat(70*time.Minute)), k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1},
				Settle: settle, MaxSettle: time.Hour, RestartPending: []string{"Deployment/gw"}, Now: at(70 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionRetire, Current: &k1, Retiring: []Key{with(k0, beat(70*time.Minute))}, RevokedInUse: true,
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(70 * time.Minute),
			},
		},
		"RestartWhileInUse": {
			reason: "past the window with the old key in use, a restart not yet done is still tried",
			in: RotationState{
				Keys: []Key{with(k0, beat(20*time.Minute)), k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1},
				Settle: settle, MaxSettle: time.Hour, RestartPending: []string{"StatefulSet/gw"}, Now: at(21 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionRestart, Current: &k1, Retiring: []Key{with(k0, beat(20*time.Minute))}, Restart: []string{"StatefulSet/gw"}, InUse: true,
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(70 * time.Minute),
			},
		},
		"PublishedInSecret": {
			reason: "a Secret holding the committed key's plaintext serves it",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Published: "k0", WritesSecret: true, Records: []int{0}, Settle: settle, Now: at(time.Hour)},
			want:   RotationPlan{Action: ActionNone, Current: &k0},
		},
		"NothingServes": {
			reason: "no key at all: the resource does not exist and is created",
			in:     RotationState{ExternalName: "k0", Published: "k0", Settle: settle, Now: at(0)},
			want:   RotationPlan{Action: ActionNone},
		},
		"KeyDeletedByHandLeavesUnpublishedKey": {
			reason: "the serving key was deleted in Coder and only a key nobody holds is left: discard it, then create anew",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k0", Published: "k0", Settle: settle, Now: at(time.Hour)},
			want:   RotationPlan{Action: ActionDiscard, Discard: []Key{k1}},
		},
		"StartOnRequest": {
			reason: "the rotate annotation changed value: create the next key",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Published: "k0", Records: []int{0}, Requested: "2", Handled: "1", Settle: settle, Now: at(time.Minute)},
			want:   RotationPlan{Action: ActionStart, Current: &k0, Next: 1, Trigger: TriggerRequested},
		},
		"StartOnFirstRequest": {
			reason: "adding the annotation to a key that never rotated is a request too",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Published: "k0", Requested: "now", Settle: settle, Now: at(time.Minute)},
			want:   RotationPlan{Action: ActionStart, Current: &k0, Next: 1, Trigger: TriggerRequested},
		},
		"AnnotationRemoved": {
			reason: "removing the rotate annotation is not a request",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Published: "k0", Handled: "3", Settle: settle, Now: at(time.Minute)},
			want:   RotationPlan{Action: ActionNone, Current: &k0},
		},
		"NotYetDue": {
			reason: "every has not passed since the current key was created",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k1", Published: "k1", Records: []int{1}, Every: time.Hour, Settle: settle, Now: at(69 * time.Minute)},
			want:   RotationPlan{Action: ActionNone, Current: &k1, NextRotationAt: at(70 * time.Minute)},
		},
		"StartEvery": {
			reason: "every has passed since the current key was created",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k1", Published: "k1", Records: []int{1}, Every: time.Hour, Settle: settle, Now: at(70 * time.Minute)},
			want:   RotationPlan{Action: ActionStart, Current: &k1, Next: 2, Trigger: TriggerEvery, NextRotationAt: at(70 * time.Minute)},
		},
		"InterruptedBeforePublish": {
			reason: "the new key exists (uncertain create, restart or failed Secret write) but the Secret holds the old one: nobody has its plaintext, so discard it and start again",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k0", Published: "k0", Records: []int{0, 1}, Requested: "2", Handled: "1", Settle: settle, Now: at(11 * time.Minute)},
			want:   RotationPlan{Action: ActionDiscard, Current: &k0, Discard: []Key{k1}},
		},
		"RestartAfterDiscard": {
			reason: "after the discard the request is still open: the same counter is created again, so there is never a second new key",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Published: "k0", Records: []int{0, 1}, Requested: "2", Handled: "1", Settle: settle, Now: at(11 * time.Minute)},
			want:   RotationPlan{Action: ActionStart, Current: &k0, Next: 1, Trigger: TriggerRequested},
		},
		"InterruptedAfterPublish": {
			reason: "the Secret holds the new key but the external name is the old one: commit, never discard a published key",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k0", Published: "k1", Records: []int{0, 1}, Requested: "2", Handled: "1", Settle: settle, Now: at(11 * time.Minute)},
			want:   RotationPlan{Action: ActionCommit, Current: &k1, Retiring: []Key{k0}},
		},
		"InterruptedWithoutSecret": {
			reason: "without a Secret the committed key serves, and a newer key nobody committed to is discarded",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k0", Records: []int{0, 1}, Requested: "2", Handled: "1", Settle: settle, Now: at(11 * time.Minute)},
			want:   RotationPlan{Action: ActionDiscard, Current: &k0, Discard: []Key{k1}},
		},
		"SettleWindowOpen": {
			reason: "the old key stays valid until the window that began with the new key's creation ends",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, Now: at(14*time.Minute + 59*time.Second)},
			want:   RotationPlan{Action: ActionNone, Current: &k1, Retiring: []Key{k0}, StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute)},
		},
		"SettleWindowOver": {
			reason: "the window ran its full length: retire the old key",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, Now: at(15 * time.Minute)},
			want:   RotationPlan{Action: ActionRetire, Current: &k1, Retiring: []Key{k0}, StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute)},
		},
		"RequestDuringWindowWaits": {
			reason: "a new request during a settle window waits for it: at most one retiring key",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Requested: "3", Handled: "2", Settle: settle, Now: at(12 * time.Minute)},
			want:   RotationPlan{Action: ActionNone, Current: &k1, Retiring: []Key{k0}, StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute)},
		},
		"ReplicasMoved": {
			reason: "the new key has a heartbeat after the rotation began and the old one none for two periods: end the window early",
			in: RotationState{
				Keys:         []Key{with(k0, beat(9*time.Minute+30*time.Second)), with(k1, beat(11*time.Minute))},
				ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, Now: at(11*time.Minute + 30*time.Second),
			},
			want: RotationPlan{
				Action: ActionRetire, Current: ptr.To(with(k1, beat(11*time.Minute))), Retiring: []Key{with(k0, beat(9*time.Minute+30*time.Second))},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute), EarlyEnd: true,
			},
		},
		"OldKeyStillBeating": {
			reason: "a replica used the old key less than two heartbeat periods ago: keep it",
			in: RotationState{
				Keys:         []Key{with(k0, beat(10*time.Minute)), with(k1, beat(11*time.Minute))},
				ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, Now: at(11*time.Minute + 59*time.Second),
			},
			want: RotationPlan{
				Action: ActionNone, Current: ptr.To(with(k1, beat(11*time.Minute))), Retiring: []Key{with(k0, beat(10*time.Minute))},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute),
			},
		},
		"NewKeyNotYetUsed": {
			reason: "the new key has no heartbeat since the rotation began: the replicas have not moved, whatever the old key shows",
			in: RotationState{
				Keys:         []Key{k0, with(k1, beat(9*time.Minute))},
				ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, Now: at(14 * time.Minute),
			},
			want: RotationPlan{
				Action: ActionNone, Current: ptr.To(with(k1, beat(9*time.Minute))), Retiring: []Key{k0},
				StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute),
			},
		},
		"OldKeyStillListedAfterRetire": {
			reason: "a retire whose delete did not take (or whose answer was lost) is retried",
			in:     RotationState{Keys: []Key{k0, k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: settle, Now: at(40 * time.Minute)},
			want:   RotationPlan{Action: ActionRetire, Current: &k1, Retiring: []Key{k0}, StartedAt: at(10 * time.Minute), RetiresAt: at(15 * time.Minute), RevokeBy: at(15 * time.Minute)},
		},
		"Finish": {
			reason: "the old key is verified gone but its record is still there: delete the record and announce",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k1", Published: "k1", Records: []int{1, 0}, Requested: "2", Handled: "2", Settle: settle, Now: at(16 * time.Minute)},
			want:   RotationPlan{Action: ActionFinish, Current: &k1, Finished: []int{0}},
		},
		"FinishBeforeNextStart": {
			reason: "a rotation finishes before the next starts",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Requested: "3", Handled: "2", Settle: settle, Now: at(16 * time.Minute)},
			want:   RotationPlan{Action: ActionFinish, Current: &k1, Finished: []int{0}},
		},
		"LeftoverNewerRecordIsNotFinished": {
			reason: "a record of a discarded key (counter above the current) is kept for the next start, not taken for a finished rotation",
			in:     RotationState{Keys: []Key{k0}, ExternalName: "k0", Published: "k0", Records: []int{0, 1}, Settle: settle, Now: at(time.Hour)},
			want:   RotationPlan{Action: ActionNone, Current: &k0},
		},
		"TwoOldKeysRetireTogether": {
			reason: "more than one older key (an earlier retire never verified) retire in the same window, newest first",
			in:     RotationState{Keys: []Key{k0, k2, k1}, ExternalName: "k2", Published: "k2", Records: []int{0, 1, 2}, Settle: settle, Now: at(25 * time.Minute)},
			want:   RotationPlan{Action: ActionRetire, Current: &k2, Retiring: []Key{k1, k0}, StartedAt: at(20 * time.Minute), RetiresAt: at(25 * time.Minute), RevokeBy: at(25 * time.Minute)},
		},
		"SecretHoldsDeletedKey": {
			reason: "a Secret holding a key that no longer exists does not count; the committed key serves",
			in:     RotationState{Keys: []Key{k1}, ExternalName: "k1", Published: "gone", Records: []int{1}, Settle: settle, Now: at(16 * time.Minute)},
			want:   RotationPlan{Action: ActionNone, Current: &k1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// These cases are about the steps: Coder's clock is ours.
			tc.in.Clock = coder.Clock{Date: tc.in.Now, Received: tc.in.Now}
			got := DecideRotation(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDecideRotation(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDecideRotationWaitsOnCodersClockNotOurs(t *testing.T) {
	// Keys and heartbeats are dated by Coder's clock; k1 was created at
	// t0+10m by it, so its settle window ends at t0+15m by it.
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := t0.Add
	beat := func(d time.Duration) *time.Time { b := at(d); return &b }
	with := func(k Key, hb *time.Time) Key { k.LastHeartbeatAt = hb; return k }
	k0 := Key{Counter: 0, ID: "k0", Prefix: "p0", CreatedAt: at(0)}
	k1 := Key{Counter: 1, ID: "k1", Prefix: "p1", CreatedAt: at(10 * time.Minute)}
	settle := 5 * time.Minute
	// state is the rotation at Coder's time coderNow, decided at our time
	// coderNow-offset: Coder's clock runs offset ahead of ours.
	state := func(keys []Key, every time.Duration, coderNow, offset time.Duration) RotationState {
		ours := at(coderNow - offset)
		s := RotationState{
			Keys: keys, ExternalName: keys[len(keys)-1].ID, Published: keys[len(keys)-1].ID,
			Every: every, Settle: settle, Now: ours, Clock: coder.Clock{Date: at(coderNow), Received: ours},
		}
		for _, k := range keys {
			s.Records = append(s.Records, k.Counter)
		}
		return s
	}
	behind, ahead := -2*time.Minute, 2*time.Minute
	cases := map[string]struct {
		reason string
		in     RotationState
		want   Action
	}{
		"OldKeyStillBeatingCoderBehind": {
			reason: "the old key beat 1m59s ago by Coder's clock (3m59s by ours): a replica still uses it",
			in:     state([]Key{with(k0, beat(10*time.Minute)), with(k1, beat(11*time.Minute))}, 0, 11*time.Minute+59*time.Second, behind),
			want:   ActionNone,
		},
		"WindowOpenCoderBehind": {
			reason: "14m by Coder's clock is within the window, though 16m by ours is past it",
			in:     state([]Key{k0, k1}, 0, 14*time.Minute, behind),
			want:   ActionNone,
		},
		"WindowOverCoderAhead": {
			reason: "15m by Coder's clock ends the window, though ours shows 13m",
			in:     state([]Key{k0, k1}, 0, 15*time.Minute, ahead),
			want:   ActionRetire,
		},
		"ReplicasMovedCoderAhead": {
			reason: "the old key's last beat is 2m30s old by Coder's clock (30s by ours): the replicas moved",
			in:     state([]Key{with(k0, beat(9*time.Minute+30*time.Second)), with(k1, beat(11*time.Minute))}, 0, 12*time.Minute, ahead),
			want:   ActionRetire,
		},
		"NotYetDueCoderBehind": {
			reason: "the next rotation is due at 70m by Coder's clock; 69m by it is early, whatever ours shows (71m)",
			in:     state([]Key{k1}, time.Hour, 69*time.Minute, behind),
			want:   ActionNone,
		},
		"DueCoderAhead": {
			reason: "70m by Coder's clock starts the next rotation, though ours shows 68m",
			in:     state([]Key{k1}, time.Hour, 70*time.Minute, ahead),
			want:   ActionStart,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := DecideRotation(tc.in); got.Action != tc.want {
				t.Errorf("%s\nDecideRotation(...).Action = %s, want %s (plan %+v)", tc.reason, got.Action, tc.want, got)
			}
		})
	}
}

func TestDecideRotationWaitsOutNoTimeWithoutCodersClock(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	k0 := Key{Counter: 0, ID: "k0", CreatedAt: t0}
	k1 := Key{Counter: 1, ID: "k1", CreatedAt: t0.Add(10 * time.Minute)}
	// Long past the window and the next rotation by any clock, but no
	// answer dated Coder's: neither is taken for over.
	for name, in := range map[string]RotationState{
		"Window":   {Keys: []Key{k0, k1}, ExternalName: "k1", Published: "k1", Records: []int{0, 1}, Settle: 5 * time.Minute, Now: t0.Add(24 * time.Hour)},
		"Periodic": {Keys: []Key{k1}, ExternalName: "k1", Published: "k1", Records: []int{1}, Every: time.Hour, Settle: 5 * time.Minute, Now: t0.Add(24 * time.Hour)},
	} {
		t.Run(name, func(t *testing.T) {
			if got := DecideRotation(in); got.Action != ActionNone {
				t.Errorf("DecideRotation(...).Action = %s without Coder's clock, want %s", got.Action, ActionNone)
			}
		})
	}
}
