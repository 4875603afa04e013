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

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

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
