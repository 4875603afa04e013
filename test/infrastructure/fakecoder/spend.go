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
	"time"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// The spend a budget is measured against. Coder adds up AI Gateway
// interceptions per user, per effective group and per day; the fake keeps
// one number per user and group for the current period (SetSpend) and
// resolves the effective group as coderd/aibridge/budget/budget.go
// ResolveUserEffectiveGroup does under the default "highest" policy.

// periodWindow is budget.CurrentPeriod for the default period, a UTC
// calendar month (coderd/aibridge/budget/period.go, dbtime.StartOfMonth).
func periodWindow(now time.Time) codersdk.AISpendPeriodWindow {
	n := now.UTC()
	start := time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, time.UTC)
	return codersdk.AISpendPeriodWindow{PeriodStart: start, PeriodEnd: start.AddDate(0, 1, 0)}
}

// highestLocked is GetHighestGroupAIBudgetByUser: among the budgeted
// groups the user is in (Everyone included), the highest limit, ties to
// the lowest group id (one organization, so the membership order never
// decides).
func (s *Server) highestLocked(user uuid.UUID) (*codersdk.GroupAIBudget, bool) {
	var best *codersdk.GroupAIBudget
	for _, g := range s.dir.groups {
		b := s.dir.budgets[g.ID]
		if b == nil || !s.memberLocked(g, user) {
			continue
		}
		if best == nil || b.SpendLimitMicros > best.SpendLimitMicros ||
			(b.SpendLimitMicros == best.SpendLimitMicros && b.GroupID.String() < best.GroupID.String()) {
			best = b
		}
	}
	return best, best != nil
}

// effectiveLocked is ResolveUserEffectiveGroup: the override's group, else
// the highest budgeted group, else the organization's Everyone group with
// no limit (GetUserEveryoneFallbackGroup).
func (s *Server) effectiveLocked(user uuid.UUID) (uuid.UUID, *codersdk.AIBudgetLimit) {
	if o := s.dir.overrides[user]; o != nil {
		return o.GroupID, &codersdk.AIBudgetLimit{SpendLimitMicros: o.SpendLimitMicros, LimitSource: codersdk.AIBudgetLimitSourceUserOverride}
	}
	if b, ok := s.highestLocked(user); ok {
		return b.GroupID, &codersdk.AIBudgetLimit{SpendLimitMicros: b.SpendLimitMicros, LimitSource: codersdk.AIBudgetLimitSourceGroup}
	}
	return s.dir.orgID, nil
}

// userSpend mirrors userAISpendStatus (enterprise/coderd/aibridge.go):
// the effective group and budget, and the spend attributed to that group
// in the current period.
func (s *Server) userSpend(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, rep, ok := s.userParamLocked(r)
	if !ok {
		return rep
	}
	group, limit := s.effectiveLocked(u.ID)
	return reply{http.StatusOK, codersdk.UserAISpendStatus{
		UserAIBudgetSummary: codersdk.UserAIBudgetSummary{UserID: u.ID, EffectiveGroupID: &group, EffectiveBudget: limit},
		AISpendPeriodWindow: periodWindow(s.now()),
		CurrentSpendMicros:  s.dir.spend[spendKey{u.ID, group}],
	}}
}

// groupSpend mirrors groupAISpend (enterprise/coderd/aibridge.go) and its
// query GetOrganizationGroupsAISpend
// (coderd/database/queries/aicostcontrol.sql): the per-member limit, the
// combined limit of the members attributed to the group (each override
// replacing its member's share; null without a budget), and the spend
// attributed to it.
func (s *Server) groupSpend(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, rep, ok := s.budgetGroupLocked(r)
	if !ok {
		return rep
	}
	out := codersdk.GroupAISpend{
		AISpendPeriodWindow:      periodWindow(s.now()),
		OrganizationGroupAISpend: codersdk.OrganizationGroupAISpend{GroupID: g.ID},
	}
	if b := s.dir.budgets[g.ID]; b != nil {
		limit, total := b.SpendLimitMicros, s.attributedLimitLocked(g, b.SpendLimitMicros)
		out.SpendLimitMicros, out.TotalSpendLimitMicros = &limit, &total
	}
	for k, v := range s.dir.spend {
		if k.group == g.ID {
			out.CurrentSpendMicros += v
		}
	}
	return reply{http.StatusOK, out}
}

// attributedLimitLocked is the query's group_totals: members whose
// effective group is g count at g's limit, members whose override names g
// at their override's.
func (s *Server) attributedLimitLocked(g *GroupRow, limit int64) int64 {
	var total int64
	for _, u := range s.membersLocked(g) {
		if o := s.dir.overrides[u.ID]; o != nil {
			if o.GroupID == g.ID {
				total += o.SpendLimitMicros
			}
			continue
		}
		if b, ok := s.highestLocked(u.ID); ok && b.GroupID == g.ID {
			total += limit
		}
	}
	return total
}
