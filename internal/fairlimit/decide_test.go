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

package fairlimit

import (
	"errors"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestARequestIsAPollOnlyWhenItArrivesWhenItsLastReconcileAskedForIt(t *testing.T) {
	due := t0.Add(time.Minute)
	cases := map[string]struct {
		reason string
		it     item
		now    time.Time
		want   class
	}{
		"FirstSighting": {
			reason: "an item never seen is a create or a restart's first look: someone may wait for it",
			now:    t0,
			want:   urgent,
		},
		"AtItsPollTime": {
			reason: "the request its last reconcile asked for, when it asked",
			it:     item{pollAt: due},
			now:    due,
			want:   poll,
		},
		"LateForItsPollTime": {
			reason: "a poll the workqueue is late with is still a poll",
			it:     item{pollAt: due},
			now:    due.Add(time.Hour),
			want:   poll,
		},
		"AMomentEarly": {
			reason: "the workqueue's timer fires a little early",
			it:     item{pollAt: due},
			now:    due.Add(-pollSlop),
			want:   poll,
		},
		"EarlierThanItsPoll": {
			reason: "an event (a delete, a spec change) woke the item before its poll",
			it:     item{pollAt: due},
			now:    due.Add(-pollSlop - time.Millisecond),
			want:   urgent,
		},
		"AfterARetry": {
			reason: "an error or a Requeue asked for no poll: the request is a retry",
			now:    due,
			want:   urgent,
		},
		"APollSentBackReturns": {
			reason: "a poll the limiter sent back stays a poll when it returns",
			it:     item{pollAt: due, backAt: due.Add(5 * time.Second)},
			now:    due.Add(5 * time.Second),
			want:   poll,
		},
		"AnEventWhileAPollIsSentBack": {
			reason: "an event before the poll sent back returns is not the poll",
			it:     item{pollAt: due, backAt: due.Add(5 * time.Second)},
			now:    due.Add(2 * time.Second),
			want:   urgent,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := classify(tc.it, tc.now); got != tc.want {
				t.Errorf("%s\nclassify(%+v, now): got %s, want %s", tc.reason, tc.it, got, tc.want)
			}
		})
	}
}

func TestOnlyAPollIntervalWithoutErrorAsksForAPoll(t *testing.T) {
	cases := map[string]struct {
		reason string
		res    reconcile.Result
		err    error
		want   time.Time
	}{
		"PollInterval": {
			reason: "the managed reconciler's RequeueAfter is its poll interval",
			res:    reconcile.Result{RequeueAfter: time.Minute},
			want:   t0.Add(time.Minute),
		},
		"Error": {
			reason: "controller-runtime ignores the result of an error and retries with backoff",
			res:    reconcile.Result{RequeueAfter: time.Minute},
			err:    errors.New("boom"),
		},
		"Requeue": {
			reason: "a Requeue (after a Delete, a create, a status update) is a retry",
			res:    reconcile.Result{Requeue: true}, //nolint:staticcheck // Requeue is deprecated, yet the managed reconciler returns it.
		},
		"Done": {
			reason: "nothing to poll: a released finalizer, a resource that is gone",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := pollDue(tc.res, tc.err, t0); !got.Equal(tc.want) {
				t.Errorf("%s\npollDue(%+v, %v): got %s, want %s", tc.reason, tc.res, tc.err, got, tc.want)
			}
		})
	}
}

func TestUrgentRequestsTakeTheNextSlotAndPollsOnlyASpareOne(t *testing.T) {
	cases := map[string]struct {
		reason  string
		c       class
		tokens  float64
		shareOK bool
		want    decision
	}{
		"UrgentWithAToken":   {reason: "urgent work runs at once when the bucket allows", c: urgent, tokens: 5, want: takeSlot},
		"UrgentInDebt":       {reason: "urgent work takes its slot in line, first come first served", c: urgent, tokens: -30, want: takeSlot},
		"UrgentIgnoresShare": {reason: "the share is for polls only", c: urgent, tokens: -30, shareOK: true, want: takeSlot},
		"PollWithAToken":     {reason: "a whole token means no urgent request waits: the poll runs at once", c: poll, tokens: 1, want: takeSlot},
		"PollThroughShare":   {reason: "urgent work waits, and the share lets one poll into the line", c: poll, tokens: -30, shareOK: true, want: takeShareSlot},
		"PollBelowAToken":    {reason: "part of a token is no slot to spare", c: poll, tokens: 0.99, want: sendBack},
		"PollInDebt":         {reason: "urgent work waits and the share is spent: the poll reserves nothing", c: poll, tokens: -30, want: sendBack},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := decide(tc.c, tc.tokens, tc.shareOK); got != tc.want {
				t.Errorf("%s\ndecide(%s, %v, %v): got %s, want %s", tc.reason, tc.c, tc.tokens, tc.shareOK, got, tc.want)
			}
		})
	}
}

func TestAPollSentBackReturnsBehindTheDebtAndThePollsBeforeItWithinTheBound(t *testing.T) {
	const rps = 10
	slot := time.Second / rps
	cases := map[string]struct {
		reason    string
		queue     time.Time
		tokens    float64
		u         float64
		wantQueue time.Time
		wantAfter time.Duration
	}{
		"AlmostAToken": {
			reason:    "no poll sent back before it: back when the token is whole, one slot on",
			tokens:    0.5,
			wantQueue: t0.Add(50*time.Millisecond + slot),
			wantAfter: 50*time.Millisecond + slot,
		},
		"BehindThePollsBefore": {
			reason:    "polls sent back together return a slot apart",
			queue:     t0.Add(2 * time.Second),
			tokens:    0.5,
			wantQueue: t0.Add(2*time.Second + slot),
			wantAfter: 2*time.Second + slot,
		},
		"BehindTheDebt": {
			reason:    "urgent work reserved 3s ahead goes first",
			queue:     t0.Add(time.Second),
			tokens:    -29,
			wantQueue: t0.Add(3*time.Second + slot),
			wantAfter: 3*time.Second + slot,
		},
		"PastQueue": {
			reason:    "a queue of polls that has run is no wait",
			queue:     t0.Add(-time.Hour),
			tokens:    0,
			wantQueue: t0.Add(2 * slot),
			wantAfter: 2 * slot,
		},
		"LongDebt": {
			reason:    "a long urgent backlog: back after maxSendBack to look again, and the queue ends there",
			queue:     t0.Add(time.Hour),
			tokens:    -3000,
			wantQueue: t0.Add(maxSendBack),
			wantAfter: maxSendBack,
		},
		"Jitter": {
			reason:    "up to a quarter earlier, so that polls at the bound do not all return at once",
			tokens:    -3000,
			u:         0.5,
			wantQueue: t0.Add(maxSendBack),
			wantAfter: maxSendBack * 7 / 8,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			queue, after := sendBackWait(tc.queue, t0, tc.tokens, rps, tc.u)
			if !queue.Equal(tc.wantQueue) || after != tc.wantAfter {
				t.Errorf("%s\nsendBackWait(...): got queue +%s, after %s; want +%s, %s", tc.reason,
					queue.Sub(t0), after, tc.wantQueue.Sub(t0), tc.wantAfter)
			}
		})
	}
}

func TestTheDebtClearsWhenTheBucketHoldsAWholeToken(t *testing.T) {
	cases := map[string]struct {
		tokens float64
		rps    int
		want   time.Duration
	}{
		"HalfAToken":     {tokens: 0.5, rps: 10, want: 50 * time.Millisecond},
		"Empty":          {tokens: 0, rps: 10, want: 100 * time.Millisecond},
		"ThirtyReserved": {tokens: -30, rps: 10, want: 3100 * time.Millisecond},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := debtClears(tc.tokens, tc.rps); got != tc.want {
				t.Errorf("debtClears(%v, %d): got %s, want %s", tc.tokens, tc.rps, got, tc.want)
			}
		})
	}
}
