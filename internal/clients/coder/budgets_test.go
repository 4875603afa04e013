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
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// budgetFake starts a fake Coder with a group "eng" holding the user
// "alice", and a client for it.
func budgetFake(t *testing.T, o fakecoder.Options) (*fakecoder.Server, *Client, fakecoder.GroupRow, fakecoder.UserRow) {
	t.Helper()
	s := fakecoder.New(o)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	g, err := s.CreateGroup("eng")
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
	c, err := New(Config{URL: s.URL(), Token: s.Token(), Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, g, u
}

func budgetContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestAGroupBudgetIsSetByNameAndDeletingItRestoresNone(t *testing.T) {
	s, c, eng, _ := budgetFake(t, fakecoder.Options{})
	ctx := budgetContext(t)

	g, err := c.GroupByName(ctx, "", "eng")
	if err != nil || g.ID != eng.ID {
		t.Fatalf("GroupByName = %+v, %v; want eng (%s)", g, err, eng.ID)
	}
	if _, err := c.GroupAIBudget(ctx, g.ID); !IsNotFound(err) {
		t.Errorf("budget before any = %v, want NotFound", err)
	}
	b, err := c.UpsertGroupAIBudget(ctx, g.ID, 2_500_000)
	if err != nil || b.GroupID != g.ID || b.SpendLimitMicros != 2_500_000 || b.UpdatedAt.IsZero() {
		t.Fatalf("upsert = %+v, %v", b, err)
	}
	if got, err := c.GroupAIBudget(ctx, g.ID); err != nil || !got.UpdatedAt.Equal(b.UpdatedAt) {
		t.Errorf("budget = %+v, %v; want updated_at %s as the upsert answered", got, err, b.UpdatedAt)
	}
	if err := c.DeleteGroupAIBudget(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteGroupAIBudget(ctx, g.ID); !IsNotFound(err) {
		t.Errorf("second delete = %v, want NotFound", err)
	}
	if _, err := c.GroupAIBudget(ctx, g.ID); !IsNotFound(err) {
		t.Errorf("budget after delete = %v, want NotFound", err)
	}
	if got := s.Requests(fakecoder.EndpointGroupBudgetDelete); got != 2 {
		t.Errorf("deletes sent = %d, want 2", got)
	}
}

func TestAnOverrideOutsideTheGroupIsInvalidAndSaysSo(t *testing.T) {
	s, c, eng, alice := budgetFake(t, fakecoder.Options{})
	ctx := budgetContext(t)
	bob, err := s.CreateUser("bob")
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.UpsertUserAIBudgetOverride(ctx, bob.ID, eng.ID, 1)
	want := "PUT /api/v2/users/{user}/ai/budget/override: 400 Bad Request: User is not a member of the referenced group.; group_id: user must be a member of this group"
	if err == nil || err.Error() != want {
		t.Errorf("override outside the group = %v, want %q", err, want)
	}
	if !IsNotGroupMember(err) || ClassOf(err) != ClassInvalid {
		t.Errorf("IsNotGroupMember = %t, class %s; want true, Invalid", IsNotGroupMember(err), ClassOf(err))
	}

	u, err := c.User(ctx, "alice")
	if err != nil || u.ID != alice.ID {
		t.Fatalf("User(alice) = %+v, %v", u, err)
	}
	o, err := c.UpsertUserAIBudgetOverride(ctx, u.ID, eng.ID, 9)
	if err != nil || o.GroupID != eng.ID || o.SpendLimitMicros != 9 || IsNotGroupMember(err) {
		t.Fatalf("override = %+v, %v", o, err)
	}
	if got, err := c.UserAIBudgetOverride(ctx, u.ID); err != nil || got != o {
		t.Errorf("read back = %+v, %v; want %+v", got, err, o)
	}
	if err := c.DeleteUserAIBudgetOverride(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UserAIBudgetOverride(ctx, u.ID); !IsNotFound(err) {
		t.Errorf("override after delete = %v, want NotFound", err)
	}
}

func TestSpendIsReadForTheGroupAndTheUser(t *testing.T) {
	s, c, eng, alice := budgetFake(t, fakecoder.Options{})
	ctx := budgetContext(t)
	if _, err := c.UpsertGroupAIBudget(ctx, eng.ID, 100); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSpend(alice.ID, eng.ID, 42); err != nil {
		t.Fatal(err)
	}
	gs, err := c.GroupAISpend(ctx, eng.ID)
	if err != nil || gs.CurrentSpendMicros != 42 || gs.SpendLimitMicros == nil || *gs.SpendLimitMicros != 100 {
		t.Errorf("group spend = %+v, %v", gs, err)
	}
	us, err := c.UserAISpend(ctx, alice.ID)
	if err != nil || us.CurrentSpendMicros != 42 || us.EffectiveGroupID == nil || *us.EffectiveGroupID != eng.ID {
		t.Errorf("user spend = %+v, %v", us, err)
	}
}

func TestUnlicensedBudgetsNameTheLicenceTheyNeed(t *testing.T) {
	_, c, eng, alice := budgetFake(t, fakecoder.Options{Unlicensed: true})
	ctx := budgetContext(t)

	_, groupErr := c.GroupAIBudget(ctx, eng.ID)
	_, overrideErr := c.UserAIBudgetOverride(ctx, alice.ID)
	_, byNameErr := c.GroupByName(ctx, "default", "eng")
	for name, tc := range map[string]struct {
		err   error
		cause string
	}{
		"group budget":  {groupErr, CauseGroupsNotLicensed},
		"group by name": {byNameErr, CauseGroupsNotLicensed},
		"override":      {overrideErr, CauseNotLicensed},
	} {
		if !IsForbidden(tc.err) || ForbiddenCause(tc.err) != tc.cause {
			t.Errorf("%s: %v (cause %q), want Forbidden with %q", name, tc.err, ForbiddenCause(tc.err), tc.cause)
		}
	}
}

func TestLookupsRefuseIdentifiersThatWouldAddressAnotherPath(t *testing.T) {
	s, c, _, _ := budgetFake(t, fakecoder.Options{})
	ctx := budgetContext(t)

	_, userErr := c.User(ctx, "../entitlements")
	_, orgErr := c.GroupByName(ctx, "x?y", "eng")
	_, groupErr := c.GroupByName(ctx, "", "eng/../../users")
	_, emptyErr := c.GroupByName(ctx, "", "")
	wants := map[string]struct {
		err  error
		want string
	}{
		"user":         {userErr, `GET /api/v2/users/{user}: "../entitlements" is neither a user id nor a Coder username (letters, digits and single hyphens, at most 32)`},
		"organization": {orgErr, `GET /api/v2/organizations/{organization}/groups/{groupName}: "x?y" is neither an organization id nor a Coder organization name`},
		"group":        {groupErr, `GET /api/v2/organizations/{organization}/groups/{groupName}: "eng/../../users" is not a Coder group name (letters, digits and single hyphens, at most 255)`},
		"empty group":  {emptyErr, `GET /api/v2/organizations/{organization}/groups/{groupName}: "" is not a Coder group name (letters, digits and single hyphens, at most 255)`},
	}
	for name, w := range wants {
		if w.err == nil || w.err.Error() != w.want || ClassOf(w.err) != ClassInvalid {
			t.Errorf("%s: %v (class %s), want Invalid %q", name, w.err, ClassOf(w.err), w.want)
		}
	}
	for _, e := range []string{fakecoder.EndpointUserGet, fakecoder.EndpointGroupByName} {
		if n := s.Requests(e); n != 0 {
			t.Errorf("%s: %d requests sent, want none", e, n)
		}
	}
	// An id and a valid name pass; a user that is not there is NotFound.
	if _, err := c.User(ctx, uuid.NewString()); !IsNotFound(err) {
		t.Errorf("unknown user id: %v, want NotFound", err)
	}
	if _, err := c.GroupByName(ctx, s.OrganizationID().String(), fakecoder.EveryoneGroupName); err != nil {
		t.Errorf("Everyone by the organization's id: %v", err)
	}
}

func TestBudgetErrorsNeverCarryTheToken(t *testing.T) {
	s, c, _, _ := budgetFake(t, fakecoder.Options{})
	ctx := budgetContext(t)
	if err := s.SetFault(fakecoder.EndpointGroupBudgetPut, fakecoder.Fault{Status: 500, Message: "boom " + s.Token()}); err != nil {
		t.Fatal(err)
	}
	_, err := c.UpsertGroupAIBudget(ctx, uuid.New(), 1)
	if err == nil || strings.Contains(err.Error(), s.Token()) || !IsUnavailable(err) {
		t.Errorf("faulted upsert = %v, want Unavailable without the token", err)
	}
}
