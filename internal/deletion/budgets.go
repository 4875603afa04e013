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
// or a user's override).
type Look struct {
	// Named: the external name names the row's group or user.
	Named   bool
	Present bool
	// Ours: Coder shows the updated_at our record holds.
	Ours bool
	// Recorded: our record names the row with an answered updated_at.
	Recorded bool
	Matches  bool
	// MayWrite: Update or Delete is allowed, so an import becomes owner.
	MayWrite    bool
	ObserveOnly bool
}

// A Verdict is what Observe reports, and what it does first.
type Verdict struct {
	Exists   bool
	UpToDate bool
	// Refuse: the row is someone else's (ReasonBudgetExists).
	Refuse bool
	// Adopt: record the updated_at Coder shows, making the row ours.
	Adopt bool
}

// Decide is the whole of a budget row's ownership: a singleton nobody names
// is ours exactly while Coder shows the updated_at of our last PUT; one
// present at the first look without our record is refused unless imported.
func Decide(l Look) Verdict {
	switch {
	case !l.Present && l.Recorded && !l.ObserveOnly:
		// Ours, removed in Coder since (by someone, or by Coder for an
		// override whose user left its group): Update puts it back, and
		// a refusal shows in conditions a failed create would overwrite.
		return Verdict{Exists: true}
	case !l.Present:
		return Verdict{}
	case l.ObserveOnly:
		return Verdict{Exists: true, UpToDate: true}
	case l.Ours || l.Recorded:
		// Ours, or ours until written in Coder since (drift, put back).
		return Verdict{Exists: true, UpToDate: l.Ours && l.Matches}
	case l.Named && l.MayWrite:
		return Verdict{Exists: true, Adopt: true, UpToDate: l.Matches}
	case l.Named:
		return Verdict{Exists: true, UpToDate: true}
	}
	return Verdict{Refuse: true}
}

// A BudgetClaim names a budget row an owner may have: any PUT replaces a
// row, so only the updated_at of the owner's last answered PUT proves it.
type BudgetClaim struct {
	// ID is the group's id, or the user's for an override.
	ID       string
	Override bool
	// UpdatedAt is Coder's answer to the last PUT; empty when none came.
	UpdatedAt string
	// Attempt is when a PUT whose answer was lost was sent.
	Attempt time.Time
}

const errBadUpdatedAt = "the recorded updated_at of the budget is not a time"

// BudgetIsClaims reports whether a row Coder dated updatedAt is the
// claim's: its recorded updated_at to the nanosecond or, after a lost PUT,
// a change within its window (CreatedByAttempt).
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

// FormatUpdatedAt keeps every digit Coder gave (RFC 3339, nanoseconds, UTC).
func FormatUpdatedAt(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// GroupBudget reads a group's budget; found is false only as RowFound says.
func GroupBudget(ctx context.Context, cl *coder.Client, groupID string) (codersdk.GroupAIBudget, bool, error) {
	id, err := parseID(groupID)
	if err != nil {
		return codersdk.GroupAIBudget{}, false, err
	}
	return readRow(BudgetClaim{ID: groupID},
		func() (codersdk.GroupAIBudget, error) { return cl.GroupAIBudget(ctx, id) },
		func() error { _, err := cl.Group(ctx, id); return err })
}

// UserOverride reads a user's override; found is false only as RowFound says.
func UserOverride(ctx context.Context, cl *coder.Client, userID string) (codersdk.UserAIBudgetOverride, bool, error) {
	id, err := parseID(userID)
	if err != nil {
		return codersdk.UserAIBudgetOverride{}, false, err
	}
	return readRow(BudgetClaim{ID: userID, Override: true},
		func() (codersdk.UserAIBudgetOverride, error) { return cl.UserAIBudgetOverride(ctx, id) },
		func() error { _, err := cl.User(ctx, id.String()); return err })
}

// readRow reads the group or user only after the row's 404.
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

func updatedAt(ctx context.Context, cl *coder.Client, c BudgetClaim) (time.Time, bool, error) {
	if c.Override {
		o, found, err := UserOverride(ctx, cl, c.ID)
		return o.UpdatedAt, found, err
	}
	b, found, err := GroupBudget(ctx, cl, c.ID)
	return b.UpdatedAt, found, err
}

// budgetLeft finds the claim's row: left while Coder shows its updated_at,
// superseded once someone wrote it since or another live resource holds it.
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

// BudgetClaimOf is what a group budget or an override record names.
func BudgetClaimOf(rec *clusterv1alpha1.CleanupRecord) BudgetClaim {
	c := BudgetClaim{ID: rec.Status.ExternalID, Override: rec.Spec.Kind == KindUserOverride, UpdatedAt: rec.Status.CoderUpdatedAt}
	if t := rec.Status.CreateAttemptedAt; t != nil {
		c.Attempt = t.Time
	}
	return c
}

// An UnseenError is a row's 404 that proves nothing: Coder answered 404 for
// its group (or user) too, as it does when the token may not read it.
type UnseenError struct {
	// ID is the group's id, or the user's for an override.
	ID       string
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

// RowFound is the one rule by which a budget row's read counts: a 404 is
// gone only while the token reads the row's group (or user), since the
// row's GET runs behind that same read and can then only mean
// sql.ErrNoRows (DESIGN.md §9); a 404 for both is an UnseenError.
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
