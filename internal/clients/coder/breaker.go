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

package coder

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

var (
	errStalled = errors.New("not calling Coder: it did not answer the last request in time; trying again after a pause")
	errBusy    = fmt.Errorf("%w (every request slot of this Coder is waiting for an answer)", errStalled)
)

// DefaultMaxInFlight is how many requests a client sends to its Coder at
// once when Config says nothing.
const DefaultMaxInFlight = 5

// maxSlotWait is the longest a request waits for a slot, and how long a
// Coder may go without answering anything before requests that find every
// slot taken fail at once.
const maxSlotWait = 2 * time.Second

// breaker keeps one slow Coder from taking every reconcile worker. Workers
// are shared by all ProviderConfigs, so while a tenant's Coder holds
// requests until they time out, each of its resources would hold a worker
// for a whole timeout and the other tenants' resources would queue behind
// them. After a request times out without an answer, calls fail at once for
// one timeout; then one call probes, and the rest keep failing until it
// answers.
//
// The breaker opens only once a request has timed out, and until then
// every worker that calls this Coder waits the whole timeout: so at most a
// few requests are in flight at once (the slots). A request that finds them
// all taken waits for one while the Coder answers, and fails at once when
// it has answered nothing for a while; the workers stay free for the other
// tenants.
type breaker struct {
	pause time.Duration
	// slots holds a token per request in flight, from the pool of the
	// client's tenant (see newSlots); a token is given back when the
	// response body is closed, not when its headers arrive.
	slots chan struct{}
	// slotWait is how long a request waits for a slot.
	slotWait time.Duration

	mu        sync.Mutex
	openUntil time.Time
	probing   bool
	// answered is when a request last got an answer (or the breaker was
	// made): a Coder that answers nothing for slotWait holds no more
	// workers than it has slots.
	answered time.Time
}

// newSlots is a pool of n request slots (at least 1). The clients a Cache
// makes for one tenant share one pool: a tenant's requests in flight are
// bounded however many ProviderConfigs it writes.
func newSlots(n int) chan struct{} { return make(chan struct{}, max(1, n)) }

func newBreaker(timeout time.Duration, slots chan struct{}, now time.Time) *breaker {
	return &breaker{pause: timeout, slots: slots, slotWait: min(timeout, maxSlotWait), answered: now}
}

// acquire takes a request slot, waiting for one while the Coder answers;
// release gives it back.
func (b *breaker) acquire(ctx context.Context, now time.Time) error {
	select {
	case b.slots <- struct{}{}:
		return nil
	default:
	}
	b.mu.Lock()
	silent := now.Sub(b.answered) >= b.slotWait
	b.mu.Unlock()
	if silent {
		return errBusy
	}
	t := time.NewTimer(b.slotWait)
	defer t.Stop()
	select {
	case b.slots <- struct{}{}:
		return nil
	case <-t.C:
		return errBusy
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *breaker) release() { <-b.slots }

// silent reports errBusy when the Coder has answered nothing since since
// (or since its last answer, if later) for slotWait: waiting on a request
// sent then would hold a worker for the rest of its timeout.
func (b *breaker) silent(since, now time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if since.Before(b.answered) {
		since = b.answered
	}
	if now.Sub(since) >= b.slotWait {
		return errBusy
	}
	return nil
}

// allow reports whether a request may go out, and whether it is the probe.
func (b *breaker) allow(now time.Time) (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.openUntil.IsZero():
		return false, nil
	case now.Before(b.openUntil), b.probing:
		return false, errStalled
	}
	b.probing = true
	return true, nil
}

// stalledNow reports errStalled while requests fail at once or one probes:
// a caller about to wait on another's request (a shared list in flight)
// fails at once instead, so it does not hold a worker for the probe's
// whole timeout.
func (b *breaker) stalledNow(now time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openUntil.IsZero() {
		return nil
	}
	if now.Before(b.openUntil) || b.probing {
		return errStalled
	}
	return nil
}

// done records how a request that was allowed ended.
func (b *breaker) done(probe bool, err error, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if stalled(err) {
		b.openUntil, b.probing = now.Add(b.pause), false
		return
	}
	b.answered = now
	if probe || err == nil {
		b.openUntil, b.probing = time.Time{}, false
	}
}

// stalled is a request that got no answer before a deadline; a caller's
// own cancellation says nothing about Coder.
func stalled(err error) bool {
	if err == nil || (errors.Is(err, context.Canceled) && !isNetTimeout(err)) {
		return false
	}
	return errors.Is(err, context.DeadlineExceeded) || isNetTimeout(err)
}
