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
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// pollSim runs requests through a Limiter as the workqueue and the
// managed reconciler would: a request that waits comes back after its
// delay; one that runs asks to be polled again after every[item], if set.
type pollSim struct {
	l     *Limiter
	q     queue
	seq   int
	every map[string]time.Duration
	runs  []arrival
	// longestSendBack is the longest wait of a request that reserved
	// nothing.
	longestSendBack time.Duration
}

func newPollSim(rps int) *pollSim {
	l := New(rps)
	l.rand = rand.New(rand.NewPCG(1, 2)).Float64
	return &pollSim{l: l, every: map[string]time.Duration{}}
}

func (s *pollSim) push(a arrival) {
	s.seq++
	a.seq = s.seq
	heap.Push(&s.q, a)
}

// pollsDue adds n items of tenant, named prefix/i, whose last reconcile
// asked to be polled at at, and then every every.
func (s *pollSim) pollsDue(tenant, prefix string, n int, at time.Time, every time.Duration) {
	for i := range n {
		key := fmt.Sprintf("%s/%d", prefix, i)
		s.every[key] = every
		s.l.Ran(key, reconcile.Result{RequeueAfter: every}, nil, at.Add(-every))
		s.push(arrival{at: at, tenant: tenant, item: key})
	}
}

// urgent adds n first sightings of tenant, named prefix/i, one every
// apart from at.
func (s *pollSim) urgent(tenant, prefix string, n int, at time.Time, apart time.Duration) {
	for i := range n {
		s.push(arrival{at: at.Add(time.Duration(i) * apart), tenant: tenant, item: fmt.Sprintf("%s/%d", prefix, i)})
	}
}

// run serves the requests that arrive until end.
func (s *pollSim) run(end time.Time) {
	for s.q.Len() > 0 && !s.q[0].at.After(end) {
		a := heap.Pop(&s.q).(arrival)
		if d := s.l.When(a.tenant, a.item, a.at); d > 0 {
			if !s.l.items[a.item].granted {
				s.longestSendBack = max(s.longestSendBack, d)
			}
			a.at = a.at.Add(d)
			s.push(a)
			continue
		}
		s.runs = append(s.runs, a)
		every := s.every[a.item]
		s.l.Ran(a.item, reconcile.Result{RequeueAfter: every}, nil, a.at)
		if every > 0 {
			a.at = a.at.Add(every)
			s.push(a)
		}
	}
}

// count is how many runs of items named prefix/... ran after from and
// until to.
func (s *pollSim) count(prefix string, from, to time.Time) int {
	n := 0
	for _, r := range s.runs {
		if strings.HasPrefix(r.item, prefix+"/") && r.at.After(from) && !r.at.After(to) {
			n++
		}
	}
	return n
}

// last is when the last run of an item named prefix/... ran.
func (s *pollSim) last(prefix string) time.Time {
	var at time.Time
	for _, r := range s.runs {
		if strings.HasPrefix(r.item, prefix+"/") {
			at = latest(at, r.at)
		}
	}
	return at
}

// share is the poll share of rps over d.
func share(rps int, d time.Duration) float64 {
	return d.Seconds() * float64(rps) / pollShareDivisor
}

func TestUrgentRequestsRunBeforeThePollsThatCameFirst(t *testing.T) {
	const rps = 10
	s := newPollSim(rps)
	// A tenant past its burst, with 100 polls due, and then 50 deletes.
	s.urgent("t", "spent", rps*10, t0, 0)
	s.pollsDue("t", "poll", 100, t0, time.Hour)
	s.urgent("t", "delete", 50, t0.Add(time.Millisecond), 0)
	s.run(t0.Add(time.Minute))

	lastDelete := s.last("delete")
	if want := t0.Add(time.Millisecond + 52*time.Second/rps); lastDelete.After(want) {
		t.Errorf("the last of 50 deletes ran after %s, want by %s: polls are taking their slots", lastDelete.Sub(t0), want.Sub(t0))
	}
	// Only the poll share, and the slot the first poll took before the
	// deletes arrived, run polls ahead of the deletes.
	ahead, most := s.count("poll", t0.Add(-time.Second), lastDelete), 1+int(share(rps, lastDelete.Sub(t0)))
	if ahead > most {
		t.Errorf("%d polls ran before the last of 50 deletes, want at most %d (the poll share)", ahead, most)
	}
	if got := s.count("poll", t0.Add(-time.Second), t0.Add(time.Minute)); got != 100 {
		t.Errorf("%d of the 100 polls ran within a minute, want all of them", got)
	}
	if s.longestSendBack > maxSendBack {
		t.Errorf("a poll was sent back for %s, want at most %s", s.longestSendBack, maxSendBack)
	}
}

func TestPollsKeepTheirShareWhileUrgentWorkTakesTheWholeRate(t *testing.T) {
	const rps = 10
	s := newPollSim(rps)
	// A tenant past its burst, with 100 keys polling every minute, and a
	// stream of urgent requests at the tenant's whole rate (a retry
	// storm) for longer than the minute measured.
	s.urgent("t", "spent", rps*10, t0, 0)
	s.pollsDue("t", "poll", 100, t0, time.Minute)
	s.urgent("t", "storm", rps*90, t0.Add(time.Millisecond), time.Second/rps)
	s.run(t0.Add(2 * time.Minute))

	minute := t0.Add(time.Minute)
	polls, storm := s.count("poll", t0.Add(-time.Second), minute), s.count("storm", t0, minute)
	if want := share(rps, time.Minute); float64(polls) < want*3/4 || float64(polls) > want+2 {
		t.Errorf("%d polls ran in the first minute of the storm, want about %v (the poll share)", polls, want)
	}
	// The rate holds: a poll through the share takes a slot of the bucket.
	for _, d := range []time.Duration{10 * time.Second, 30 * time.Second, time.Minute} {
		if n, most := s.count("poll", t0.Add(-time.Second), t0.Add(d))+s.count("storm", t0, t0.Add(d)), int(d.Seconds()*rps)+1; n > most {
			t.Errorf("%d requests ran in the %s after the burst was spent, want at most %d at %d/s", n, d, most, rps)
		}
	}
	// The share costs urgent work no more than its slots.
	if most := int(share(rps, time.Minute)) + 2; rps*60-storm > most {
		t.Errorf("%d of the storm's %d requests of the first minute ran in it, want all but the poll share (%d)", storm, rps*60, most)
	}
	if s.longestSendBack > maxSendBack {
		t.Errorf("a poll was sent back for %s, want at most %s", s.longestSendBack, maxSendBack)
	}
}

func TestATenantWithNoUrgentWorkPollsAtTheFullRate(t *testing.T) {
	const rps = 10
	s := newPollSim(rps)
	// More polls due than the rate serves in a minute (a restart of a
	// provider with 2000 keys); another tenant wakes in the middle.
	s.pollsDue("busy", "poll", 2000, t0, time.Minute)
	s.pollsDue("quiet", "quiet-poll", 1, t0.Add(30*time.Second), time.Hour)
	s.urgent("quiet", "quiet-new", 1, t0.Add(30*time.Second), 0)
	s.run(t0.Add(2 * time.Minute))

	// The burst at once, then the whole rate.
	if n, want := s.count("poll", t0.Add(-time.Second), t0.Add(time.Minute)), rps*10+rps*60; n < want-2*rps || n > want+1 {
		t.Errorf("%d polls ran in the first minute, want about %d: the burst and then the full rate", n, want)
	}
	for _, p := range []string{"quiet-poll", "quiet-new"} {
		if got := s.last(p); !got.Equal(t0.Add(30 * time.Second)) {
			t.Errorf("the quiet tenant's %s ran after %s, want at once (30s): another tenant's polls are not its own", p, got.Sub(t0))
		}
	}
	if s.longestSendBack > maxSendBack {
		t.Errorf("a poll was sent back for %s, want at most %s", s.longestSendBack, maxSendBack)
	}
}

func TestAPollSentBackStaysAPollButAnEventBeforeItsReturnIsUrgent(t *testing.T) {
	l := New(1)
	l.rand = func() float64 { return 0 }
	for i := range 10 {
		_ = l.When("t", fmt.Sprint(i), t0) // the burst is spent
	}
	l.Ran("p", reconcile.Result{RequeueAfter: time.Minute}, nil, t0.Add(-time.Minute))
	l.Ran("q", reconcile.Result{RequeueAfter: time.Minute}, nil, t0.Add(-time.Minute))
	// The first poll takes the share's slot, the second is sent back with
	// nothing reserved.
	if d := l.When("t", "p", t0); d <= 0 || !l.items["p"].granted {
		t.Fatalf("the first poll past the burst: waits %s with a slot %v, want a slot of the poll share", d, l.items["p"].granted)
	}
	d := l.When("t", "q", t0)
	if d <= 0 || l.items["q"].granted {
		t.Fatalf("the second poll: waits %s with a slot %v, want sent back without one", d, l.items["q"].granted)
	}
	if tokens := l.buckets["t"].limiter.TokensAt(t0); tokens > -0.99 {
		t.Errorf("the bucket holds %v tokens after one poll took a slot, want -1: a poll sent back reserves nothing", tokens)
	}
	back := t0.Add(d)
	if got := classify(*l.items["q"], back); got != poll {
		t.Errorf("the poll sent back returns as %s, want a poll", got)
	}
	if got := classify(*l.items["q"], back.Add(-pollSlop-time.Millisecond)); got != urgent {
		t.Errorf("an event before the poll returns is %s, want urgent", got)
	}
	// An urgent request of another item takes the next slot, ahead of the
	// poll sent back.
	if u := l.When("t", "u", t0.Add(time.Millisecond)); u > 2*time.Second {
		t.Errorf("an urgent request behind one poll's slot waits %s, want at most 2s", u)
	}
}

func TestTheLimiterForgetsItemsLongPastTheirDueTime(t *testing.T) {
	l := New(10)
	l.Ran("live", reconcile.Result{RequeueAfter: 3 * time.Hour}, nil, t0)
	// Three hours of keys created, reconciled and deleted, a hundred a
	// minute: none comes back.
	const perMinute = 100
	most := 0
	for m := range 180 {
		at := t0.Add(time.Duration(m) * time.Minute)
		for i := range perMinute {
			key := fmt.Sprintf("%d/%d", m, i)
			_ = l.When("t", key, at)
			l.Ran(key, reconcile.Result{}, nil, at)
		}
		most = max(most, len(l.items))
	}
	if want := perMinute * int((forgetAfter+idleAfter)/time.Minute+2); most > want {
		t.Errorf("the limiter held %d items, want at most %d: those seen in the last %s", most, want, forgetAfter+idleAfter)
	}
	// An item due later than that is kept, and its poll is a poll.
	it, ok := l.items["live"]
	if !ok {
		t.Fatal("an item whose poll is due in three hours was forgotten")
	}
	if got := classify(*it, t0.Add(3*time.Hour)); got != poll {
		t.Errorf("the kept item's poll is %s, want a poll", got)
	}
}

// The workqueue merges a watch event with an overdue poll of the same
// item: a key deleted while its poll waits is a delete, not a poll.
func TestAnEventOnAnOverduePollMakesItUrgent(t *testing.T) {
	l := New(1)
	l.rand = func() float64 { return 0 }
	for i := range 10 {
		_ = l.When("t", fmt.Sprint(i), t0) // the burst is spent
	}
	l.Ran("p", reconcile.Result{RequeueAfter: time.Minute}, nil, t0.Add(-2*time.Minute))
	if got := classify(*l.items["p"], t0); got != poll {
		t.Fatalf("an overdue poll is %s, want a poll", got)
	}
	ev := Events("c", l)
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "p"}}
	if !ev.Delete(event.DeleteEvent{Object: obj}) {
		t.Fatal("the predicate dropped an event")
	}
	key := keyOf("c", types.NamespacedName{Namespace: "t", Name: "p"})
	l.Ran(key, reconcile.Result{RequeueAfter: time.Minute}, nil, t0.Add(-2*time.Minute))
	ev.Update(event.UpdateEvent{ObjectOld: obj, ObjectNew: obj})
	if got := classify(*l.items[key], t0); got != urgent {
		t.Errorf("an overdue poll woken by an event is %s, want urgent", got)
	}
	if d := l.When("t", key, t0); d <= 0 || !l.items[key].granted {
		t.Errorf("the woken request waits %s with a slot %v, want a slot in line", d, l.items[key].granted)
	}
	if l.items[key].event {
		t.Error("the event is still noted after its request took its slot")
	}
}
