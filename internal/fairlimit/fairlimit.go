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

// Package fairlimit shares the provider's reconcile rate between tenants,
// and within a tenant puts the reconciles someone waits for before polls.
//
// crossplane-runtime's global rate limiter is one token bucket that every
// reconcile reserves from, first come first served. A tenant whose
// resources fail and retry (a Coder that never answers, a hundred keys at
// once) reserves the bucket for many seconds ahead, and another tenant's
// new resource waits behind all of it. Here each tenant (a namespace; the
// cluster-scoped resources are one more) has a bucket of its own: a
// tenant's backlog delays only itself.
//
// Within a tenant, polls no longer compete with the requests a user waits
// for. A request is a poll when its item's last reconcile asked for it (a
// RequeueAfter without error: the managed reconciler's poll interval), it
// arrives then, and no watch event woke it (Events notes them: the
// workqueue merges an event with an overdue poll); anything else (a first
// sighting, a create, delete or spec change, a retry after an error or a
// Requeue, the requeue after a Delete) is urgent. Urgent requests reserve their slot first come first
// served. A poll runs at once only while no urgent request waits; else it
// takes a slot in line through a small poll share, or is sent back
// without reserving anything and asks again within seconds.
//
// It must not: run a tenant faster than its rate (a poll through the share
// takes a slot of the same bucket); leave a request waiting without a
// bound (an urgent one holds its slot, a poll sent back returns within
// maxSendBack, and the share moves polls through any backlog); read
// objects or drop watch events to tell polls from events; or remember
// items long after they were due (an item deleted from the cluster never
// comes back).
package fairlimit

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// idleAfter is how long a tenant's bucket stays after its last use: past
// its burst's refill it is as good as a new one. The sweep runs at most
// once per idleAfter.
const idleAfter = 30 * time.Second

// A Limiter gives each tenant a token bucket of rps per second, with a
// burst of ten seconds' worth (like crossplane-runtime's global limiter).
type Limiter struct {
	mu      sync.Mutex
	rps     int
	buckets map[string]*bucket
	items   map[string]*item
	swept   time.Time
	// rand draws the jitter of polls sent back, in [0, 1).
	rand func() float64
}

type bucket struct {
	// limiter is the tenant's rate: every request that runs takes a slot.
	limiter *rate.Limiter
	// share is the poll share: the polls that may take a slot in line
	// while urgent requests wait.
	share *rate.Limiter
	// polls is when the polls sent back so far will have had their
	// tokens, so that the next is sent back past them.
	polls time.Time
	used  time.Time
}

// New returns a Limiter of rps reconciles per second per tenant.
func New(rps int) *Limiter {
	return &Limiter{rps: max(1, rps), buckets: map[string]*bucket{}, items: map[string]*item{}, rand: rand.Float64}
}

// When returns how long the request key of tenant waits before it runs:
// zero to run now. A request that waits has either reserved its slot in
// its tenant's bucket, and runs when it comes back, or (a poll) reserved
// nothing, and is classified again when it comes back.
func (l *Limiter) When(tenant, key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	it := l.item(key)
	if it.granted {
		// Its slot was reserved when it was told to wait.
		it.granted, it.pollAt = false, time.Time{}
		return 0
	}
	b := l.bucket(tenant)
	tokens := b.limiter.TokensAt(now)
	d := l.apply(b, decide(classify(*it, now), tokens, b.share.TokensAt(now) >= 1), tokens, now)
	it.granted = d.reserved && d.after > 0
	it.backAt, it.event = time.Time{}, false
	if !d.reserved {
		it.backAt = now.Add(d.after)
	}
	if d.after == 0 {
		// The poll, if it was one, is spent; Ran records the next.
		it.pollAt = time.Time{}
	}
	until := now.Add(d.after)
	it.until = latest(it.until, until)
	b.used = latest(b.used, until)
	return d.after
}

// waited is how a decision was carried out: how long the request waits,
// and whether a slot is reserved for it.
type waited struct {
	after    time.Duration
	reserved bool
}

// apply carries out decision c in b at now, when b held tokens.
func (l *Limiter) apply(b *bucket, c decision, tokens float64, now time.Time) waited {
	switch c {
	case takeShareSlot:
		b.share.ReserveN(now, 1)
		fallthrough
	case takeSlot:
		return waited{after: max(0, b.limiter.ReserveN(now, 1).DelayFrom(now)), reserved: true}
	default:
		var after time.Duration
		b.polls, after = sendBackWait(b.polls, now, tokens, l.rps, l.rand())
		return waited{after: after}
	}
}

// Ran records how the reconcile of key that ran ended at now, which tells
// whether its next request is a poll.
func (l *Limiter) Ran(key string, res reconcile.Result, err error, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	it := l.item(key)
	it.pollAt = pollDue(res, err, now)
	it.until = latest(it.until, latest(now, it.pollAt))
}

// Event notes that a watch event woke key at now: its next request is
// urgent.
func (l *Limiter) Event(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	it := l.item(key)
	it.event = true
	it.until = latest(it.until, now)
}

func (l *Limiter) item(key string) *item {
	it := l.items[key]
	if it == nil {
		it = &item{}
		l.items[key] = it
	}
	return it
}

func (l *Limiter) bucket(tenant string) *bucket {
	b := l.buckets[tenant]
	if b == nil {
		b = &bucket{
			limiter: rate.NewLimiter(rate.Limit(l.rps), l.rps*10),
			share:   rate.NewLimiter(rate.Limit(float64(l.rps)/pollShareDivisor), 1),
		}
		l.buckets[tenant] = b
	}
	return b
}

// sweep drops the buckets of tenants idle for idleAfter, and the items
// forgetAfter past their due time, at most once per idleAfter.
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
	for k, it := range l.items {
		if now.Sub(it.until) > forgetAfter {
			delete(l.items, k)
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
	now   func() time.Time
}

// NewReconciler wraps r; reconcilers of several controllers may share l
// (name keeps their requests apart).
func NewReconciler(name string, r reconcile.Reconciler, l *Limiter) *Reconciler {
	return &Reconciler{name: name, inner: r, limit: l, now: time.Now}
}

// Events is the predicate, last of a watch's predicates, that notes every
// event the watch passes on for the controller name: its request is
// urgent. It drops nothing.
func Events(name string, l *Limiter) predicate.Predicate {
	note := func(o client.Object) bool {
		if o != nil {
			l.Event(keyOf(name, types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}), time.Now())
		}
		return true
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return note(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return note(e.ObjectNew) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return note(e.Object) },
		GenericFunc: func(e event.GenericEvent) bool { return note(e.Object) },
	}
}

// keyOf is the Limiter's key of the request nn of the controller name.
func keyOf(name string, nn types.NamespacedName) string { return name + " " + nn.String() }

// Reconcile runs the request now or says when to come back.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := keyOf(r.name, req.NamespacedName)
	if d := r.limit.When(req.Namespace, key, r.now()); d > 0 {
		metrics.ReconcileDeferred(r.name)
		return reconcile.Result{RequeueAfter: d}, nil
	}
	res, err := r.inner.Reconcile(ctx, req)
	r.limit.Ran(key, res, err, r.now())
	return res, err
}
