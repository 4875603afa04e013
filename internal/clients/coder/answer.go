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
	"sync"
	"time"
)

// answer is one of Coder's answers about the deployment itself (its id, its
// env-seeded providers) that serves every caller of a client for ttl. The
// callers that find it missing or expired together wait on one request:
// a ProviderConfig's deleting keys all ask for the deployment id within the
// same moment, and each asked Coder until one of them had its answer.
type answer[T any] struct {
	ttl time.Duration
	now func() time.Time

	mu     sync.Mutex
	value  T
	at     time.Time // when the request that brought value was sent
	known  bool
	flight *answerFlight[T]
}

type answerFlight[T any] struct {
	started time.Time
	done    chan struct{}
	value   T
	err     error
}

func newAnswer[T any](ttl time.Duration) *answer[T] {
	return &answer[T]{ttl: ttl, now: time.Now}
}

// get returns the answer asked at most ttl ago, or asks for it with ask
// unless a request is already in flight, and waits on that one. An error is
// not kept: the next caller asks again. A caller whose ctx ends gets
// ctx.Err() and leaves the request running for the others, bounded by c's
// timeout; a caller stops waiting once Coder has been silent long enough
// (Client.Silent), as it would on a shared key list.
func (a *answer[T]) get(ctx context.Context, c *Client, ask func(context.Context) (T, error)) (T, error) {
	a.mu.Lock()
	if a.known && a.now().Sub(a.at) < a.ttl {
		v := a.value
		a.mu.Unlock()
		return v, nil
	}
	f := a.flight
	if f == nil {
		f = &answerFlight[T]{started: a.now(), done: make(chan struct{})}
		a.flight = f
		c.detached(ctx, func(ctx context.Context) { a.run(ctx, f, ask) })
	}
	a.mu.Unlock()

	if err := c.await(ctx, f.done, f.started); err != nil {
		var zero T
		return zero, err
	}
	return f.value, f.err
}

func (a *answer[T]) run(ctx context.Context, f *answerFlight[T], ask func(context.Context) (T, error)) {
	f.value, f.err = ask(ctx)
	a.mu.Lock()
	a.flight = nil
	if f.err == nil {
		a.value, a.at, a.known = f.value, f.started, true
	}
	a.mu.Unlock()
	close(f.done)
}

// detached runs a request that callers share: detached from the
// cancellation of the caller that starts it, which must not fail the
// others, but keeping its values (e.g. the logger), and bounded by c's
// timeout.
func (c *Client) detached(ctx context.Context, run func(context.Context)) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.Timeout())
	go func() {
		defer cancel()
		run(dctx)
	}()
}

// await waits until done closes (nil), ctx ends (its error), or Coder has
// been silent since started for long enough that a caller should stop
// holding its worker (Client.Silent): a Coder that never answers would
// otherwise hold every caller of a shared request for its timeout.
func (c *Client) await(ctx context.Context, done <-chan struct{}, started time.Time) error {
	t := time.NewTicker(c.SlotWait())
	defer t.Stop()
	for {
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if err := c.Silent(started); err != nil {
				return err
			}
		}
	}
}
