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

package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

// keysOf are n key objects named id-0 ... id-(n-1) in ns.
func keysOf(ns, id string, n int) ([]*unstructured.Unstructured, []string) {
	return objectsOf(keys, ns, id, n)
}

// objectsOf are n objects of k named id-0 ... id-(n-1) in ns.
func objectsOf(k kind, ns, id string, n int) ([]*unstructured.Unstructured, []string) {
	objs := make([]*unstructured.Unstructured, n)
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("%s-%d", id, i)
		objs[i] = k.object(ns, names[i])
	}
	return objs, names
}

// holdLatency deletes a ProviderConfig with n Ready keys first, then the
// keys, and returns how long the ProviderConfig stayed after its last key
// was gone: the hold's release latency.
func (b *bed) holdLatency(ctx context.Context, c coderBed, n int, id string) (time.Duration, error) {
	s, err := b.session(ctx, c, id)
	if err != nil {
		return 0, err
	}
	defer s.close()
	t := track(ctx, b.dyn, keys.gvr, id)
	defer t.stop()
	objs, names := keysOf(id, id, n)
	if err := s.create(ctx, objs); err != nil {
		return 0, err
	}
	deadline, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if t.until(deadline, func(_, r, _ int) bool { return r == n }).IsZero() {
		return 0, fmt.Errorf("%s: keys not Ready in 10 minutes", id)
	}
	pc := &namespacedv1alpha1.ProviderConfig{}
	pc.Namespace, pc.Name = id, "default"
	if err := b.kube.Delete(ctx, pc); err != nil {
		return 0, err
	}
	if err := s.delete(ctx, keys.gvr, names); err != nil {
		return 0, err
	}
	last := t.until(deadline, func(e, _, _ int) bool { return e == 0 })
	if last.IsZero() {
		return 0, fmt.Errorf("%s: keys not gone in 10 minutes", id)
	}
	var gone time.Time
	err = wait.PollUntilContextTimeout(deadline, 20*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		err := b.kube.Get(ctx, client.ObjectKeyFromObject(pc), pc)
		gone = time.Now()
		return client.IgnoreNotFound(err) == nil && err != nil, nil
	})
	return gone.Sub(last), err
}

// A backlogPoint is the deletion backlog at t: measured and as the queue
// model predicts.
type backlogPoint struct {
	T         float64 `json:"t"`
	Measured  int     `json:"measured"`
	Predicted float64 `json:"predicted"`
}

// A backlogRun is a deletion backlog B0 draining while deletes keep
// arriving at lambda per second, served at mu per second.
type backlogRun struct {
	Coder    string         `json:"coder"`
	Rate     int            `json:"rate"`
	B0       int            `json:"b0"`
	Lambda   float64        `json:"lambda"`
	Mu       float64        `json:"mu"`
	MuFrom   int            `json:"muFromN"`
	Points   []backlogPoint `json:"points"`
	Drained  float64        `json:"drainedSeconds"`
	Forecast float64        `json:"predictedDrainSeconds"`
	// OneDelete is how long one delete took on the same namespace just
	// before the backlog, its polls running: arrivals alone keep lambda
	// times it in flight, the backlog the drain is measured down to.
	OneDelete float64 `json:"oneDeleteSeconds"`
	Floor     int     `json:"drainedAtBacklog"`
	// Ratio is Drained / Forecast: the model holds within 20% when it is
	// between 0.8 and 1.2.
	Ratio float64 `json:"measuredOverPredicted"`
}

// backlog creates b0 + arrivals keys, deletes b0 of them at once and then
// one every 1/lambda seconds, and samples the backlog (keys deleted but
// not yet gone) every half second until it first reaches what arrivals
// alone keep in flight.
func (b *bed) backlog(ctx context.Context, c coderBed, rate, b0 int, lambda, mu float64, id string) (backlogRun, error) {
	r := backlogRun{Coder: c.name, Rate: rate, B0: b0, Lambda: lambda, Mu: mu, Forecast: float64(b0) / (mu - lambda)}
	arrivals := int(math.Ceil(lambda * r.Forecast * 1.5))
	s, err := b.session(ctx, c, id, fmt.Sprintf("--max-reconcile-rate=%d", rate))
	if err != nil {
		return r, err
	}
	defer s.close()
	t := track(ctx, b.dyn, keys.gvr, id)
	defer t.stop()
	objs, names := keysOf(id, id, b0+arrivals+1)
	if err := s.create(ctx, objs); err != nil {
		return r, err
	}
	deadline, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	if t.until(deadline, func(_, rd, _ int) bool { return rd == len(objs) }).IsZero() {
		return r, fmt.Errorf("%s: keys not Ready in 30 minutes", id)
	}
	// One delete alone first: its time, the polls running, is what each
	// arrival takes at best (a Delete, then the reconcile that verifies
	// it, which crossplane-runtime requeues through its 1 s backoff).
	one := time.Now()
	if err := s.delete(ctx, keys.gvr, names[len(names)-1:]); err != nil {
		return r, err
	}
	if t.until(deadline, func(e, _, _ int) bool { return e == len(objs)-1 }).IsZero() {
		return r, fmt.Errorf("%s: one key not gone in 30 minutes", id)
	}
	r.OneDelete = time.Since(one).Seconds()
	objs, names = objs[:len(objs)-1], names[:len(names)-1]
	start := time.Now()
	if err := s.delete(ctx, keys.gvr, names[:b0]); err != nil {
		return r, err
	}
	go func() {
		tick := time.NewTicker(time.Duration(float64(time.Second) / lambda))
		defer tick.Stop()
		for _, n := range names[b0:] {
			select {
			case <-tick.C:
			case <-deadline.Done():
				return
			}
			_ = s.delete(deadline, keys.gvr, []string{n})
		}
	}()
	// What arrivals alone keep in flight: lambda times one delete's time.
	floor := int(math.Ceil(lambda * r.OneDelete))
	r.Floor = floor
	for {
		time.Sleep(500 * time.Millisecond)
		el := time.Since(start).Seconds()
		e, _, _ := t.counts()
		// Deleted and not yet gone: every key below the arrivals sent,
		// minus those already gone.
		sent := b0 + min(arrivals, int(el*lambda))
		backlog := e - (len(objs) - sent)
		r.Points = append(r.Points, backlogPoint{T: el, Measured: backlog, Predicted: math.Max(0, float64(b0)-(mu-lambda)*el)})
		if backlog <= floor && r.Drained == 0 {
			r.Drained = el
		}
		if r.Drained > 0 && el > r.Drained+5 || deadline.Err() != nil {
			break
		}
	}
	return r, deadline.Err()
}
