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

package deletion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// clockOf is Coder's clock running offset ahead of ours (behind when
// negative), as an answer received at ours showed it.
func clockOf(ours time.Time, offset time.Duration) coder.Clock {
	return coder.Clock{Date: ours.Add(offset), Received: ours}
}

func TestUncertainCreateAdoptsOnlyWhatTheAttemptCreated(t *testing.T) {
	attempt := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	// The answer that brought the provider arrived a minute after the
	// attempt, by our clock.
	answered := attempt.Add(time.Minute)
	cases := map[string]struct {
		reason    string
		createdAt time.Time
		attempt   time.Time
		// offset is how far Coder's clock runs ahead of ours.
		offset  time.Duration
		undated bool
		want    bool
		wantErr error
	}{
		"CreatedAfterAttempt": {
			reason:    "the lost response's provider",
			createdAt: attempt.Add(800 * time.Millisecond), attempt: attempt, want: true,
		},
		"WithinSkew": {
			reason:    "the attempt is truncated to seconds and the Date too: a few seconds earlier is still ours",
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
		"CoderTenSecondsBehind": {
			reason:    "Coder dated our provider by its clock, 10s behind ours: still the attempt's",
			createdAt: attempt.Add(-10*time.Second + 800*time.Millisecond), attempt: attempt, offset: -10 * time.Second, want: true,
		},
		"CoderTwoMinutesBehind": {
			reason:    "Coder's clock two minutes behind: its date of our provider is two minutes before our attempt",
			createdAt: attempt.Add(-2*time.Minute + time.Second), attempt: attempt, offset: -2 * time.Minute, want: true,
		},
		"CoderTwoMinutesAhead": {
			reason:    "Coder's clock two minutes ahead: its date of our provider is past the attempt's timeout on ours",
			createdAt: attempt.Add(2*time.Minute + time.Second), attempt: attempt, offset: 2 * time.Minute, want: true,
		},
		"BeforeAttemptCoderAhead": {
			reason:    "dated after our attempt by our clock, but ten seconds before it by Coder's: someone else's",
			createdAt: attempt.Add(2*time.Minute - 10*time.Second), attempt: attempt, offset: 2 * time.Minute, want: false,
		},
		"LaterBySomeoneElseCoderBehind": {
			reason:    "dated within the attempt's window by our clock, two minutes after it by Coder's: someone else's",
			createdAt: attempt.Add(10 * time.Second), attempt: attempt, offset: -2 * time.Minute, want: false,
		},
		"Undated": {
			reason:    "no answer carried a Date: whether it is ours cannot be told, which is not a no",
			createdAt: attempt.Add(time.Second), attempt: attempt, undated: true, wantErr: errUndated,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clock := clockOf(answered, tc.offset)
			if tc.undated {
				clock = coder.Clock{}
			}
			got, err := CreatedByAttempt(tc.createdAt, tc.attempt, 30*time.Second, clock)
			if diff := cmp.Diff(tc.wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nCreatedByAttempt error: -want, +got:\n%s", tc.reason, diff)
			}
			if got != tc.want {
				t.Errorf("%s\nCreatedByAttempt = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

func TestAnObjectOlderThanItsRecordIsNeitherOursNorAbsent(t *testing.T) {
	written := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	answered := written.Add(time.Minute)
	cases := map[string]struct {
		reason    string
		createdAt time.Time
		notBefore time.Time
		offset    time.Duration
		undated   bool
		wantErr   error
	}{
		"CreatedAfterTheRecord": {
			reason:    "the record's create made it",
			createdAt: written.Add(time.Second), notBefore: written,
		},
		"NoBound": {
			reason:    "an import's record bounds nothing",
			createdAt: written.Add(-time.Hour),
		},
		"CreatedBeforeTheRecord": {
			reason:    "a record edited to name an older object: not deleted, not absent",
			createdAt: written.Add(-time.Hour), notBefore: written, wantErr: errPredates,
		},
		"CoderTwoMinutesBehind": {
			reason:    "Coder dated the record's key two minutes before the record by our clock, after it by Coder's: ours",
			createdAt: written.Add(-2*time.Minute + time.Second), notBefore: written, offset: -2 * time.Minute,
		},
		"OlderCoderTwoMinutesAhead": {
			reason:    "dated after the record by our clock, but before it by Coder's: not the record's",
			createdAt: written.Add(time.Minute), notBefore: written, offset: 2 * time.Minute, wantErr: errPredates,
		},
		"Undated": {
			reason:    "no Date to compare with: neither deleted nor counted absent",
			createdAt: written.Add(time.Second), notBefore: written, undated: true, wantErr: errUndated,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clock := clockOf(answered, tc.offset)
			if tc.undated {
				clock = coder.Clock{}
			}
			err := notBefore("key k", tc.createdAt, tc.notBefore, clock)
			if diff := cmp.Diff(tc.wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nnotBefore: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
