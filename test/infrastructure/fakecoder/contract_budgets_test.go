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

package fakecoder_test

import (
	"context"
	"testing"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The AI budget contract: a group's budget and a user's override, the
// spend read against them, and the lookups that name the group and the
// user. Groups are a Premium feature (Template RBAC) and budgets need AI
// Gateway, so without a licence every budget request is refused; which
// refusal, and whether before or after the session, depends on the route
// (enterprise/coderd/coderd.go).
//
// Not compared with a real server: a token that may not read a group or
// user (Server.SetHidden). The fake answers 404 for it and for its budget,
// as httpmw.ExtractGroupParam and ExtractUserParam read dbauthz's refusal
// with httpapi.Is404Error in v2.36.0 (see
// docs/explanation/not-found-audit.md); a real server needs a licence to
// answer any budget route, which CI's does not have.

// budgetContractGroup is the group the licensed contract budgets; the
// member user (realcoder's NewMember) is its one member, the owner is not.
const budgetContractGroup = "contract-budget"

// licensedBudgetsContract needs {budgetGroup}, the id of
// budgetContractGroup, saved by setupBudgetContract.
var licensedBudgetsContract = []step{
	{name: "group by name", as: owner, method: "GET", path: "/api/v2/organizations/default/groups/" + budgetContractGroup, check: checkShape, wantRes: 200},
	{name: "group by a name no group has", as: owner, method: "GET", path: "/api/v2/organizations/default/groups/contract-none", wantRes: 404},
	{name: "group by name in an organization that does not exist", as: owner, method: "GET", path: "/api/v2/organizations/contract-none/groups/" + budgetContractGroup, wantRes: 404},
	{name: "group by id", as: owner, method: "GET", path: "/api/v2/groups/{budgetGroup}?exclude_members=true", check: checkShape, wantRes: 200},
	{name: "group by an id no group has", as: owner, method: "GET", path: "/api/v2/groups/" + noKey, wantRes: 404},
	{name: "group budget, none yet", as: owner, method: "GET", path: "/api/v2/groups/{budgetGroup}/ai/budget", wantRes: 404},
	{name: "delete group budget, none yet", as: owner, method: "DELETE", path: "/api/v2/groups/{budgetGroup}/ai/budget", wantRes: 404},
	{name: "put group budget below zero", as: owner, method: "PUT", path: "/api/v2/groups/{budgetGroup}/ai/budget", body: `{"spend_limit_micros":-1}`, wantRes: 400},
	{name: "put group budget above the maximum", as: owner, method: "PUT", path: "/api/v2/groups/{budgetGroup}/ai/budget", body: `{"spend_limit_micros":1000000000001}`, wantRes: 400},
	{name: "put group budget, not JSON", as: owner, method: "PUT", path: "/api/v2/groups/{budgetGroup}/ai/budget", body: `not json`, wantRes: 400},
	{name: "put group budget on a group id that is not a UUID", as: owner, method: "PUT", path: "/api/v2/groups/" + budgetContractGroup + "/ai/budget", body: `{"spend_limit_micros":1}`, wantRes: 400},
	{name: "put group budget on a group that does not exist", as: owner, method: "PUT", path: "/api/v2/groups/" + noKey + "/ai/budget", body: `{"spend_limit_micros":1}`, wantRes: 404},
	{name: "put group budget", as: owner, method: "PUT", path: "/api/v2/groups/{budgetGroup}/ai/budget", body: `{"spend_limit_micros":5000000}`, wantRes: 200},
	{name: "put group budget again", as: owner, method: "PUT", path: "/api/v2/groups/{budgetGroup}/ai/budget", body: `{"spend_limit_micros":1000000000000}`, wantRes: 200},
	{name: "group budget", as: owner, method: "GET", path: "/api/v2/groups/{budgetGroup}/ai/budget", wantRes: 200},
	{name: "group spend", as: owner, method: "GET", path: "/api/v2/groups/{budgetGroup}/ai/spend", wantRes: 200},
	{name: "group budget without a token", as: anonymous, method: "GET", path: "/api/v2/groups/{budgetGroup}/ai/budget", wantRes: 401},
	{name: "override for a user outside the group", as: owner, method: "PUT", path: "/api/v2/users/me/ai/budget/override",
		body: `{"group_id":"{budgetGroup}","spend_limit_micros":1}`, wantRes: 400},
	{name: "override without a group, below zero", as: owner, method: "PUT", path: "/api/v2/users/member/ai/budget/override", body: `{"spend_limit_micros":-1}`, wantRes: 400},
	{name: "override naming a group that does not exist", as: owner, method: "PUT", path: "/api/v2/users/member/ai/budget/override",
		body: `{"group_id":"` + noKey + `","spend_limit_micros":1}`, wantRes: 404},
	{name: "override of a user that does not exist", as: owner, method: "GET", path: "/api/v2/users/contract-none/ai/budget/override", wantRes: 404},
	{name: "override, none yet", as: owner, method: "GET", path: "/api/v2/users/member/ai/budget/override", wantRes: 404},
	{name: "put override", as: owner, method: "PUT", path: "/api/v2/users/member/ai/budget/override",
		body: `{"group_id":"{budgetGroup}","spend_limit_micros":7000000}`, wantRes: 200},
	{name: "override by username in capitals", as: owner, method: "GET", path: "/api/v2/users/MEMBER/ai/budget/override", wantRes: 200},
	{name: "user spend with an override", as: owner, method: "GET", path: "/api/v2/users/member/ai/spend", wantRes: 200},
	{name: "user spend without a budget of its own", as: owner, method: "GET", path: "/api/v2/users/me/ai/spend", check: checkShape, wantRes: 200},
	{name: "override without a token", as: anonymous, method: "GET", path: "/api/v2/users/member/ai/budget/override", wantRes: 401},
	{name: "delete override", as: owner, method: "DELETE", path: "/api/v2/users/member/ai/budget/override", wantRes: 204},
	{name: "delete override again", as: owner, method: "DELETE", path: "/api/v2/users/member/ai/budget/override", wantRes: 404},
	{name: "delete group budget", as: owner, method: "DELETE", path: "/api/v2/groups/{budgetGroup}/ai/budget", wantRes: 204},
	{name: "group budget after delete", as: owner, method: "GET", path: "/api/v2/groups/{budgetGroup}/ai/budget", wantRes: 404},
}

// unlicensedBudgetsContract is what a deployment without a licence answers.
var unlicensedBudgetsContract = []step{
	{name: "user by username without a license", as: owner, method: "GET", path: "/api/v2/users/member", check: checkShape, wantRes: 200},
	{name: "user by username that does not exist", as: owner, method: "GET", path: "/api/v2/users/contract-none", wantRes: 404},
	{name: "user by username without a token", as: anonymous, method: "GET", path: "/api/v2/users/member", wantRes: 401},
	// /organizations/{organization}/groups: the session, then Template RBAC.
	{name: "group by name without a license", as: owner, method: "GET", path: "/api/v2/organizations/default/groups/Everyone", wantRes: 403},
	{name: "group by name without a license or a token", as: anonymous, method: "GET", path: "/api/v2/organizations/default/groups/Everyone", wantRes: 401},
	// /groups: Template RBAC before the session and the group's id.
	{name: "group by id without a license", as: owner, method: "GET", path: "/api/v2/groups/" + noKey, wantRes: 403},
	{name: "group by id without a license or a token", as: anonymous, method: "GET", path: "/api/v2/groups/" + noKey, wantRes: 403},
	{name: "group budget without a license", as: owner, method: "GET", path: "/api/v2/groups/" + noKey + "/ai/budget", wantRes: 403},
	{name: "group budget without a license or a token", as: anonymous, method: "GET", path: "/api/v2/groups/" + noKey + "/ai/budget", wantRes: 403},
	{name: "group budget of a group id that is not a UUID without a license", as: owner, method: "GET", path: "/api/v2/groups/x/ai/budget", wantRes: 403},
	{name: "put group budget without a license", as: owner, method: "PUT", path: "/api/v2/groups/" + noKey + "/ai/budget", body: `{"spend_limit_micros":1}`, wantRes: 403},
	{name: "delete group budget without a license", as: owner, method: "DELETE", path: "/api/v2/groups/" + noKey + "/ai/budget", wantRes: 403},
	{name: "group spend without a license", as: owner, method: "GET", path: "/api/v2/groups/" + noKey + "/ai/spend", wantRes: 403},
	// /users/{user}/ai: AI Gateway before the session and the user.
	{name: "override without a license", as: owner, method: "GET", path: "/api/v2/users/me/ai/budget/override", wantRes: 403},
	{name: "override without a license or a token", as: anonymous, method: "GET", path: "/api/v2/users/me/ai/budget/override", wantRes: 403},
	{name: "override of a user that does not exist without a license", as: owner, method: "GET", path: "/api/v2/users/contract-none/ai/budget/override", wantRes: 403},
	{name: "put override without a license", as: owner, method: "PUT", path: "/api/v2/users/member/ai/budget/override",
		body: `{"group_id":"` + noKey + `","spend_limit_micros":1}`, wantRes: 403},
	{name: "delete override without a license", as: owner, method: "DELETE", path: "/api/v2/users/member/ai/budget/override", wantRes: 403},
	{name: "user spend without a license", as: owner, method: "GET", path: "/api/v2/users/me/ai/spend", wantRes: 403},
}

// addContractMember gives the fake the user realcoder's NewMember made on
// the real Coder, so both answer for /users/member.
func addContractMember(t *testing.T, fake *fakecoder.Server) fakecoder.UserRow {
	t.Helper()
	u, err := fake.CreateUser("member")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// setupBudgetContract makes budgetContractGroup with the member in it on
// both servers and saves its id as {budgetGroup}. On the real Coder it
// needs a licence: groups are Template RBAC.
func setupBudgetContract(ctx context.Context, t *testing.T, coder *realcoder.Coder, fake *fakecoder.Server, member fakecoder.UserRow, targets []*target) {
	t.Helper()
	g, err := fake.CreateGroup(budgetContractGroup)
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.AddGroupMember(g.ID, member.ID); err != nil {
		t.Fatal(err)
	}
	targets[0].vars["budgetGroup"] = g.ID.String()

	owner := coder.Client()
	org, err := owner.OrganizationByName(ctx, codersdk.DefaultOrganization)
	if err != nil {
		t.Fatal(err)
	}
	u, err := owner.User(ctx, "member")
	if err != nil {
		t.Fatal(err)
	}
	rg, err := owner.CreateGroup(ctx, org.ID, codersdk.CreateGroupRequest{Name: budgetContractGroup})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.PatchGroup(ctx, rg.ID, codersdk.PatchGroupRequest{AddUsers: []string{u.ID.String()}}); err != nil {
		t.Fatal(err)
	}
	targets[1].vars["budgetGroup"] = rg.ID.String()
}
