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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestSecretLossesCountASeriesAndEndAnHourAfterTheLast(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := t0.Add
	cases := map[string]struct {
		reason       string
		losses       []time.Duration
		now          time.Duration
		want         SecretLosses
		wantRepeated bool
	}{
		"Once": {
			reason: "one loss is a mistake, not a pattern: counted, not reported",
			losses: []time.Duration{0}, now: time.Minute,
			want: SecretLosses{Count: 1, First: at(0), Last: at(0)},
		},
		"Again": {
			reason: "a second loss within the window is a series",
			losses: []time.Duration{0, 2 * time.Minute}, now: 3 * time.Minute,
			want: SecretLosses{Count: 2, First: at(0), Last: at(2 * time.Minute)}, wantRepeated: true,
		},
		"EveryFewMinutes": {
			reason: "a sync every 50 minutes keeps one series going: each loss is within the window of the last",
			losses: []time.Duration{0, 50 * time.Minute, 100 * time.Minute, 150 * time.Minute}, now: 151 * time.Minute,
			want: SecretLosses{Count: 4, First: at(0), Last: at(150 * time.Minute)}, wantRepeated: true,
		},
		"SeriesOver": {
			reason: "an hour without a loss ends the series: the condition clears",
			losses: []time.Duration{0, 2 * time.Minute}, now: 63 * time.Minute,
			want: SecretLosses{Count: 2, First: at(0), Last: at(2 * time.Minute)},
		},
		"NewSeries": {
			reason: "a loss more than an hour after the last begins a new series",
			losses: []time.Duration{0, 2 * time.Minute, 3 * time.Hour}, now: 3 * time.Hour,
			want: SecretLosses{Count: 1, First: at(3 * time.Hour), Last: at(3 * time.Hour)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var l SecretLosses
			for _, d := range tc.losses {
				l = l.Add(at(d))
			}
			if diff := cmp.Diff(tc.want, l); diff != "" {
				t.Errorf("%s\nAdd(...): -want, +got:\n%s", tc.reason, diff)
			}
			if got := l.Repeated(at(tc.now)); got != tc.wantRepeated {
				t.Errorf("%s\nRepeated(%s) = %v, want %v", tc.reason, tc.now, got, tc.wantRepeated)
			}
		})
	}
}

func TestASecretLostAgainSetsAConditionThatNamesItAndWhatToDo(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	now := t0
	e := &external{now: func() time.Time { return now }}
	k := liveKey(nil)

	e.noteSecretLost(k)
	if c := k.GetCondition(TypeConnectionSecretLost); c.Status == corev1.ConditionTrue {
		t.Fatalf("one lost Secret set %s: %s", c.Type, c.Message)
	}
	for range 5 {
		now = now.Add(30 * time.Second)
		e.noteSecretLost(k)
	}
	c := k.GetCondition(TypeConnectionSecretLost)
	if c.Status != corev1.ConditionTrue || c.Reason != ReasonRemovedRepeatedly {
		t.Fatalf("after 6 lost Secrets the condition is %s/%s, want True/%s", c.Status, c.Reason, ReasonRemovedRepeatedly)
	}
	for _, want := range []string{"team-a/gw-conn", "removed 6 times in 2m30s", "GitOps", "exclude it"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("condition message %q does not say %q", c.Message, want)
		}
	}
	if r := k.Status.AtProvider.Rotation; r == nil || r.SecretLosses != 6 {
		t.Errorf("status rotation = %+v, want 6 secretLosses", r)
	}

	now = now.Add(SecretLossWindow + time.Second)
	e.observeSecretLosses(k)
	if c := k.GetCondition(TypeConnectionSecretLost); c.Status != corev1.ConditionFalse || c.Reason != ReasonNotRemoved {
		t.Errorf("an hour after the last loss the condition is %s/%s, want False/%s", c.Status, c.Reason, ReasonNotRemoved)
	}
}
