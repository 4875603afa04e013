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
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// AI cost controls: a group's AI budget (a spend limit per member per
// budget period), a user's override of it, and the spend reported against
// them. Handlers mirror enterprise/coderd/aibridge.go of Coder v2.36.0 and
// the routes its enterprise/coderd/coderd.go mounts.
const (
	EndpointGroupByName       = "GET /api/v2/organizations/{organization}/groups/{groupName}"
	EndpointUserGet           = "GET /api/v2/users/{user}"
	EndpointGroupGet          = "GET /api/v2/groups/{group}"
	EndpointGroupBudgetGet    = "GET /api/v2/groups/{group}/ai/budget"
	EndpointGroupBudgetPut    = "PUT /api/v2/groups/{group}/ai/budget"
	EndpointGroupBudgetDelete = "DELETE /api/v2/groups/{group}/ai/budget"
	EndpointGroupSpend        = "GET /api/v2/groups/{group}/ai/spend"
	EndpointOverrideGet       = "GET /api/v2/users/{user}/ai/budget/override"
	EndpointOverridePut       = "PUT /api/v2/users/{user}/ai/budget/override"
	EndpointOverrideDelete    = "DELETE /api/v2/users/{user}/ai/budget/override"
	EndpointUserSpend         = "GET /api/v2/users/{user}/ai/spend"
)

// budgetEndpoints are the endpoints of this file, in Endpoints' order.
var budgetEndpoints = []string{
	EndpointGroupByName, EndpointUserGet, EndpointGroupGet,
	EndpointGroupBudgetGet, EndpointGroupBudgetPut, EndpointGroupBudgetDelete, EndpointGroupSpend,
	EndpointOverrideGet, EndpointOverridePut, EndpointOverrideDelete, EndpointUserSpend,
}

// budgetRoutes mounts the endpoints with coderd's middleware order
// (enterprise/coderd/coderd.go): /groups checks Template RBAC before the
// session, then resolves {group}, then AI Gateway (inside the handlers:
// budgetGroupLocked); /organizations/{organization}/groups checks the
// session first; /users/{user}/ai checks AI Gateway before the session.
func (s *Server) budgetRoutes(handle func(endpoint string, h http.Handler)) {
	groups := func(f apiFunc) http.Handler { return s.requireTemplateRBAC(s.requireAuth(s.api(f))) }
	userAI := func(f apiFunc) http.Handler { return s.requireAIGateway(s.requireAuth(s.api(f))) }

	handle(EndpointGroupByName, s.requireAuth(s.requireTemplateRBAC(s.api(s.groupByName))))
	handle(EndpointUserGet, s.requireAuth(s.api(s.userByParam)))
	handle(EndpointGroupGet, groups(s.groupByID))
	handle(EndpointGroupBudgetGet, groups(s.groupBudget))
	handle(EndpointGroupBudgetPut, groups(s.upsertGroupBudget))
	handle(EndpointGroupBudgetDelete, groups(s.deleteGroupBudget))
	handle(EndpointGroupSpend, groups(s.groupSpend))
	handle(EndpointOverrideGet, userAI(s.userOverride))
	handle(EndpointOverridePut, userAI(s.upsertUserOverride))
	handle(EndpointOverrideDelete, userAI(s.deleteUserOverride))
	handle(EndpointUserSpend, userAI(s.userSpend))
}

// budgetGroupLocked resolves {group} (httpmw.ExtractGroupParam), then
// checks RequireFeatureMW(FeatureAIBridge), which coderd.go mounts on the
// /ai/budget and /ai/spend sub-routes, after the group is resolved.
func (s *Server) budgetGroupLocked(r *http.Request) (*GroupRow, reply, bool) {
	g, rep, ok := s.groupParamLocked(r)
	if !ok {
		return nil, rep, false
	}
	if !s.aiGatewayLocked().Enabled {
		return nil, premiumFeatureReply(codersdk.FeatureAIBridge), false
	}
	return g, reply{}, true
}

// groupBudget mirrors groupAIBudget: no budget is httpapi.ResourceNotFound.
func (s *Server) groupBudget(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, rep, ok := s.budgetGroupLocked(r)
	if !ok {
		return rep
	}
	b := s.dir.budgets[g.ID]
	if b == nil {
		return notFoundReply
	}
	return reply{http.StatusOK, *b}
}

// upsertGroupBudget mirrors upsertGroupAIBudget: httpapi.Read (the
// request's validate tags), validAISpendLimit, then UpsertGroupAIBudget,
// which keeps created_at and sets updated_at = NOW() on a conflict
// (coderd/database/queries/aicostcontrol.sql).
func (s *Server) upsertGroupBudget(r *http.Request) reply {
	s.mu.Lock()
	g, rep, ok := s.budgetGroupLocked(r)
	s.mu.Unlock()
	if !ok {
		return rep
	}
	var req codersdk.UpsertGroupAIBudgetRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	if rep, ok := validSpendLimit(nil, req.SpendLimitMicros); !ok {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groupLocked(g.ID) == nil {
		return notFoundReply // deleted while the body was read
	}
	now := s.now()
	b := s.dir.budgets[g.ID]
	if b == nil {
		b = &codersdk.GroupAIBudget{GroupID: g.ID, CreatedAt: now}
		s.dir.budgets[g.ID] = b
	}
	b.SpendLimitMicros, b.UpdatedAt = req.SpendLimitMicros, now
	return reply{http.StatusOK, *b}
}

// deleteGroupBudget mirrors deleteGroupAIBudget: DeleteGroupAIBudget
// returns the deleted row, so no budget is httpapi.ResourceNotFound;
// otherwise 204, and the group is back to Coder's default (no budget).
func (s *Server) deleteGroupBudget(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, rep, ok := s.budgetGroupLocked(r)
	if !ok {
		return rep
	}
	if s.dir.budgets[g.ID] == nil {
		return notFoundReply
	}
	delete(s.dir.budgets, g.ID)
	return reply{status: http.StatusNoContent}
}

// validSpendLimit is what httpapi.Read's validator and validAISpendLimit
// (enterprise/coderd/aibridge.go) say of a request: first the validate
// tags, in field order (the ones before, then spend_limit_micros
// "gte=0"), as 400 "Validation failed.", then the maximum, as 400
// "Invalid AI spend limit.".
func validSpendLimit(before []codersdk.ValidationError, micros int64) (reply, bool) {
	v := before
	if micros < 0 {
		v = append(v, tagFailed("spend_limit_micros", "gte", micros))
	}
	if len(v) > 0 {
		return reply{http.StatusBadRequest, codersdk.Response{Message: "Validation failed.", Validations: v}}, false
	}
	if micros > codersdk.MaxAISpendLimitMicros {
		return reply{http.StatusBadRequest, codersdk.Response{
			Message: "Invalid AI spend limit.",
			Validations: []codersdk.ValidationError{{
				Field:  "spend_limit_micros",
				Detail: fmt.Sprintf("Must not exceed %d.", codersdk.MaxAISpendLimitMicros),
			}},
		}}, false
	}
	return reply{}, true
}

// tagFailed is one validation error as coderd/httpapi/httpapi.go Read
// words it.
func tagFailed(field, tag string, value any) codersdk.ValidationError {
	return codersdk.ValidationError{Field: field, Detail: fmt.Sprintf("Validation failed for tag %q with value: \"%v\"", tag, value)}
}

// userOverride mirrors userAIBudgetOverride: no override is
// httpapi.ResourceNotFound.
func (s *Server) userOverride(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, rep, ok := s.userParamLocked(r)
	if !ok {
		return rep
	}
	o := s.dir.overrides[u.ID]
	if o == nil {
		return notFoundReply
	}
	return reply{http.StatusOK, *o}
}

// upsertUserOverride mirrors upsertUserAIBudgetOverride: httpapi.Read
// (group_id "required", spend_limit_micros "gte=0"), validAISpendLimit,
// the group by id (httpapi.ResourceNotFound), then the upsert, which the
// trigger enforce_user_ai_budget_override_membership refuses for a user
// outside the group (group_members_expanded), answered as a 400 on
// group_id. A member's write is refused as not found (dbauthz, read
// through httpapi.Is404Error), which the contract has not compared.
func (s *Server) upsertUserOverride(r *http.Request) reply {
	s.mu.Lock()
	u, rep, ok := s.userParamLocked(r)
	s.mu.Unlock()
	if !ok {
		return rep
	}
	var req codersdk.UpsertUserAIBudgetOverrideRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	var before []codersdk.ValidationError
	if req.GroupID == uuid.Nil {
		before = append(before, tagFailed("group_id", "required", req.GroupID))
	}
	if rep, ok := validSpendLimit(before, req.SpendLimitMicros); !ok {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupLocked(req.GroupID)
	if !s.seesGroupLocked(g) {
		return notFoundReply
	}
	if !s.memberLocked(g, u.ID) {
		return reply{http.StatusBadRequest, codersdk.Response{
			Message:     "User is not a member of the referenced group.",
			Validations: []codersdk.ValidationError{{Field: "group_id", Detail: "user must be a member of this group"}},
		}}
	}
	now := s.now()
	o := s.dir.overrides[u.ID]
	if o == nil {
		o = &codersdk.UserAIBudgetOverride{UserID: u.ID, CreatedAt: now}
		s.dir.overrides[u.ID] = o
	}
	o.GroupID, o.SpendLimitMicros, o.UpdatedAt = g.ID, req.SpendLimitMicros, now
	return reply{http.StatusOK, *o}
}

// deleteUserOverride mirrors deleteUserAIBudgetOverride: no override is
// httpapi.ResourceNotFound, otherwise 204.
func (s *Server) deleteUserOverride(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, rep, ok := s.userParamLocked(r)
	if !ok {
		return rep
	}
	o := s.dir.overrides[u.ID]
	if o == nil || !s.managesDirectoryLocked() {
		return notFoundReply
	}
	if s.dir.hidden[o.GroupID] {
		// GetGroupByID of the override's group, for the audit log, is
		// refused and any error there is a 500.
		return errorReply(http.StatusInternalServerError, "An internal server error occurred.", "")
	}
	delete(s.dir.overrides, u.ID)
	return reply{status: http.StatusNoContent}
}
