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
	"net/http"
	"time"
)

// A Clock is Coder's clock as one of its answers showed it: the answer's
// Date header, and when the answer arrived by our clock. Coder dates its
// rows (a key's creation, its last heartbeat) by its own clock, which may
// run minutes apart from Kubernetes'. An instant of ours meets one of
// Coder's timestamps only once At has placed it on Coder's clock.
type Clock struct {
	// Date is Coder's time when it answered, in whole seconds.
	Date time.Time
	// Received is when the answer arrived, by our clock.
	Received time.Time
}

// Known reports whether the clock comes from an answer that carried a Date.
func (c Clock) Known() bool { return !c.Date.IsZero() && !c.Received.IsZero() }

// At is the instant t of our clock on Coder's clock; zero when t is zero
// or the clock is not known. Date is truncated to the second and stamped
// before the answer travelled, so At runs early by up to a second plus
// the answer's travel time: a Coder timestamp looks that much later than
// it is, never earlier.
func (c Clock) At(t time.Time) time.Time {
	if !c.Known() || t.IsZero() {
		return time.Time{}
	}
	return c.Date.Add(t.Sub(c.Received))
}

// clockOf is the clock of an answer received at received; zero when the
// answer is not a success or carries no Date. An error page may come from
// a proxy in front of Coder, with the proxy's clock.
func clockOf(resp *http.Response, received time.Time) (Clock, bool) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Clock{}, false
	}
	d, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return Clock{}, false
	}
	return Clock{Date: d.UTC(), Received: received}, true
}
