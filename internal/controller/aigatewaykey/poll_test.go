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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

func TestNextPoll(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(d)); return &t }
	poll := time.Minute
	cases := map[string]struct {
		reason string
		r      *common.AIGatewayKeyRotationObservation
		want   time.Duration
	}{
		"NoRotation": {
			reason: "a key that never rotated polls as usual",
			want:   poll,
		},
		"WindowEndsBeforeThePoll": {
			reason: "the retire lands one second after retiresAt, not up to a poll later",
			r:      &common.AIGatewayKeyRotationObservation{RetiresAt: at(20 * time.Second)},
			want:   21 * time.Second,
		},
		"WindowEndsAfterThePoll": {
			reason: "a far deadline does not lengthen the poll",
			r:      &common.AIGatewayKeyRotationObservation{RetiresAt: at(5 * time.Minute)},
			want:   poll,
		},
		"WindowJustEnded": {
			reason: "the old key was just deleted: verify it is gone soon",
			r:      &common.AIGatewayKeyRotationObservation{RetiresAt: at(-2 * time.Second)},
			want:   verifyRetiredAfter,
		},
		"WindowLongOver": {
			reason: "a retire that keeps failing does not poll every few seconds forever",
			r:      &common.AIGatewayKeyRotationObservation{RetiresAt: at(-10 * time.Minute)},
			want:   poll,
		},
		"InUseUntilItsBeatsAreOld": {
			reason: "a retiring key that beat 100s ago is in use past the window: it goes when that beat is two periods old, not a poll later",
			r: &common.AIGatewayKeyRotationObservation{
				RetiresAt: at(-10 * time.Second), RevokeBy: at(10 * time.Minute), RetiringKeyLastHeartbeatAt: at(-100 * time.Second),
			},
			want: inUseFor - 100*time.Second + time.Second,
		},
		"InUseUntilRevokeBy": {
			reason: "a key still in use goes at revokeBy, not a poll later",
			r: &common.AIGatewayKeyRotationObservation{
				RetiresAt: at(-10 * time.Minute), RevokeBy: at(15 * time.Second), RetiringKeyLastHeartbeatAt: at(-time.Second),
			},
			want: 16 * time.Second,
		},
		"InUseRevokedJustNow": {
			reason: "the key in use was revoked at revokeBy: verify it is gone soon",
			r: &common.AIGatewayKeyRotationObservation{
				RetiresAt: at(-10 * time.Minute), RevokeBy: at(-2 * time.Second), RetiringKeyLastHeartbeatAt: at(-5 * time.Second),
			},
			want: verifyRetiredAfter,
		},
		"BeatsOldBeforeTheWindowEnds": {
			reason: "heartbeats that stopped long before the window's end do not move the retire",
			r: &common.AIGatewayKeyRotationObservation{
				RetiresAt: at(20 * time.Second), RevokeBy: at(time.Hour), RetiringKeyLastHeartbeatAt: at(-5 * time.Minute),
			},
			want: 21 * time.Second,
		},
		"NextRotationBeforeThePoll": {
			reason: "a periodic rotation starts on time",
			r:      &common.AIGatewayKeyRotationObservation{NextRotationAt: at(30 * time.Second)},
			want:   31 * time.Second,
		},
		"NextRotationOverdue": {
			reason: "an overdue rotation that could not start waits for the poll",
			r:      &common.AIGatewayKeyRotationObservation{NextRotationAt: at(-time.Second)},
			want:   poll,
		},
		"BothTheSoonerWins": {
			reason: "the nearest deadline decides",
			r:      &common.AIGatewayKeyRotationObservation{RetiresAt: at(40 * time.Second), NextRotationAt: at(10 * time.Second)},
			want:   11 * time.Second,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := NextPoll(&common.AIGatewayKeyObservation{Rotation: tc.r}, now, poll)
			if got != tc.want {
				t.Errorf("%s: NextPoll() = %s, want %s", tc.reason, got, tc.want)
			}
		})
	}
}

func TestPollHookPlacesTheRotationsDeadlineOnCodersClock(t *testing.T) {
	for name, offset := range map[string]time.Duration{"CoderBehind": -2 * time.Minute, "CoderAhead": 2 * time.Minute} {
		t.Run(name, func(t *testing.T) {
			k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{UID: "k"}}
			ours := time.Now()
			// The window ends 20s after Coder's now, a time of Coder's.
			retires := metav1.NewTime(ours.Add(offset).Add(20 * time.Second))
			k.Status.AtProvider.Rotation = &common.AIGatewayKeyRotationObservation{RetiresAt: &retires}
			c := newClocks()
			c.set(nameOf(k), coder.Clock{Date: ours.Add(offset), Received: ours})
			// Whole seconds in status, one second's margin, the test's own
			// moment: between 19s and 22s, never a poll away.
			if got := c.pollHook(k, time.Minute); got < 19*time.Second || got > 22*time.Second {
				t.Errorf("pollHook = %s with Coder's clock %s from ours, want about 21s", got, offset)
			}
			// Forgotten (the key was deleted), the hook knows only our clock,
			// on which the deadline is two minutes off: the poll decides.
			c.forget(nameOf(k))
			if got := c.pollHook(k, time.Minute); got != time.Minute {
				t.Errorf("pollHook = %s after forget, want the poll interval", got)
			}
		})
	}
}
