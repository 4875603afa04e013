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

package fakecoder

import (
	"net/http"
	"testing"

	"github.com/coder/coder/v2/codersdk"
)

func TestTheAdminAPIShapesGroupsMembersAndSpend(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	a := &AdminClient{BaseURL: s.URL()}

	u := must[UserRow](t)(a.CreateUser(ctx, "carol"))
	g := must[GroupRow](t)(a.CreateGroup(ctx, "data"))
	if _, err := a.CreateGroup(ctx, "data"); err == nil {
		t.Error("a second group named data was created")
	}
	if err := a.AddGroupMember(ctx, g.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpsertUserAIBudgetOverride(ctx, u.ID, codersdk.UpsertUserAIBudgetOverrideRequest{GroupID: g.ID, SpendLimitMicros: 9}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpsertGroupAIBudget(ctx, g.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: 4}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetSpend(ctx, u.ID, g.ID, 6); err != nil {
		t.Fatal(err)
	}
	if got := must[codersdk.GroupAISpend](t)(c.GroupAISpend(ctx, g.ID)).CurrentSpendMicros; got != 6 {
		t.Errorf("spend = %d, want 6", got)
	}
	b := must[AdminBudgets](t)(a.Budgets(ctx))
	if b.Groups[g.ID].SpendLimitMicros != 4 || b.Overrides[u.ID].SpendLimitMicros != 9 {
		t.Errorf("budgets = %+v", b)
	}

	// Leaving the group takes the override with it; deleting the group its budget.
	if err := a.RemoveGroupMember(ctx, g.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteGroup(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if b := must[AdminBudgets](t)(a.Budgets(ctx)); len(b.Groups) != 0 || len(b.Overrides) != 0 {
		t.Errorf("budgets after the group went = %+v", b)
	}
	if got := admin(t, s.URL(), http.MethodDelete, "/groups/"+g.ID.String(), nil, nil); got != http.StatusNotFound {
		t.Errorf("deleting the group again = %d, want 404", got)
	}
	if err := a.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if users, groups := s.Users(), s.Groups(); len(users) != 1 || len(groups) != 1 || groups[0].Name != EveryoneGroupName {
		t.Errorf("after reset: users %+v, groups %+v; want the session's user and Everyone", users, groups)
	}
}
