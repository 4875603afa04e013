// Package fairlimit shares the provider's reconcile rate between tenants.
//
// crossplane-runtime's global rate limiter is one token bucket that every
// reconcile reserves from, first come first served. A tenant whose
// resources fail and retry (a Coder that never answers, a hundred keys at
// once) reserves the bucket for many seconds ahead, and another tenant's
// new resource waits behind all of it. Here each tenant (a namespace; the
// cluster-scoped resources are one more) may hold at most a share of the
// coming slots; past it, its requests come back later without reserving
// anything, so everybody else's wait stays within that share.
package fairlimit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// minRetry is the least a request over its tenant's share waits before it
// asks again.
const minRetry = 100 * time.Millisecond

// A Limiter hands out the slots of a token bucket of rps per second (burst
// ten seconds' worth, like crossplane-runtime's global limiter), at most
// share of them reserved ahead by any one tenant.
type Limiter struct {
	mu      sync.Mutex
	bucket  *rate.Limiter
	rps     float64
	share   int
	held    map[string]int
	granted map[string]string
}

// New returns a Limiter of rps reconciles per second in which a tenant may
// hold one second's worth of reservations.
func New(rps int) *Limiter {
	rps = max(1, rps)
	return &Limiter{
		bucket: rate.NewLimiter(rate.Limit(rps), rps*10), rps: float64(rps), share: rps,
		held: map[string]int{}, granted: map[string]string{},
	}
}

// When returns how long the request item of tenant waits before it runs:
// zero to run now. A request that waited for a slot it reserved runs when
// it comes back; one over its tenant's share reserved nothing and asks
// again when it comes back.
func (l *Limiter) When(tenant, item string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t, ok := l.granted[item]; ok {
		delete(l.granted, item)
		l.held[t]--
		if l.held[t] == 0 {
			delete(l.held, t)
		}
		return 0
	}
	if n := l.held[tenant]; n >= l.share {
		return max(minRetry, time.Duration(float64(n)/l.rps*float64(time.Second)))
	}
	d := l.bucket.ReserveN(now, 1).DelayFrom(now)
	if d <= 0 {
		return 0
	}
	l.granted[item] = tenant
	l.held[tenant]++
	return d
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

// Reconcile runs the request now or says when to come back.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if d := r.limit.When(req.Namespace, r.name+" "+req.String(), r.now()); d > 0 {
		return reconcile.Result{RequeueAfter: d}, nil
	}
	return r.inner.Reconcile(ctx, req)
}
