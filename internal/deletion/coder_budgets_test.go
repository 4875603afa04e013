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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

func TestBudgetIsClaimsComparesCodersOwnUpdatedAt(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 123456000, time.UTC)
	clock := coder.Clock{Date: at.Truncate(time.Second), Received: at.Truncate(time.Second)}
	cases := map[string]struct {
		reason    string
		claim     BudgetClaim
		updatedAt time.Time
		clock     coder.Clock
		want      bool
		wantErr   bool
	}{
		"Equal": {
			reason: "Coder shows the updated_at of our PUT: ours.",
			claim:  BudgetClaim{UpdatedAt: FormatUpdatedAt(at)}, updatedAt: at, want: true,
		},
		"EqualInAnotherZone": {
			reason: "The same instant in another zone is the same write.",
			claim:  BudgetClaim{UpdatedAt: FormatUpdatedAt(at)}, updatedAt: at.In(time.FixedZone("x", 3600)), want: true,
		},
		"AMicrosecondLater": {
			reason: "A write a microsecond after ours is someone else's.",
			claim:  BudgetClaim{UpdatedAt: FormatUpdatedAt(at)}, updatedAt: at.Add(time.Microsecond),
		},
		"LostAnswerWithinWindow": {
			reason: "A PUT whose answer was lost owns a change within its window on Coder's clock.",
			claim:  BudgetClaim{Attempt: at}, updatedAt: at.Add(2 * time.Second), clock: clock, want: true,
		},
		"LostAnswerLongAfter": {
			reason: "A change long after the lost PUT is someone else's.",
			claim:  BudgetClaim{Attempt: at}, updatedAt: at.Add(time.Hour), clock: clock,
		},
		"NoAnswerNoAttempt": {
			reason: "A record that names a group but sent nothing owns nothing.",
			claim:  BudgetClaim{}, updatedAt: at,
		},
		"Malformed": {
			reason: "A recorded time that is not a time is an error, not a guess.",
			claim:  BudgetClaim{UpdatedAt: "yesterday"}, updatedAt: at, wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := BudgetIsClaims(tc.claim, tc.updatedAt, 10*time.Second, tc.clock)
			if (err != nil) != tc.wantErr {
				t.Fatalf("\n%s\nBudgetIsClaims(...): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nBudgetIsClaims(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSweepGroupBudgetDeletesOnlyWhileUpdatedAtMatches(t *testing.T) {
	ctx := context.Background()
	s, cl := fakeCoder(t)
	g, err := s.CreateGroup("team-a")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := cl.UpsertGroupAIBudget(ctx, g.ID, 5_000_000)
	if err != nil {
		t.Fatal(err)
	}
	claim := budgetRec(g.ID.String(), false, FormatUpdatedAt(ours.UpdatedAt))

	// Someone changes the budget in Coder: the claim's write is superseded.
	s.SetClockOffset(s.ClockOffset() + time.Second)
	if _, err := cl.UpsertGroupAIBudget(ctx, g.ID, 7_000_000); err != nil {
		t.Fatal(err)
	}
	superseded, err := sweepBudget(ctx, cl, claim, nil)
	if err != nil || !superseded {
		t.Fatalf("SweepGroupBudget of a budget written since = (%t, %v), want (true, nil)", superseded, err)
	}
	if _, ok := s.GroupBudgets()[g.ID]; !ok {
		t.Fatal("the sweep deleted a budget someone else wrote")
	}

	// The budget held by another live resource is left too.
	now, err := cl.UpsertGroupAIBudget(ctx, g.ID, 9_000_000)
	if err != nil {
		t.Fatal(err)
	}
	claim.Status.CoderUpdatedAt = FormatUpdatedAt(now.UpdatedAt)
	owned := Owned(func(id string) bool { return id == g.ID.String() })
	if superseded, err := sweepBudget(ctx, cl, claim, owned); err != nil || !superseded {
		t.Fatalf("SweepGroupBudget of a held budget = (%t, %v), want (true, nil)", superseded, err)
	}

	// Still ours: deleted, verified by a 404.
	if superseded, err := sweepBudget(ctx, cl, claim, nil); err != nil || superseded {
		t.Fatalf("SweepGroupBudget of our budget = (%t, %v), want (false, nil)", superseded, err)
	}
	if _, ok := s.GroupBudgets()[g.ID]; ok {
		t.Error("our budget is still in Coder after the sweep")
	}
	// Gone: nothing to do.
	if superseded, err := sweepBudget(ctx, cl, claim, nil); err != nil || superseded {
		t.Errorf("SweepGroupBudget of a gone budget = (%t, %v), want (false, nil)", superseded, err)
	}
}

func TestSweepBudgetOfAnOverrideDeletesOnlyWhileUpdatedAtMatches(t *testing.T) {
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
	ours, err := cl.UpsertUserAIBudgetOverride(ctx, u.ID, g.ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	claim := budgetRec(u.ID.String(), true, FormatUpdatedAt(ours.UpdatedAt))
	if f := budgetLeft(ctx, cl, BudgetClaimOf(claim), nil); f.err != nil || len(f.ids) == 0 {
		t.Fatalf("budgetLeft of our override = (%v, %v), want it found", f.ids, f.err)
	}
	if superseded, err := sweepBudget(ctx, cl, claim, nil); err != nil || superseded {
		t.Fatalf("SweepBudget of our override = (%t, %v), want (false, nil)", superseded, err)
	}
	if _, ok := s.BudgetOverrides()[u.ID]; ok {
		t.Fatal("our override is still in Coder after the sweep")
	}
	if _, err := cl.UpsertUserAIBudgetOverride(ctx, u.ID, g.ID, 7); err != nil {
		t.Fatal(err)
	}
	if superseded, err := sweepBudget(ctx, cl, claim, nil); err != nil || !superseded {
		t.Fatalf("SweepBudget of an override written since = (%t, %v), want (true, nil)", superseded, err)
	}
	if _, ok := s.BudgetOverrides()[u.ID]; !ok {
		t.Error("the sweep deleted an override someone else wrote")
	}
}

// sweepBudget is the sweep of one budget record: whether its row was
// superseded, and its error.
func sweepBudget(ctx context.Context, cl *coder.Client, r *clusterv1alpha1.CleanupRecord, owned Owned) (bool, error) {
	f := sweep(ctx, cl, owned, r)[0]
	return f.superseded, f.err
}
