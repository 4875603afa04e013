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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// budgetFixture is a fake with a group "eng" and a user "alice" in it, and
// a user "bob" outside it.
type budgetFixture struct {
	s          *Server
	c          *codersdk.Client
	eng        GroupRow
	alice, bob UserRow
}

func newBudgetFixture(t *testing.T, o Options) budgetFixture {
	t.Helper()
	s, c := start(t, o)
	f := budgetFixture{s: s, c: c}
	f.eng = must[GroupRow](t)(s.CreateGroup("eng"))
	f.alice = must[UserRow](t)(s.CreateUser("alice"))
	f.bob = must[UserRow](t)(s.CreateUser("bob"))
	if err := s.AddGroupMember(f.eng.ID, f.alice.ID); err != nil {
		t.Fatal(err)
	}
	return f
}

// raw sends a request with the session token and returns Coder's error or nil.
func raw(ctx context.Context, c *codersdk.Client, method, path, body string) error {
	var b any
	if body != "" {
		b = []byte(body)
	}
	res, err := c.Request(ctx, method, path, b)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		return codersdk.ReadBodyAsError(res)
	}
	return nil
}

func TestAGroupBudgetIsOneRowThatDeleteRestoresToNone(t *testing.T) {
	t.Parallel()
	f := newBudgetFixture(t, Options{})
	ctx := testContext(t)

	_, err := f.c.GroupAIBudget(ctx, f.eng.ID)
	wantAPIError(t, err, http.StatusNotFound, notFoundReply.body.(codersdk.Response))

	first := must[codersdk.GroupAIBudget](t)(f.c.UpsertGroupAIBudget(ctx, f.eng.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: 5_000_000}))
	if first.GroupID != f.eng.ID || first.SpendLimitMicros != 5_000_000 || !first.CreatedAt.Equal(first.UpdatedAt) {
		t.Errorf("first upsert = %+v, want the group's 5000000 created and updated at once", first)
	}
	second := must[codersdk.GroupAIBudget](t)(f.c.UpsertGroupAIBudget(ctx, f.eng.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: 0}))
	if !second.CreatedAt.Equal(first.CreatedAt) || second.UpdatedAt.Before(first.UpdatedAt) || second.SpendLimitMicros != 0 {
		t.Errorf("second upsert = %+v, want created_at kept (%s), updated_at moved on and 0", second, first.CreatedAt)
	}
	if diff := cmp.Diff(second, must[codersdk.GroupAIBudget](t)(f.c.GroupAIBudget(ctx, f.eng.ID))); diff != "" {
		t.Errorf("get after upsert (-upsert +get):\n%s", diff)
	}

	if err := f.c.DeleteGroupAIBudget(ctx, f.eng.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.s.GroupBudgets(); len(got) != 0 {
		t.Errorf("budgets after delete = %v", got)
	}
	_, err = f.c.GroupAIBudget(ctx, f.eng.ID)
	wantAPIError(t, err, http.StatusNotFound, notFoundReply.body.(codersdk.Response))
	wantAPIError(t, f.c.DeleteGroupAIBudget(ctx, f.eng.ID), http.StatusNotFound, notFoundReply.body.(codersdk.Response))
}

func TestBudgetRequestsAreRefusedInCodersOrder(t *testing.T) {
	t.Parallel()
	f := newBudgetFixture(t, Options{})
	ctx := testContext(t)
	budget := "/api/v2/groups/" + f.eng.ID.String() + "/ai/budget"
	override := "/api/v2/users/alice/ai/budget/override"
	tooHigh := codersdk.Response{Message: "Invalid AI spend limit.", Validations: []codersdk.ValidationError{
		{Field: "spend_limit_micros", Detail: "Must not exceed 1000000000000."}}}
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     codersdk.Response
	}{
		{"negative limit", "PUT", budget, `{"spend_limit_micros":-1}`, 400, codersdk.Response{Message: "Validation failed.",
			Validations: []codersdk.ValidationError{{Field: "spend_limit_micros", Detail: `Validation failed for tag "gte" with value: "-1"`}}}},
		{"limit above the maximum", "PUT", budget, `{"spend_limit_micros":1000000000001}`, 400, tooHigh},
		{"a group id that is not a UUID", "PUT", "/api/v2/groups/eng/ai/budget", `{"spend_limit_micros":1}`, 400,
			codersdk.Response{Message: `Invalid UUID "eng".`, Detail: "invalid UUID length: 3"}},
		{"an unknown group", "GET", "/api/v2/groups/" + uuid.NewString() + "/ai/budget", "", 404, notFoundReply.body.(codersdk.Response)},
		{"override without a group, below zero", "PUT", override, `{"spend_limit_micros":-5}`, 400, codersdk.Response{Message: "Validation failed.",
			Validations: []codersdk.ValidationError{
				{Field: "group_id", Detail: `Validation failed for tag "required" with value: "00000000-0000-0000-0000-000000000000"`},
				{Field: "spend_limit_micros", Detail: `Validation failed for tag "gte" with value: "-5"`}}}},
		{"override above the maximum", "PUT", override, fmt.Sprintf(`{"group_id":%q,"spend_limit_micros":1000000000001}`, f.eng.ID), 400, tooHigh},
		{"override naming an unknown group", "PUT", override, fmt.Sprintf(`{"group_id":%q,"spend_limit_micros":1}`, uuid.New()), 404, notFoundReply.body.(codersdk.Response)},
		{"override for a user outside the group", "PUT", "/api/v2/users/bob/ai/budget/override", fmt.Sprintf(`{"group_id":%q,"spend_limit_micros":1}`, f.eng.ID), 400,
			codersdk.Response{Message: "User is not a member of the referenced group.",
				Validations: []codersdk.ValidationError{{Field: "group_id", Detail: "user must be a member of this group"}}}},
		{"override of an unknown user", "GET", "/api/v2/users/nobody/ai/budget/override", "", 404, notFoundReply.body.(codersdk.Response)},
		{"no override yet", "GET", override, "", 404, notFoundReply.body.(codersdk.Response)},
		{"deleting no override", "DELETE", override, "", 404, notFoundReply.body.(codersdk.Response)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, raw(ctx, f.c, tt.method, tt.path, tt.body), tt.status, tt.want)
		})
	}
	if b, o := f.s.GroupBudgets(), f.s.BudgetOverrides(); len(b) != 0 || len(o) != 0 {
		t.Errorf("refused requests stored budgets %v, overrides %v", b, o)
	}
	// The maximum itself and zero are accepted.
	for _, limit := range []int64{codersdk.MaxAISpendLimitMicros, 0} {
		if _, err := f.c.UpsertGroupAIBudget(ctx, f.eng.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: limit}); err != nil {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
}

func TestAnOverrideNeedsMembershipAndLeavesWithIt(t *testing.T) {
	t.Parallel()
	f := newBudgetFixture(t, Options{})
	ctx := testContext(t)
	req := codersdk.UpsertUserAIBudgetOverrideRequest{GroupID: f.eng.ID, SpendLimitMicros: 7}

	o := must[codersdk.UserAIBudgetOverride](t)(f.c.UpsertUserAIBudgetOverride(ctx, f.alice.ID, req))
	if o.UserID != f.alice.ID || o.GroupID != f.eng.ID || o.SpendLimitMicros != 7 {
		t.Errorf("override = %+v", o)
	}
	// By username, in any case, the same row.
	if err := raw(ctx, f.c, "GET", "/api/v2/users/ALICE/ai/budget/override", ""); err != nil {
		t.Errorf("get by username: %v", err)
	}
	// Everyone's members are the organization's: bob may be attributed there.
	if _, err := f.c.UpsertUserAIBudgetOverride(ctx, f.bob.ID, codersdk.UpsertUserAIBudgetOverrideRequest{GroupID: f.s.OrganizationID()}); err != nil {
		t.Errorf("bob in Everyone: %v", err)
	}

	if err := f.s.RemoveGroupMember(f.eng.ID, f.alice.ID); err != nil {
		t.Fatal(err)
	}
	_, err := f.c.UserAIBudgetOverride(ctx, f.alice.ID)
	wantAPIError(t, err, http.StatusNotFound, notFoundReply.body.(codersdk.Response))

	if err := f.c.DeleteUserAIBudgetOverride(ctx, f.bob.ID); err != nil {
		t.Errorf("delete bob's override: %v", err)
	}
	if got := f.s.BudgetOverrides(); len(got) != 0 {
		t.Errorf("overrides left: %v", got)
	}
}

func TestPremiumRefusalsComeWhereCoderMountsThem(t *testing.T) {
	t.Parallel()
	templateRBAC := codersdk.Response{Message: "Template RBAC is a Premium feature. Contact sales!"}
	tests := []struct {
		name   string
		opts   Options
		token  bool
		path   string
		status int
		want   codersdk.Response
	}{
		// /groups checks the licence before the session.
		{"group budget, unlicensed, no token", Options{Unlicensed: true}, false, "/api/v2/groups/{eng}/ai/budget", 403, templateRBAC},
		{"group budget, unlicensed, not a UUID", Options{Unlicensed: true}, true, "/api/v2/groups/eng/ai/budget", 403, templateRBAC},
		{"group spend, unlicensed", Options{Unlicensed: true}, true, "/api/v2/groups/{eng}/ai/spend", 403, templateRBAC},
		// AI Gateway is checked after the group is resolved.
		{"group budget, AI Gateway off", Options{AIGatewayDisabled: true}, true, "/api/v2/groups/{eng}/ai/budget", 403, premiumReply},
		{"group budget, AI Gateway off, not a UUID", Options{AIGatewayDisabled: true}, true, "/api/v2/groups/eng/ai/budget", 400,
			codersdk.Response{Message: `Invalid UUID "eng".`, Detail: "invalid UUID length: 3"}},
		{"group budget, licensed, no token", Options{}, false, "/api/v2/groups/{eng}/ai/budget", 401,
			codersdk.Response{Message: signedOutMessage, Detail: `Cookie "coder_session_token" or query parameter must be provided.`}},
		// /users/{user}/ai checks AI Gateway before the session.
		{"override, unlicensed, no token", Options{Unlicensed: true}, false, "/api/v2/users/me/ai/budget/override", 403, premiumReply},
		{"user spend, AI Gateway off", Options{AIGatewayDisabled: true}, true, "/api/v2/users/me/ai/spend", 403, premiumReply},
		// /organizations/{organization}/groups checks the session first.
		{"group by name, unlicensed, no token", Options{Unlicensed: true}, false, "/api/v2/organizations/default/groups/eng", 401,
			codersdk.Response{Message: signedOutMessage, Detail: `Cookie "coder_session_token" or query parameter must be provided.`}},
		{"group by name, unlicensed", Options{Unlicensed: true}, true, "/api/v2/organizations/default/groups/eng", 403, templateRBAC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newBudgetFixture(t, tt.opts)
			if !tt.token {
				f.c.SetSessionToken("")
			}
			path := strings.ReplaceAll(tt.path, "{eng}", f.eng.ID.String())
			wantAPIError(t, raw(testContext(t), f.c, "GET", path, ""), tt.status, tt.want)
		})
	}
}

func TestGroupsAndUsersAreFoundByNameAsCoderFindsThem(t *testing.T) {
	t.Parallel()
	f := newBudgetFixture(t, Options{})
	ctx := testContext(t)

	for _, org := range []string{"default", DefaultOrganizationName, f.s.OrganizationID().String()} {
		res, err := f.c.Request(ctx, "GET", "/api/v2/organizations/"+org+"/groups/eng", nil)
		if err != nil {
			t.Fatal(err)
		}
		var g codersdk.Group
		err = decodeOK(res, &g)
		if err != nil || g.ID != f.eng.ID || g.TotalMemberCount != 1 || len(g.Members) != 1 || g.Members[0].ID != f.alice.ID {
			t.Errorf("organization %q: group = %+v, %v; want eng with alice", org, g, err)
		}
	}
	everyone := must[codersdk.Group](t)(f.c.GroupByOrgAndName(ctx, f.s.OrganizationID(), EveryoneGroupName))
	if everyone.ID != f.s.OrganizationID() || everyone.TotalMemberCount != 3 {
		t.Errorf("Everyone = %+v, want the organization's id and all three users", everyone)
	}
	for _, path := range []string{"/api/v2/organizations/default/groups/Eng", "/api/v2/organizations/other/groups/eng", "/api/v2/users/nobody"} {
		wantAPIError(t, raw(ctx, f.c, "GET", path, ""), http.StatusNotFound, notFoundReply.body.(codersdk.Response))
	}
	for _, ident := range []string{"bob", "BOB", f.bob.ID.String()} {
		if u, err := f.c.User(ctx, ident); err != nil || u.ID != f.bob.ID || u.Username != "bob" {
			t.Errorf("user %q = %+v, %v", ident, u, err)
		}
	}
}

func TestSpendIsAttributedToTheEffectiveGroup(t *testing.T) {
	t.Parallel()
	f := newBudgetFixture(t, Options{})
	ctx := testContext(t)
	ops := must[GroupRow](t)(f.s.CreateGroup("ops"))
	if err := f.s.AddGroupMember(ops.ID, f.alice.ID); err != nil {
		t.Fatal(err)
	}
	for g, limit := range map[uuid.UUID]int64{f.eng.ID: 10, ops.ID: 20} {
		if _, err := f.c.UpsertGroupAIBudget(ctx, g, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: limit}); err != nil {
			t.Fatal(err)
		}
	}
	for g, micros := range map[uuid.UUID]int64{f.eng.ID: 3, ops.ID: 4} {
		if err := f.s.SetSpend(f.alice.ID, g, micros); err != nil {
			t.Fatal(err)
		}
	}

	// The highest budget wins without an override.
	st := must[codersdk.UserAISpendStatus](t)(f.c.UserAISpendStatus(ctx, f.alice.ID))
	if *st.EffectiveGroupID != ops.ID || *st.EffectiveBudget != (codersdk.AIBudgetLimit{SpendLimitMicros: 20, LimitSource: codersdk.AIBudgetLimitSourceGroup}) || st.CurrentSpendMicros != 4 {
		t.Errorf("alice without an override = %+v", st)
	}
	if !st.PeriodEnd.Equal(st.PeriodStart.AddDate(0, 1, 0)) || st.PeriodStart.Day() != 1 {
		t.Errorf("period = %s .. %s, want a calendar month", st.PeriodStart, st.PeriodEnd)
	}
	// An override moves her to eng, at her own limit.
	if _, err := f.c.UpsertUserAIBudgetOverride(ctx, f.alice.ID, codersdk.UpsertUserAIBudgetOverrideRequest{GroupID: f.eng.ID, SpendLimitMicros: 50}); err != nil {
		t.Fatal(err)
	}
	st = must[codersdk.UserAISpendStatus](t)(f.c.UserAISpendStatus(ctx, f.alice.ID))
	if *st.EffectiveGroupID != f.eng.ID || st.EffectiveBudget.LimitSource != codersdk.AIBudgetLimitSourceUserOverride || st.CurrentSpendMicros != 3 {
		t.Errorf("alice with an override = %+v", st)
	}
	eng := must[codersdk.GroupAISpend](t)(f.c.GroupAISpend(ctx, f.eng.ID))
	if *eng.SpendLimitMicros != 10 || *eng.TotalSpendLimitMicros != 50 || eng.CurrentSpendMicros != 3 {
		t.Errorf("eng = %+v, want limit 10, total 50 (alice's override), spend 3", eng)
	}
	opsSpend := must[codersdk.GroupAISpend](t)(f.c.GroupAISpend(ctx, ops.ID))
	if *opsSpend.TotalSpendLimitMicros != 0 || opsSpend.CurrentSpendMicros != 4 {
		t.Errorf("ops = %+v, want total 0 (no member attributed), spend 4", opsSpend)
	}
	// Bob has no budget: Everyone, unlimited.
	bob := must[codersdk.UserAISpendStatus](t)(f.c.UserAISpendStatus(ctx, f.bob.ID))
	if *bob.EffectiveGroupID != f.s.OrganizationID() || bob.EffectiveBudget != nil {
		t.Errorf("bob = %+v, want Everyone without a budget", bob)
	}
	everyone := must[codersdk.GroupAISpend](t)(f.c.GroupAISpend(ctx, f.s.OrganizationID()))
	if everyone.SpendLimitMicros != nil || everyone.TotalSpendLimitMicros != nil {
		t.Errorf("Everyone = %+v, want no limits", everyone)
	}
}

func decodeOK(res *http.Response, v any) error {
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return codersdk.ReadBodyAsError(res)
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// A group or user the token may not read is a 404 wherever Coder resolves
// it, as a group that is not there; the rows stay, and show again once
// readable.
func TestAHiddenGroupOrUserIsNotFoundWhereverCoderResolvesIt(t *testing.T) {
	ctx := testContext(t)
	f := newBudgetFixture(t, Options{})
	if _, err := f.c.UpsertGroupAIBudget(ctx, f.eng.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.UpsertUserAIBudgetOverride(ctx, f.alice.ID, codersdk.UpsertUserAIBudgetOverrideRequest{GroupID: f.eng.ID, SpendLimitMicros: 7}); err != nil {
		t.Fatal(err)
	}
	f.s.SetHidden(f.eng.ID, true)
	f.s.SetHidden(f.alice.ID, true)
	for name, err := range map[string]error{
		"group":           func() error { _, err := f.c.Group(ctx, f.eng.ID, codersdk.GroupRequest{}); return err }(),
		"group by name":   func() error { _, err := f.c.GroupByOrgAndName(ctx, f.s.OrganizationID(), "eng"); return err }(),
		"group budget":    func() error { _, err := f.c.GroupAIBudget(ctx, f.eng.ID); return err }(),
		"delete budget":   f.c.DeleteGroupAIBudget(ctx, f.eng.ID),
		"user":            func() error { _, err := f.c.User(ctx, f.alice.ID.String()); return err }(),
		"override":        func() error { _, err := f.c.UserAIBudgetOverride(ctx, f.alice.ID); return err }(),
		"delete override": f.c.DeleteUserAIBudgetOverride(ctx, f.alice.ID),
	} {
		var e *codersdk.Error
		if !errors.As(err, &e) || e.StatusCode() != http.StatusNotFound {
			t.Errorf("%s of a hidden group or user: %v, want 404", name, err)
		}
	}
	if len(f.s.GroupBudgets()) != 1 || len(f.s.BudgetOverrides()) != 1 {
		t.Fatalf("hiding changed Coder: budgets %v, overrides %v", f.s.GroupBudgets(), f.s.BudgetOverrides())
	}
	f.s.SetHidden(f.eng.ID, false)
	f.s.SetHidden(f.alice.ID, false)
	if g, err := f.c.Group(ctx, f.eng.ID, codersdk.GroupRequest{ExcludeMembers: true}); err != nil || g.ID != f.eng.ID || len(g.Members) != 0 {
		t.Errorf("group readable again = (%+v, %v), want it without members", g, err)
	}
	if _, err := f.c.GroupAIBudget(ctx, f.eng.ID); err != nil {
		t.Errorf("budget of a group readable again: %v", err)
	}
}
