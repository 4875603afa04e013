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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// verifyRetiredAfter is how soon a key whose window is over is looked at
// again: its old key is deleted, and the next list verifies it is gone.
const verifyRetiredAfter = 5 * time.Second

// NextPoll is when a key is reconciled next: the poll interval, or sooner
// when its rotation has a deadline before that (the retiring key's
// RetiresAt, the next periodic rotation), so a settle window ends on time
// and not up to one poll late.
func NextPoll(o *common.AIGatewayKeyObservation, now time.Time, poll time.Duration) time.Duration {
	r := o.Rotation
	if r == nil {
		return poll
	}
	next := poll
	if at := timeOf(r.RetiresAt); at != nil {
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

func timeOf(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return &t.Time
}

// pollHook suits managed.WithPollIntervalHook.
func pollHook(mg resource.Managed, poll time.Duration) time.Duration {
	k, ok := mg.(Resource)
	if !ok {
		return poll
	}
	return NextPoll(k.KeyObservation(), time.Now(), poll)
}
