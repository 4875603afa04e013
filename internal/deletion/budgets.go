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
	"context"
	"fmt"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// A Look is what one Observe gathered about a budget row (a group's budget
// or a user's override): what Coder holds, what this resource's cleanup
// record says it wrote, and whether the row is what the resource asks for.
type Look struct {
	// Named: the resource's external name names the row's key, the group
	// or the user (set by its create, or by a user importing the row).
	Named bool
	// Present: Coder holds the row.
	Present bool
	// Ours: a record of this resource names the row, and Coder shows the
	// updated_at of its last PUT (or, for a PUT whose answer was lost, a
	// change within its window).
	Ours bool
	// Recorded: a record of this resource names the row with the
	// updated_at of a PUT Coder answered (or of an import).
	Recorded bool
	// Matches: the row Coder holds is what the spec asks for (its limit,
	// and an override's group).
	Matches bool
	// MayWrite: the management policies allow Update or Delete, so an
	// import becomes the budget's owner (and writes a record).
	MayWrite bool
	// ObserveOnly: the policies allow neither Create, Update nor Delete.
	ObserveOnly bool
}

// A Verdict is what Observe reports, and what it does first.
type Verdict struct {
	Exists   bool
	UpToDate bool
	// Refuse: the budget in Coder is someone else's, and the resource does
	// not write over it (ReasonBudgetExists).
	Refuse bool
	// Adopt: an import by external name that may write: record the
	// updated_at Coder shows, which makes the budget this resource's.
	Adopt bool
}

// Decide is the whole of a budget's or an override's ownership. A row is a
// singleton nobody names, so ownership is this resource's record, compared
// on Coder's clock: the budget is ours exactly while Coder shows the
// updated_at of our last PUT. A budget present at the first look with no
// record of ours is refused, unless the resource imports it (external name
// set, or observe only). A deleting resource goes by its records
// (findBudgets), which delete only a budget that is still ours.
func Decide(l Look) Verdict {
	switch {
	case !l.Present && l.Recorded && !l.ObserveOnly:
		// Ours, removed in Coder since (by someone, or by Coder: an
		// override whose user left its group). Update puts it back, and
		// a refusal shows in the resource's conditions, which a failed
		// create's bookkeeping would overwrite.
		return Verdict{Exists: true}
	case !l.Present:
		// Coder's default: create it.
		return Verdict{}
	case l.ObserveOnly:
		return Verdict{Exists: true, UpToDate: true}
	case l.Ours || l.Recorded:
		// Ours, or ours until someone wrote it in Coder since (drift,
		// put back by Update).
		return Verdict{Exists: true, UpToDate: l.Ours && l.Matches}
	case l.Named && l.MayWrite:
		return Verdict{Exists: true, Adopt: true, UpToDate: l.Matches}
	case l.Named:
		return Verdict{Exists: true, UpToDate: true}
	}
	return Verdict{Refuse: true}
}

// A BudgetClaim names an AI budget row that an owner may have in Coder: a
// group's budget, or a user's override of it. A row is a singleton nobody
// names, and any PUT replaces it, so neither its key nor Coder's
// created_at proves whose it is: the row is the owner's exactly while
// Coder shows the updated_at its owner's last PUT was answered with.
// Coder's timestamp is compared only with Coder's own.
type BudgetClaim struct {
	// ID is the row's key in Coder: the group's id, or the user's for an
	// override.
	ID string
	// Override: the row is a user's override, not a group's budget.
	Override bool
	// UpdatedAt is the updated_at of the owner's last PUT, as Coder
	// answered it (RFC 3339); empty when no answer arrived.
	UpdatedAt string
	// Attempt is when a PUT whose answer was lost was sent, by our clock;
	// zero when none was. Used only without UpdatedAt.
	Attempt time.Time
}

// errBadUpdatedAt is the error of a recorded updated_at that is not a time.
const errBadUpdatedAt = "the recorded updated_at of the budget is not a time"

// BudgetIsClaims reports whether a budget Coder dated updatedAt is the
// claim's: its recorded updated_at, to the nanosecond Coder gave it, or,
// for a PUT whose answer was lost, a change within that PUT's window on
// Coder's clock (see CreatedByAttempt). errUndated when only the window
// could tell and Coder's clock is not known.
func BudgetIsClaims(c BudgetClaim, updatedAt time.Time, timeout time.Duration, clock coder.Clock) (bool, error) {
	if c.UpdatedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, c.UpdatedAt)
		if err != nil {
			return false, errors.Wrap(err, errBadUpdatedAt)
		}
		return t.Equal(updatedAt), nil
	}
	return CreatedByAttempt(updatedAt, c.Attempt, timeout, clock)
}

// FormatUpdatedAt is how records hold Coder's updated_at: RFC 3339 to the
// nanosecond, in UTC, so no digit Coder gave is lost.
func FormatUpdatedAt(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// GroupBudget reads a group's budget; found is false only when Coder
// answers 404 for the budget while the token reads the group (RowFound).
// A 404 for both is an UnseenError: the group may be gone (with its
// budget) or hidden from the token, and Coder does not say which.
func GroupBudget(ctx context.Context, cl *coder.Client, groupID string) (codersdk.GroupAIBudget, bool, error) {
	id, err := parseID(groupID)
	if err != nil {
		return codersdk.GroupAIBudget{}, false, err
	}
	return readRow(BudgetClaim{ID: groupID},
		func() (codersdk.GroupAIBudget, error) { return cl.GroupAIBudget(ctx, id) },
		func() error { _, err := cl.Group(ctx, id); return err })
}

// UserOverride reads a user's override; found is false only when Coder
// answers 404 for the override while the token reads the user (RowFound).
// Coder deletes an override when its user leaves the group, or the group
// or user goes.
func UserOverride(ctx context.Context, cl *coder.Client, userID string) (codersdk.UserAIBudgetOverride, bool, error) {
	id, err := parseID(userID)
	if err != nil {
		return codersdk.UserAIBudgetOverride{}, false, err
	}
	return readRow(BudgetClaim{ID: userID, Override: true},
		func() (codersdk.UserAIBudgetOverride, error) { return cl.UserAIBudgetOverride(ctx, id) },
		func() error { _, err := cl.User(ctx, id.String()); return err })
}

// readRow reads a budget row and, only after its 404, the group or user
// whose read proves the token sees it; RowFound decides what the two
// answers mean.
func readRow[T any](c BudgetClaim, row func() (T, error), sight func() error) (T, bool, error) {
	got, err := row()
	var seen error
	if coder.IsNotFound(err) {
		seen = sight()
	}
	found, err := RowFound(c, err, seen)
	return got, found, err
}

func parseID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	return id, errors.Wrapf(err, "%q is not a Coder id", s)
}

// updatedAt reads the claim's row: when Coder last changed it, and whether
// it exists.
func updatedAt(ctx context.Context, cl *coder.Client, c BudgetClaim) (time.Time, bool, error) {
	if c.Override {
		o, found, err := UserOverride(ctx, cl, c.ID)
		return o.UpdatedAt, found, err
	}
	b, found, err := GroupBudget(ctx, cl, c.ID)
	return b.UpdatedAt, found, err
}

// budgetLeft finds the claim's row: left while Coder shows the claim's
// updated_at, superseded once someone wrote it since, or once another live
// resource holds it (not read then). A 404 of the row is gone only while
// the token reads its group or user (RowFound).
func budgetLeft(ctx context.Context, cl *coder.Client, c BudgetClaim, owned Owned) found {
	if owned.has(c.ID) {
		return found{superseded: true}
	}
	at, present, err := updatedAt(ctx, cl, c)
	if err != nil || !present {
		return found{err: err}
	}
	ours, err := BudgetIsClaims(c, at, cl.Timeout(), cl.Clock())
	switch {
	case err != nil:
		return found{err: err}
	case !ours:
		return found{superseded: true}
	}
	return found{ids: []string{c.ID}}
}

// BudgetClaimOf is what a group budget or an override record names: the
// group's budget, or the user's override, while Coder shows the updated_at of the provider's last PUT, or, when
// that PUT's answer was lost, a change within its window.
func BudgetClaimOf(rec *clusterv1alpha1.CleanupRecord) BudgetClaim {
	c := BudgetClaim{ID: rec.Status.ExternalID, Override: rec.Spec.Kind == KindUserOverride, UpdatedAt: rec.Status.CoderUpdatedAt}
	if t := rec.Status.CreateAttemptedAt; t != nil {
		c.Attempt = t.Time
	}
	return c
}

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
