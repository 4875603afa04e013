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

package deletion

import (
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// ErrStillPresent is the error of an object still in Coder after its delete
// was accepted; a caller that wraps it can still tell it apart
// (isStillPresent, errors.Is).
var ErrStillPresent = errors.New("still present in Coder after delete")

// errUndated is the error of a comparison of one of Coder's timestamps with
// an instant of ours that no answer of Coder could place on its clock: its
// answers carried no Date header.
var errUndated = errors.New("cannot compare Coder's timestamps with the provider's clock: Coder's answers carry no Date header")

// errPredates is the error of an object a claim names that Coder created
// before the claim could have made it: the claim is not settled, and the
// object is not deleted.
var errPredates = errors.New("it predates the cleanup record that names it, so it is not deleted and the record is kept")

// Clock skew allowed when matching Coder's creation time of an object to our
// create attempt, on Coder's clock: the attempt is recorded in whole seconds,
// before the request is sent; Coder dates rows when the request commits;
// and an answer's Date, which places the attempt on Coder's clock, is in
// whole seconds and stamped before the answer travelled.
const (
	skewBefore = 5 * time.Second
	skewAfter  = 30 * time.Second
)

// CreatedByAttempt reports whether an object Coder dated createdAt can be
// the result of a create sent at attempt (by our clock), whose request
// timeout bounded how late it could commit. The attempt is placed on
// Coder's clock first: Coder's clock may run minutes apart from ours. An
// object dated outside that window was created by someone else, before or
// after us. It is errUndated when clock is not known.
func CreatedByAttempt(createdAt, attempt time.Time, timeout time.Duration, clock coder.Clock) (bool, error) {
	if attempt.IsZero() {
		return false, nil
	}
	if !clock.Known() {
		return false, errUndated
	}
	at := clock.At(attempt)
	return !createdAt.Before(at.Add(-skewBefore)) && !createdAt.After(at.Add(timeout+skewAfter)), nil
}

// notBefore is nil when an object Coder dated createdAt can have been made
// after notBefore (by our clock; zero bounds nothing), placed on Coder's
// clock. Otherwise the object is not what the claim names, but it is not
// absent either: errPredates, or errUndated when the clock is not known.
func notBefore(what string, createdAt, notBefore time.Time, clock coder.Clock) error {
	switch {
	case notBefore.IsZero():
		return nil
	case !clock.Known():
		return errors.Wrap(errUndated, what)
	case createdAt.Before(clock.At(notBefore)):
		return errors.Wrapf(errPredates, "%s was created %s, before the record (%s), both on Coder's clock", what,
			createdAt.UTC().Format(time.RFC3339), clock.At(notBefore).UTC().Format(time.RFC3339))
	}
	return nil
}

// Owned reports whether a live managed resource other than the claim's
// owner holds an id (liveOwners decides who does): an object another
// resource holds is its own (it imported it), whatever a record of an
// earlier owner says, and is never deleted for the claim. Nil holds
// nothing.
type Owned func(id string) bool

func (h Owned) has(id string) bool { return h != nil && h(id) }

// isStillPresent reports whether err is, or wraps, an object still in
// Coder after its delete.
func isStillPresent(err error) bool { return errors.Is(err, ErrStillPresent) }

// An UnseenError is a budget row's 404 that proves nothing: Coder answered
// 404 for the row and for its group (or user), which Coder also answers
// when the token may not read it (httpmw.ExtractGroupParam and
// ExtractUserParam read dbauthz's refusal with httpapi.Is404Error). The
// row is not taken for gone; whoever asked waits, as on any failed read.
type UnseenError struct {
	// ID is the group's id, or the user's for an override.
	ID string
	// Override: the row is a user's override.
	Override bool
}

func (e *UnseenError) Error() string {
	if e.Override {
		return fmt.Sprintf("Coder answers 404 for the AI budget override of user %s and for the user itself: "+
			"the user is gone or the token may not read it (Coder answers both alike), so the override is not taken for deleted; "+
			"give the token's user read on users (e.g. the Owner or User Admin role)", e.ID)
	}
	return fmt.Sprintf("Coder answers 404 for the AI budget of group %s and for the group itself: "+
		"the group is gone or the token may not read it (Coder answers both alike), so the budget is not taken for deleted; "+
		"give the token's user read on the group (e.g. the Owner, User Admin or Organization User Admin role)", e.ID)
}

// RowFound is the one rule by which a budget row's read counts: found is
// true when Coder answered the row (rowErr nil), false only when Coder
// answered 404 for the row while the token reads its group, or its user for
// an override (sightErr nil: Coder answered that read). A 404 for the row
// and for the group or user proves nothing, for Coder answers it for
// "forbidden" too: an UnseenError. Any other failure is returned as is.
// sightErr is consulted only after a 404 for the row.
//
// Absence is proven, not inferred (DESIGN.md §9): the row's GET runs
// behind the same read of its group (ExtractGroupParam, then dbauthz
// GetGroupAIBudget's read on that group) or of its user (ExtractUserParam,
// then GetUserAIBudgetOverride's read on the user object), so once that
// read answers 200 the row's 404 can only be sql.ErrNoRows.
func RowFound(c BudgetClaim, rowErr, sightErr error) (found bool, err error) {
	switch {
	case rowErr == nil:
		return true, nil
	case !coder.IsNotFound(rowErr):
		return false, rowErr
	case sightErr == nil:
		return false, nil
	case coder.IsNotFound(sightErr):
		return false, &UnseenError{ID: c.ID, Override: c.Override}
	}
	return false, sightErr
}
