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

// Package fairlimit shares the provider's reconcile rate between tenants.
//
// crossplane-runtime's global rate limiter is one token bucket that every
// reconcile reserves from, first come first served. A tenant whose
// resources fail and retry (a Coder that never answers, a hundred keys at
// once) reserves the bucket for many seconds ahead, and another tenant's
// new resource waits behind all of it. Here each tenant (a namespace; the
// cluster-scoped resources are one more) has a bucket of its own, first
// come first served within it: a tenant's backlog delays only itself.
package fairlimit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// idleAfter is how long a tenant's bucket stays after its last use: past
// its burst's refill it is as good as a new one.
const idleAfter = 30 * time.Second

// A Limiter gives each tenant a token bucket of rps per second, with a
// burst of ten seconds' worth (like crossplane-runtime's global limiter).
type Limiter struct {
	mu      sync.Mutex
	rps     int
	buckets map[string]*bucket
	granted map[string]bool
	swept   time.Time
}

type bucket struct {
	limiter *rate.Limiter
	used    time.Time
}

// New returns a Limiter of rps reconciles per second per tenant.
func New(rps int) *Limiter {
	return &Limiter{rps: max(1, rps), buckets: map[string]*bucket{}, granted: map[string]bool{}}
}

// When returns how long the request item of tenant waits before it runs:
// zero to run now. A request that waits has reserved its slot in its
// tenant's bucket, and runs when it comes back.
func (l *Limiter) When(tenant, item string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.granted[item] {
		delete(l.granted, item)
		return 0
	}
	l.sweep(now)
	b := l.buckets[tenant]
	if b == nil {
		b = &bucket{limiter: rate.NewLimiter(rate.Limit(l.rps), l.rps*10)}
		l.buckets[tenant] = b
	}
	d := b.limiter.ReserveN(now, 1).DelayFrom(now)
	if d > 0 {
		l.granted[item] = true
	}
	if until := now.Add(d); until.After(b.used) {
		b.used = until
	}
	return max(0, d)
}

// sweep drops the buckets of tenants idle for idleAfter, at most once per
// idleAfter.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < idleAfter {
		return
	}
	l.swept = now
	for t, b := range l.buckets {
		if now.Sub(b.used) > idleAfter {
			delete(l.buckets, t)
		}
	}
}

// A Reconciler runs an inner reconciler no faster than its Limiter allows,
// with the request's namespace as its tenant. Requests that must wait
// return RequeueAfter without calling the inner reconciler.
type Reconciler struct {
	name  string
	inner reconcile.Reconciler
	limit *Limiter
}

// NewReconciler wraps r; reconcilers of several controllers may share l
// (name keeps their requests apart).
func NewReconciler(name string, r reconcile.Reconciler, l *Limiter) *Reconciler {
	return &Reconciler{name: name, inner: r, limit: l}
}

// Reconcile runs the request now or says when to come back.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if d := r.limit.When(req.Namespace, r.name+" "+req.String(), time.Now()); d > 0 {
		metrics.ReconcileDeferred(r.name)
		return reconcile.Result{RequeueAfter: d}, nil
	}
	return r.inner.Reconcile(ctx, req)
}
