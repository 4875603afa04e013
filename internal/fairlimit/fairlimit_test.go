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
	"container/heap"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// arrival is a request of a tenant reaching the limiter at a time; seq
// orders those that arrive at the same time.
type arrival struct {
	at     time.Time
	tenant string
	item   string
	seq    int
}

type queue []arrival

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	return q[i].at.Before(q[j].at) || q[i].at.Equal(q[j].at) && q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(arrival)) }
func (q *queue) Pop() any {
	old := *q
	a := old[len(old)-1]
	*q = old[:len(old)-1]
	return a
}

// simulate runs the arrivals through l, each request coming back after the
// delay it is given (as a RequeueAfter does), and returns when each item
// ran.
func simulate(l *Limiter, arrivals []arrival) map[string]time.Time {
	q := queue(append([]arrival(nil), arrivals...))
	heap.Init(&q)
	ran := map[string]time.Time{}
	for q.Len() > 0 {
		a := heap.Pop(&q).(arrival)
		d := l.When(a.tenant, a.item, a.at)
		if d == 0 {
			ran[a.item] = a.at
			continue
		}
		a.at = a.at.Add(d)
		heap.Push(&q, a)
	}
	return ran
}

func burst(tenant string, n int, at time.Time) []arrival {
	out := make([]arrival, n)
	for i := range out {
		out[i] = arrival{at: at, tenant: tenant, item: fmt.Sprintf("%s/%d", tenant, i)}
	}
	return out
}

func TestANoisyTenantDoesNotDelayAnother(t *testing.T) {
	const rps = 10
	// 300 reconciles of one tenant at once (a hundred keys failing and
	// retrying), then one of another tenant a moment later.
	arrivals := append(burst("noisy", 300, t0), arrival{at: t0.Add(time.Millisecond), tenant: "quiet", item: "quiet/new"})
	ran := simulate(New(rps), arrivals)
	if waited := ran["quiet/new"].Sub(t0.Add(time.Millisecond)); waited > 0 {
		t.Errorf("the quiet tenant's reconcile waited %s behind the noisy tenant's 300, want none", waited)
	}
	// Within the noisy tenant, first come first served: the last of its
	// burst runs when the rate says, and every one runs.
	var last time.Duration
	for i := range 300 {
		last = max(last, ran[fmt.Sprintf("noisy/%d", i)].Sub(t0))
	}
	if want := time.Duration(300-rps*10) * time.Second / rps; last < want-time.Second || last > want+time.Second {
		t.Errorf("the noisy tenant's last reconcile ran after %s, want about %s", last, want)
	}
	for i := range 300 {
		if _, ok := ran[fmt.Sprintf("noisy/%d", i)]; !ok {
			t.Fatalf("noisy/%d never ran", i)
		}
	}
}

func TestARequestWaitsOnlyForThoseAheadOfIt(t *testing.T) {
	const rps = 10
	// A tenant past its burst, with reconciles arriving faster than its
	// rate (polls), and one new request among them: it runs after those
	// that came before it, never starved by those that come after.
	var arrivals []arrival
	arrivals = append(arrivals, burst("t", rps*10, t0)...)
	for i := range 300 {
		arrivals = append(arrivals, arrival{at: t0.Add(time.Duration(i) * 33 * time.Millisecond), tenant: "t", item: fmt.Sprintf("poll/%d", i)})
	}
	newAt := t0.Add(2 * time.Second)
	arrivals = append(arrivals, arrival{at: newAt, tenant: "t", item: "new"})
	ran := simulate(New(rps), arrivals)
	ahead := 0
	for _, a := range arrivals {
		if a.item != "new" && a.at.Before(newAt) && ran[a.item].After(t0) {
			ahead++
		}
	}
	if got, want := ran["new"].Sub(newAt), time.Duration(ahead+1)*time.Second/rps; got > want {
		t.Errorf("the new request waited %s, want at most %s: only the %d that came before it and waited", got, want, ahead)
	}
}

func TestALoneTenantGetsTheWholeRate(t *testing.T) {
	const rps = 10
	ran := simulate(New(rps), burst("only", 1000, t0))
	n := 0
	for _, at := range ran {
		if at.Before(t0.Add(20 * time.Second)) {
			n++
		}
	}
	// The burst (ten seconds' worth) at once, then the rate.
	if want := rps*10 + rps*20; n < want-rps || n > want+rps {
		t.Errorf("%d reconciles ran in the first 20s, want about %d: the burst and then the full rate", n, want)
	}
}

func TestAReservedSlotRunsWhenItsRequestComesBack(t *testing.T) {
	l := New(1)
	for i := range 10 {
		if d := l.When("a", fmt.Sprint(i), t0); d != 0 {
			t.Fatalf("request %d of the burst waits %s, want none", i, d)
		}
	}
	d := l.When("a", "x", t0)
	if d <= 0 {
		t.Fatal("past the burst a request waits")
	}
	if got := l.When("a", "x", t0.Add(d)); got != 0 {
		t.Errorf("the request came back after its %s and waits %s more, want to run", d, got)
	}
	if l.items["x"].granted {
		t.Error("a slot that ran is still held")
	}
	// An idle tenant's bucket goes; its next request runs at once.
	later := t0.Add(time.Hour)
	_ = l.When("b", "y", later)
	if _, ok := l.buckets["a"]; ok {
		t.Error("the bucket of a tenant idle for an hour is still kept")
	}
	if got := l.When("a", "z", later); got != 0 {
		t.Errorf("an idle tenant's request waits %s, want none", got)
	}
}

func TestTheReconcilerTellsPollsFromRetriesByTheResultAndCountsEveryDeferral(t *testing.T) {
	const name = "managed/test"
	now := t0
	var res reconcile.Result
	var err error
	calls := 0
	l := New(1)
	r := NewReconciler(name, reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		calls++
		return res, err
	}), l)
	r.now = func() time.Time { return now }
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "t", Name: "k"}}
	key := name + " " + req.String()

	res = reconcile.Result{RequeueAfter: time.Minute}
	if got, gotErr := r.Reconcile(context.Background(), req); got != res || gotErr != nil {
		t.Fatalf("a request with a token: got %+v, %v, want the inner result %+v", got, gotErr, res)
	}
	if got := classify(*l.items[key], now.Add(time.Minute)); got != poll {
		t.Errorf("after a poll interval, the request a minute later is %s, want a poll", got)
	}
	res, err = reconcile.Result{RequeueAfter: time.Minute}, errors.New("boom")
	if _, gotErr := r.Reconcile(context.Background(), req); !errors.Is(gotErr, err) {
		t.Fatalf("the inner error: got %v, want %v", gotErr, err)
	}
	if got := classify(*l.items[key], now.Add(time.Minute)); got != urgent {
		t.Errorf("after an error, the next request is %s, want urgent: a retry", got)
	}

	// Past the burst, a request waits without running, and is counted.
	for i := range 10 {
		_ = l.When("t", fmt.Sprint(i), now)
	}
	before, ran := deferred(t, name), calls
	got, gotErr := r.Reconcile(context.Background(), req)
	if got.RequeueAfter <= 0 || gotErr != nil || calls != ran {
		t.Errorf("a request past the burst: got %+v, %v, %d inner calls, want a RequeueAfter and no call", got, gotErr, calls-ran)
	}
	if after := deferred(t, name); after != before+1 {
		t.Errorf("reconciles_deferred_total{controller=%q}: got %v, want %v", name, after, before+1)
	}
}

// deferred is provider_coder_reconciles_deferred_total of controller.
func deferred(t *testing.T, controller string) float64 {
	t.Helper()
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "provider_coder_reconciles_deferred_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "controller" && lp.GetValue() == controller {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
