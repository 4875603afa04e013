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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
)

// AI cost controls: a group's AI budget, a user's override of it, the spend
// they are measured against, and the lookups that turn the names a spec
// holds into the ids these calls take. Budgets need AI Gateway (the AI
// Governance add-on) and groups Template RBAC: both Premium, so an
// unlicensed Coder answers 403 (see CauseGroupsNotLicensed).
const (
	EndpointUser                = "/api/v2/users/{user}"
	EndpointGroupByName         = "/api/v2/organizations/{organization}/groups/{groupName}"
	EndpointGroup               = "/api/v2/groups/{group}"
	EndpointGroupBudget         = "/api/v2/groups/{group}/ai/budget"
	EndpointGroupSpend          = "/api/v2/groups/{group}/ai/spend"
	EndpointUserBudgetOverride  = "/api/v2/users/{user}/ai/budget/override"
	EndpointUserSpend           = "/api/v2/users/{user}/ai/spend"
	errFmtUserIdent             = "%q is neither a user id nor a Coder username (letters, digits and single hyphens, at most 32)"
	errFmtOrganization          = "%q is neither an organization id nor a Coder organization name"
	errFmtGroupName             = "%q is not a Coder group name (letters, digits and single hyphens, at most 255)"
	msgPremiumTemplateRBAC      = "Template RBAC is a Premium feature"
	detailOverrideNeedsMembship = "user must be a member of this group"
)

// CauseGroupsNotLicensed is why Coder refuses a group's route: groups are
// Template RBAC, which only a licence grants (enterprise/coderd/coderd.go
// templateRBACEnabledMW).
const CauseGroupsNotLicensed = "Coder is not licensed for groups (Template RBAC), which AI budgets need " +
	"(add a Coder licence with the AI Governance add-on)"

// User returns a user by id or username ("me" is the token's user).
func (c *Client) User(ctx context.Context, ident string) (codersdk.User, error) {
	if err := checkUserIdent(http.MethodGet, EndpointUser, ident); err != nil {
		return codersdk.User{}, err
	}
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointUser)
	u, err := c.sdk.User(ctx, ident)
	return u, wrap(rec, err)
}

// GroupByName returns a group of an organization, with its members.
// organization is an id or a name; empty is Coder's default organization.
func (c *Client) GroupByName(ctx context.Context, organization, name string) (codersdk.Group, error) {
	if organization == "" {
		organization = codersdk.DefaultOrganization
	}
	if err := checkOrganization(organization); err != nil {
		return codersdk.Group{}, err
	}
	if codersdk.GroupNameValid(name) != nil {
		return codersdk.Group{}, localError(http.MethodGet, EndpointGroupByName, fmt.Sprintf(errFmtGroupName, name))
	}
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointGroupByName)
	var g codersdk.Group
	err := c.getJSON(ctx, fmt.Sprintf("/api/v2/organizations/%s/groups/%s", organization, name), &g)
	return g, wrap(rec, err)
}

// Group returns a group by id, without its members. Coder answers 404 both
// for a group that does not exist and for one the token may not read
// (httpmw.ExtractGroupParam reads dbauthz's refusal with
// httpapi.Is404Error), so a 200 is what proves the token sees the group.
func (c *Client) Group(ctx context.Context, group uuid.UUID) (codersdk.Group, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointGroup)
	g, err := c.sdk.Group(ctx, group, codersdk.GroupRequest{ExcludeMembers: true})
	return g, wrap(rec, err)
}

// GroupAIBudget returns a group's AI budget. A group without one is a
// NotFound error: Coder's default, no limit.
func (c *Client) GroupAIBudget(ctx context.Context, group uuid.UUID) (codersdk.GroupAIBudget, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointGroupBudget)
	b, err := c.sdk.GroupAIBudget(ctx, group)
	return b, wrap(rec, err)
}

// UpsertGroupAIBudget sets a group's AI budget, per member per budget
// period, creating it if there is none. Coder's answer carries the row's
// updated_at, which tells this write from a later one.
func (c *Client) UpsertGroupAIBudget(ctx context.Context, group uuid.UUID, spendLimitMicros int64) (codersdk.GroupAIBudget, error) {
	ctx, rec := c.begin(ctx, http.MethodPut, EndpointGroupBudget)
	b, err := c.sdk.UpsertGroupAIBudget(ctx, group, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: spendLimitMicros})
	return b, wrap(rec, err)
}

// DeleteGroupAIBudget removes a group's AI budget, which restores Coder's
// default. A group without one is a NotFound error.
func (c *Client) DeleteGroupAIBudget(ctx context.Context, group uuid.UUID) error {
	ctx, rec := c.begin(ctx, http.MethodDelete, EndpointGroupBudget)
	return wrap(rec, c.sdk.DeleteGroupAIBudget(ctx, group))
}

// GroupAISpend returns a group's budget, the combined budget of the members
// attributed to it and their spend in the current budget period.
func (c *Client) GroupAISpend(ctx context.Context, group uuid.UUID) (codersdk.GroupAISpend, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointGroupSpend)
	s, err := c.sdk.GroupAISpend(ctx, group)
	return s, wrap(rec, err)
}

// UserAIBudgetOverride returns a user's override of its group budget. A user
// without one is a NotFound error.
func (c *Client) UserAIBudgetOverride(ctx context.Context, user uuid.UUID) (codersdk.UserAIBudgetOverride, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointUserBudgetOverride)
	o, err := c.sdk.UserAIBudgetOverride(ctx, user)
	return o, wrap(rec, err)
}

// UpsertUserAIBudgetOverride sets a user's own limit and the group its spend
// is attributed to. A user outside that group is an Invalid error for which
// IsNotGroupMember is true.
func (c *Client) UpsertUserAIBudgetOverride(ctx context.Context, user, group uuid.UUID, spendLimitMicros int64) (codersdk.UserAIBudgetOverride, error) {
	ctx, rec := c.begin(ctx, http.MethodPut, EndpointUserBudgetOverride)
	o, err := c.sdk.UpsertUserAIBudgetOverride(ctx, user, codersdk.UpsertUserAIBudgetOverrideRequest{GroupID: group, SpendLimitMicros: spendLimitMicros})
	return o, wrap(rec, err)
}

// DeleteUserAIBudgetOverride removes a user's override, so its group budget
// applies again. A user without one is a NotFound error.
func (c *Client) DeleteUserAIBudgetOverride(ctx context.Context, user uuid.UUID) error {
	ctx, rec := c.begin(ctx, http.MethodDelete, EndpointUserBudgetOverride)
	return wrap(rec, c.sdk.DeleteUserAIBudgetOverride(ctx, user))
}

// UserAISpend returns the budget that applies to a user, the group its
// spend is attributed to and that spend in the current budget period.
func (c *Client) UserAISpend(ctx context.Context, user uuid.UUID) (codersdk.UserAISpendStatus, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointUserSpend)
	s, err := c.sdk.UserAISpendStatus(ctx, user)
	return s, wrap(rec, err)
}

// IsNotGroupMember is true when Coder refused an override because the user
// is not a member of the group it names
// (enterprise/coderd/aibridge.go upsertUserAIBudgetOverride).
func IsNotGroupMember(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.status != http.StatusBadRequest {
		return false
	}
	for _, v := range e.validations {
		if v.Field == "group_id" && v.Detail == detailOverrideNeedsMembship {
			return true
		}
	}
	return false
}

// getJSON GETs path and decodes a 200's body into out, for the calls
// codersdk has no method of this shape for.
func (c *Client) getJSON(ctx context.Context, path string, out any) error {
	res, err := c.sdk.Request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return codersdk.ReadBodyAsError(res)
	}
	return json.NewDecoder(res.Body).Decode(out)
}

// checkUserIdent refuses what codersdk would paste into the path unescaped,
// so an identifier can never address another endpoint.
func checkUserIdent(method, endpoint, ident string) error {
	if _, err := uuid.Parse(ident); err == nil || codersdk.NameValid(ident) == nil {
		return nil
	}
	return localError(method, endpoint, fmt.Sprintf(errFmtUserIdent, ident))
}

func checkOrganization(org string) error {
	if _, err := uuid.Parse(org); err == nil || codersdk.NameValid(org) == nil {
		return nil
	}
	return localError(http.MethodGet, EndpointGroupByName, fmt.Sprintf(errFmtOrganization, org))
}

func localError(method, endpoint, message string) error {
	return &Error{method: method, endpoint: endpoint, message: message, local: true}
}
