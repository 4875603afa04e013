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

package aigatewaykey

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// verifyRetiredAfter is how soon a key whose window is over is looked at
// again: its old key is deleted, and the next list verifies it is gone.
const verifyRetiredAfter = 5 * time.Second

// NextPoll is when a key is reconciled next: the poll interval, or sooner
// when its rotation has a deadline before that (the retire, the next
// periodic rotation), so a settle window ends on time and not up to one
// poll late. The deadlines are Coder's times, so now is Coder's time too.
func NextPoll(o *common.AIGatewayKeyObservation, now time.Time, poll time.Duration) time.Duration {
	r := o.Rotation
	if r == nil {
		return poll
	}
	next := poll
	if at := retireAt(r); at != nil {
		switch d := at.Sub(now); {
		case d > 0:
			// The deadline has second precision in status: one second
			// late is never early.
			next = min(next, d+time.Second)
		case -d < time.Minute:
			// Due: the reconcile that found it due deleted the old key;
			// look again soon to verify it is gone and finish.
			next = min(next, verifyRetiredAfter)
		}
	}
	// A rotation that is due starts in the reconcile that finds it due; one
	// that could not (a ProviderConfig being deleted) waits for the poll.
	if at := timeOf(r.NextRotationAt); at != nil {
		if d := at.Sub(now); d > 0 {
			next = min(next, d+time.Second)
		}
	}
	return next
}

// retireAt is when the retiring key goes, as the status shows it: at the
// end of the settle window (retiresAt); a key that heartbeat too recently
// for that is in use, and goes when its heartbeats are inUseFor old, or at
// revokeBy, whichever is sooner (settle's rule). Nil without a retire.
func retireAt(r *common.AIGatewayKeyRotationObservation) *time.Time {
	at := timeOf(r.RetiresAt)
	if at == nil {
		return nil
	}
	beat := timeOf(r.RetiringKeyLastHeartbeatAt)
	if beat == nil || !beat.Add(inUseFor).After(*at) {
		return at
	}
	idle := beat.Add(inUseFor)
	if by := timeOf(r.RevokeBy); by != nil && by.Before(idle) {
		idle = *by
	}
	if idle.Before(*at) {
		return at
	}
	return &idle
}

func timeOf(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return &t.Time
}

// clocks keeps Coder's clock as each key's last Observe saw it, so the
// poll hook places the rotation's deadlines on our clock. A key's entry
// goes when the key is gone from the cache; should the map fill up, it is
// emptied, and polls fall back to our clock until each key's next Observe.
type clocks struct {
	mu sync.Mutex
	m  map[types.NamespacedName]coder.Clock
}

// maxClocks bounds the clocks kept: far more keys than one provider serves.
const maxClocks = 10000

func newClocks() *clocks { return &clocks{m: map[types.NamespacedName]coder.Clock{}} }

// set keeps the clock of key k; an unknown clock changes nothing. A nil
// clocks keeps nothing.
func (c *clocks) set(k types.NamespacedName, clk coder.Clock) {
	if c == nil || !clk.Known() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok && len(c.m) >= maxClocks {
		clear(c.m)
	}
	c.m[k] = clk
}

// forget drops the clock of key k, gone from the cache.
func (c *clocks) forget(k types.NamespacedName) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// at is the instant now of our clock on the Coder clock of key k, or now
// itself when that clock is not known.
func (c *clocks) at(k types.NamespacedName, now time.Time) time.Time {
	if c == nil {
		return now
	}
	c.mu.Lock()
	clk, ok := c.m[k]
	c.mu.Unlock()
	if !ok {
		return now
	}
	return clk.At(now)
}

// pollHook suits managed.WithPollIntervalHook.
func (c *clocks) pollHook(mg resource.Managed, poll time.Duration) time.Duration {
	k, ok := mg.(Resource)
	if !ok {
		return poll
	}
	return NextPoll(k.KeyObservation(), c.at(nameOf(k), time.Now()), poll)
}

// nameOf is the key of k's clock.
func nameOf(k resource.Managed) types.NamespacedName {
	return types.NamespacedName{Namespace: k.GetNamespace(), Name: k.GetName()}
}
