package coder

import (
	"context"
	"errors"
	"sync"
	"time"
)

var errStalled = errors.New("not calling Coder: it did not answer the last request in time; trying again after a pause")

// breaker keeps one slow Coder from taking every reconcile worker. Workers
// are shared by all ProviderConfigs, so while a tenant's Coder holds
// requests until they time out, each of its resources would hold a worker
// for a whole timeout and the other tenants' resources would queue behind
// them. After a request times out without an answer, calls fail at once for
// one timeout; then one call probes, and the rest keep failing until it
// answers.
type breaker struct {
	pause time.Duration

	mu        sync.Mutex
	openUntil time.Time
	probing   bool
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
