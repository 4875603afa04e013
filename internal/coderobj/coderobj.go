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

// Package coderobj answers, for each managed kind, the three questions a
// deletion asks of Coder: which objects are this owner's, delete them, and
// are they gone. The external clients and the sweeper both ask it, so
// ownership and absence are decided one way. Ownership is proven by what the
// provider recorded (ids, UID-derived names, the time of its own create
// attempt), never by anything a tenant can write or a server can claim. It
// never touches Kubernetes.
package coderobj

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// ErrStillPresent is the error of an object still in Coder after its delete
// was accepted.
const ErrStillPresent = "still present in Coder after delete"

// Clock skew allowed when matching Coder's creation time of an object to our
// create attempt: the attempt is recorded in whole seconds, by our clock,
// before the request is sent; Coder dates rows by its own clock, when the
// request commits.
const (
	skewBefore = 5 * time.Second
	skewAfter  = 30 * time.Second
)

// CreatedByAttempt reports whether an object Coder dated createdAt can be
// the result of a create sent at attempt, whose request timeout bounded how
// late it could commit. An object dated outside that window was created by
// someone else, before or after us.
func CreatedByAttempt(createdAt, attempt time.Time, timeout time.Duration) bool {
	if attempt.IsZero() {
		return false
	}
	return !createdAt.Before(attempt.Add(-skewBefore)) && !createdAt.After(attempt.Add(timeout+skewAfter))
}

// Managed reports whether a live managed resource other than the claim's
// owner names an id as its external name: an object one of them manages
// belongs to it (it was imported), whatever a record of an earlier owner
// says. Nil manages nothing.
type Managed func(id string) bool

func (m Managed) has(id string) bool { return m != nil && m(id) }

func errStillPresent() error { return errors.New(ErrStillPresent) }
