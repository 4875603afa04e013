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
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

const (
	// pollSlop is how early a poll may arrive and still count as one: the
	// workqueue's timers fire a little early or late, an event does not
	// wait for the poll.
	pollSlop = time.Second

	// pollShareDivisor sets the poll share at 1/20 of a tenant's rate: while
	// urgent work waits, polls take at most 5% of the slots (a 300-delete
	// backlog at 10/s ends about 1.5 s later), yet polls keep moving (one
	// every 2 s at 10/s). The share's limit is fractional, so even at a
	// rate of 1 it admits a poll every 20 s: it needs no floor. Its burst
	// is 1, so polls never take a run of slots at once.
	pollShareDivisor = 20

	// maxSendBack bounds how long a poll sent back waits before it asks
	// again. The bucket's burst holds ten seconds of tokens, so the polls
	// that come back within them find the tokens their wait left unused:
	// the tenant still polls at its whole rate.
	maxSendBack = 10 * time.Second

	// forgetAfter is how long past its due time an item is remembered: an
	// item deleted from the cluster never comes back, and one that does
	// after this long only has its first request counted as urgent.
	forgetAfter = 10 * time.Minute
)

// A class is how much a request matters to someone waiting.
type class int

const (
	// urgent: a first sighting, a watch event (create, delete, spec
	// change), or a retry after an error or a Requeue.
	urgent class = iota
	// poll: the request the last reconcile of the item asked for with its
	// RequeueAfter, arriving when it asked.
	poll
)

func (c class) String() string {
	if c == poll {
		return "poll"
	}
	return "urgent"
}

// A decision is what a request does with its tenant's bucket.
type decision int

const (
	// takeSlot reserves the bucket's next slot: the request runs now if
	// the bucket has a token, else when its slot comes.
	takeSlot decision = iota
	// takeShareSlot reserves the next slot as takeSlot does, paid for by
	// the poll share as well.
	takeShareSlot
	// sendBack reserves nothing: the request asks again later.
	sendBack
)

func (d decision) String() string {
	return [...]string{"takeSlot", "takeShareSlot", "sendBack"}[d]
}

// An item is what the Limiter remembers of one request key.
type item struct {
	// pollAt is when the item's last reconcile asked to be polled; zero
	// when it did not (an error, a Requeue, nothing to poll).
	pollAt time.Time
	// backAt is when a poll sent back asks again; zero when none was.
	backAt time.Time
	// granted: the item holds a reserved slot, and runs when it returns.
	granted bool
	// until is the latest time the item is expected back; the sweep drops
	// the item forgetAfter past it.
	until time.Time
	// event: a watch event (a create, a delete, a spec change) woke the
	// item since its last request, which makes that request urgent however
	// overdue its poll was: the workqueue merges the two.
	event bool
}

// classify says whether a request of it arriving at now is a poll. An
// event says it is not; otherwise results tell: the managed reconciler
// asks for a RequeueAfter only as its poll interval, and a request that
// comes earlier was woken by something else.
func classify(it item, now time.Time) class {
	if it.event {
		return urgent
	}
	due := it.pollAt
	if !it.backAt.IsZero() {
		// A poll sent back is still a poll when it returns, however long
		// after pollAt; an event before then is not.
		due = it.backAt
	}
	if !due.IsZero() && !now.Before(due.Add(-pollSlop)) {
		return poll
	}
	return urgent
}

// pollDue is when a reconcile that ended at now with res and err asked to
// be polled, or zero when it did not: an error or a Requeue goes through
// the workqueue's backoff, a retry.
func pollDue(res reconcile.Result, err error, now time.Time) time.Time {
	if err != nil || res.Requeue || res.RequeueAfter <= 0 { //nolint:staticcheck // Requeue is deprecated, yet the managed reconciler returns it.
		return time.Time{}
	}
	return now.Add(res.RequeueAfter)
}

// decide is what a request of class c does when its tenant's bucket holds
// tokens now and the poll share has a token if shareOK. Urgent requests
// take the next slot, first come first served among them. A poll runs at
// once only when the bucket has a whole token, which means no urgent
// request waits (each that waits is a debt below zero); else it takes a
// slot in line through the poll share, or is sent back.
func decide(c class, tokens float64, shareOK bool) decision {
	switch {
	case c == urgent || tokens >= 1:
		return takeSlot
	case shareOK:
		return takeShareSlot
	default:
		return sendBack
	}
}

// sendBackWait is how long a poll sent back at now waits, and where the
// queue of polls sent back then ends. queue is when the polls sent back
// before it will have had their tokens, and tokens what the bucket holds
// now: the poll goes behind both, so that polls sent back together return
// one slot apart, but never further than maxSendBack, which the bucket's
// burst covers. The jitter, up to a quarter earlier drawn from u in [0, 1),
// spreads the polls that all meet the bound.
func sendBackWait(queue, now time.Time, tokens float64, rps int, u float64) (time.Time, time.Duration) {
	next := latest(queue, now.Add(debtClears(tokens, rps))).Add(time.Second / time.Duration(rps))
	next = earliest(next, now.Add(maxSendBack))
	d := next.Sub(now)
	return next, d - time.Duration(u*float64(d)/4)
}

// debtClears is how long a bucket of rps that holds tokens takes to hold
// a whole one again.
func debtClears(tokens float64, rps int) time.Duration {
	return time.Duration((1 - tokens) / float64(rps) * float64(time.Second))
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
