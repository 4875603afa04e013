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
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBreakerFailsFastAfterAStallThenProbesOnce(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	timeout := context.DeadlineExceeded
	type step struct {
		at      time.Duration
		err     error // how the allowed request ended
		allowed bool
		probe   bool
	}
	cases := map[string]struct {
		reason string
		steps  []step
	}{
		"Healthy": {
			reason: "answers keep the breaker closed",
			steps:  []step{{0, nil, true, false}, {time.Second, nil, true, false}},
		},
		"StallOpens": {
			reason: "after a timeout, calls fail at once for one pause",
			steps:  []step{{0, timeout, true, false}, {time.Second, nil, false, false}},
		},
		"ProbeAfterPause": {
			reason: "after the pause one call probes; the others still fail while it runs",
			steps:  []step{{0, timeout, true, false}, {3 * time.Second, errors.New("pending"), true, true}, {3 * time.Second, nil, false, false}},
		},
		"ProbeAnswered": {
			reason: "an answered probe closes the breaker",
			steps:  []step{{0, timeout, true, false}, {3 * time.Second, nil, true, true}, {3 * time.Second, nil, true, false}},
		},
		"ProbeStalled": {
			reason: "a stalled probe opens it for another pause",
			steps:  []step{{0, timeout, true, false}, {3 * time.Second, timeout, true, true}, {4 * time.Second, nil, false, false}},
		},
		"CallerCancelled": {
			reason: "a caller giving up says nothing about Coder",
			steps:  []step{{0, context.Canceled, true, false}, {0, nil, true, false}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &breaker{pause: 2 * time.Second}
			for i, s := range tc.steps {
				probe, err := b.allow(now.Add(s.at))
				type outcome struct{ Allowed, Probe bool }
				if diff := cmp.Diff(outcome{s.allowed, s.probe}, outcome{err == nil, probe}); diff != "" {
					t.Fatalf("%s\nstep %d: -want, +got:\n%s", tc.reason, i, diff)
				}
				if err == nil && (s.err == nil || s.err.Error() != "pending") {
					b.done(probe, s.err, now.Add(s.at))
				}
			}
		})
	}
}

func TestClientFailsFastWhileCoderStalls(t *testing.T) {
	var served atomic.Int64
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	_, c := newServer(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		served.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))

	first := buildInfo(context.Background(), c)
	start := time.Now()
	second := buildInfo(context.Background(), c)

	if !IsUnavailable(first) || !IsUnavailable(second) {
		t.Errorf("want both Unavailable, got %v and %v", first, second)
	}
	if d := time.Since(start); d > time.Second || served.Load() != 1 {
		t.Errorf("the second call took %s and Coder saw %d requests; want it refused at once without a request", d, served.Load())
	}
	if Timeout(second) {
		t.Errorf("a call refused before sending is not uncertain: %v", second)
	}
}
