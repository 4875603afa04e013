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

package coderobj

import (
	"testing"
	"time"
)

func TestUncertainCreateAdoptsOnlyWhatTheAttemptCreated(t *testing.T) {
	attempt := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		reason    string
		createdAt time.Time
		attempt   time.Time
		want      bool
	}{
		"CreatedAfterAttempt": {
			reason:    "the lost response's provider",
			createdAt: attempt.Add(800 * time.Millisecond), attempt: attempt, want: true,
		},
		"WithinSkew": {
			reason:    "the annotation is truncated to seconds and clocks differ: a few seconds earlier is still ours",
			createdAt: attempt.Add(-4 * time.Second), attempt: attempt, want: true,
		},
		"BeforeAttempt": {
			reason:    "it existed before we asked: someone else's",
			createdAt: attempt.Add(-10 * time.Second), attempt: attempt, want: false,
		},
		"LongBefore": {
			reason:    "a provider from last week",
			createdAt: attempt.Add(-7 * 24 * time.Hour), attempt: attempt, want: false,
		},
		"CommittedAtTheDeadline": {
			reason:    "a create may commit as late as its request timeout allows",
			createdAt: attempt.Add(40 * time.Second), attempt: attempt, want: true,
		},
		"CreatedLaterBySomeoneElse": {
			reason:    "after the attempt's timeout our create could no longer commit: someone else made it",
			createdAt: attempt.Add(10 * time.Minute), attempt: attempt, want: false,
		},
		"NoAttempt": {
			reason:    "without a recorded attempt nothing is ours",
			createdAt: attempt, attempt: time.Time{}, want: false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CreatedByAttempt(tc.createdAt, tc.attempt, 30*time.Second); got != tc.want {
				t.Errorf("%s\nCreatedByAttempt = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
