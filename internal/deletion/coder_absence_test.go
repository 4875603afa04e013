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
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

func TestABudgetsNotFoundCountsOnlyWhileTheTokenSeesItsGroupOrUser(t *testing.T) {
	const group = "8c3e1f4a-8a49-4c7e-9d0e-2f0c6f1b2a3d"
	notFound := codersdk.NewError(http.StatusNotFound, codersdk.Response{Message: "Resource not found or you do not have access to this resource"})
	forbidden := codersdk.NewError(http.StatusForbidden, codersdk.Response{Message: "Forbidden."})
	unavailable := codersdk.NewError(http.StatusBadGateway, codersdk.Response{Message: "Bad gateway."})
	cases := map[string]struct {
		reason     string
		override   bool
		row, sight error
		wantFound  bool
		wantUnseen bool
		wantErr    error
	}{
		"Answered": {
			reason: "Coder answered the row: it is there, whatever the group read says.",
			sight:  notFound, wantFound: true,
		},
		"NotFoundWhileTheGroupIsRead": {
			reason: "The row's 404 with the group readable can only be no row: gone.",
			row:    notFound,
		},
		"NotFoundAndGroupNotFound": {
			reason: "A 404 for the row and the group is also Coder's answer to a token that may not read the group: not gone.",
			row:    notFound, sight: notFound, wantUnseen: true,
		},
		"OverrideNotFoundAndUserNotFound": {
			reason:   "An override's 404 with its user's 404 may mean forbidden: not gone.",
			override: true, row: notFound, sight: notFound, wantUnseen: true,
		},
		"OverrideNotFoundWhileTheUserIsRead": {
			reason:   "An override's 404 with the user readable: gone.",
			override: true, row: notFound,
		},
		"GroupReadFails": {
			reason: "A failed group read proves nothing: its error.",
			row:    notFound, sight: unavailable, wantErr: unavailable,
		},
		"RowForbidden": {
			reason: "A 403 is never absence.",
			row:    forbidden, wantErr: forbidden,
		},
		"RowUnavailable": {
			reason: "A failed read is its error, and the group is not consulted.",
			row:    unavailable, sight: notFound, wantErr: unavailable,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			found, err := RowFound(BudgetClaim{ID: group, Override: tc.override}, tc.row, tc.sight)
			if found != tc.wantFound {
				t.Errorf("\n%s\nRowFound(...): found %t, want %t", tc.reason, found, tc.wantFound)
			}
			if IsUnseen(err) != tc.wantUnseen {
				t.Errorf("\n%s\nRowFound(...): error %v, want unseen %t", tc.reason, err, tc.wantUnseen)
			}
			if tc.wantUnseen && err != nil && !strings.Contains(err.Error(), group) {
				t.Errorf("\n%s\nRowFound(...): error %q does not name %s", tc.reason, err, group)
			}
			if !tc.wantUnseen && !errors.Is(err, tc.wantErr) {
				t.Errorf("\n%s\nRowFound(...): error %v, want %v", tc.reason, err, tc.wantErr)
			}
		})
	}
}

// A budget or override the token loses sight of is neither found for
// deletion nor swept as deleted, and neither read says it is gone; seen
// again, the sweep deletes it.
func TestABudgetWhoseGroupOrUserTheTokenCannotSeeIsNotGone(t *testing.T) {
	ctx := context.Background()
	s, cl := fakeCoder(t)
	g, err := s.CreateGroup("team-a")
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser("alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddGroupMember(g.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	b, err := cl.UpsertGroupAIBudget(ctx, g.ID, 5_000_000)
	if err != nil {
		t.Fatal(err)
	}
	o, err := cl.UpsertUserAIBudgetOverride(ctx, u.ID, g.ID, 7_000_000)
	if err != nil {
		t.Fatal(err)
	}
	claims := []BudgetClaim{
		{ID: g.ID.String(), UpdatedAt: FormatUpdatedAt(b.UpdatedAt)},
		{ID: u.ID.String(), Override: true, UpdatedAt: FormatUpdatedAt(o.UpdatedAt)},
	}
	s.SetHidden(g.ID, true)
	s.SetHidden(u.ID, true)
	for _, c := range claims {
		if f := budgetLeft(ctx, cl, c, nil); !IsUnseen(f.err) {
			t.Errorf("budgetLeft(%+v) of a row the token cannot see: error %v, want an UnseenError", c, f.err)
		}
		if _, err := sweepBudget(ctx, cl, budgetRec(c.ID, c.Override, c.UpdatedAt), nil); !IsUnseen(err) {
			t.Errorf("SweepBudget(%+v) of a row the token cannot see: error %v, want an UnseenError", c, err)
		}
	}
	if _, found, err := GroupBudget(ctx, cl, g.ID.String()); found || !IsUnseen(err) || coder.IsNotFound(err) {
		t.Errorf("GroupBudget of a hidden group = (found %t, %v), want an UnseenError", found, err)
	}
	if _, ok := s.GroupBudgets()[g.ID]; !ok {
		t.Fatal("the group's budget is gone although the token could not see the group")
	}
	if _, ok := s.BudgetOverrides()[u.ID]; !ok {
		t.Fatal("the override is gone although the token could not see the user")
	}

	s.SetHidden(g.ID, false)
	s.SetHidden(u.ID, false)
	for _, c := range claims {
		if superseded, err := sweepBudget(ctx, cl, budgetRec(c.ID, c.Override, c.UpdatedAt), nil); superseded || err != nil {
			t.Errorf("SweepBudget(%+v) seen again = (%t, %v), want (false, nil)", c, superseded, err)
		}
	}
	if len(s.GroupBudgets())+len(s.BudgetOverrides()) != 0 {
		t.Errorf("left in Coder after the sweep: budgets %v, overrides %v", s.GroupBudgets(), s.BudgetOverrides())
	}
}

// IsUnseen reports whether err is, or wraps, an UnseenError.
func IsUnseen(err error) bool {
	var e *UnseenError
	return errors.As(err, &e)
}
