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
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// The directory is the deployment's one organization, its users and its
// groups, with the AI budgets set on them (budgets.go). Coder creates the
// default organization, named "coder", with an "Everyone" group whose id is
// the organization's and whose members are the organization's members
// (coderd/database/dump.sql group_members_expanded); every user the fake
// makes joins it, as a user of a one-organization Coder does. Tests shape
// the rest through the Go API below or the admin API (admin_directory.go).

// DefaultOrganizationName is the name Coder gives its default organization.
const DefaultOrganizationName = "coder"

// EveryoneGroupName is the name of an organization's implicit group.
const EveryoneGroupName = "Everyone"

// ErrConflict is returned by the Go API when a name is taken.
var ErrConflict = errors.New("fakecoder: name already in use")

// UserRow is a stored user.
type UserRow struct {
	ID        uuid.UUID `json:"id"`
	Username  string    `json:"username"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"created_at"`
}

// GroupRow is a stored group. Members lists the users added to it; the
// Everyone group lists none, its members are the organization's.
type GroupRow struct {
	ID             uuid.UUID   `json:"id"`
	OrganizationID uuid.UUID   `json:"organization_id"`
	Name           string      `json:"name"`
	Members        []uuid.UUID `json:"members"`
	CreatedAt      time.Time   `json:"created_at"`
}

// spendKey is a row of ai_user_daily_spend summed over the current
// period: a user's spend attributed to one group.
type spendKey struct{ user, group uuid.UUID }

// directory is the state behind the group, user and budget endpoints;
// Server.mu guards it.
type directory struct {
	orgID     uuid.UUID
	users     []*UserRow  // in creation order; the session's user first
	groups    []*GroupRow // in creation order; Everyone first
	budgets   map[uuid.UUID]*codersdk.GroupAIBudget
	overrides map[uuid.UUID]*codersdk.UserAIBudgetOverride
	spend     map[spendKey]int64
	// hidden are the groups and users the token may not read (SetHidden).
	hidden map[uuid.UUID]bool
}

func newDirectory(admin codersdk.User) directory {
	org := admin.OrganizationIDs[0]
	return directory{
		orgID:     org,
		users:     []*UserRow{{ID: admin.ID, Username: admin.Username, Name: admin.Name, Email: admin.Email, CreatedAt: admin.CreatedAt}},
		groups:    []*GroupRow{{ID: org, OrganizationID: org, Name: EveryoneGroupName, CreatedAt: admin.CreatedAt}},
		budgets:   map[uuid.UUID]*codersdk.GroupAIBudget{},
		overrides: map[uuid.UUID]*codersdk.UserAIBudgetOverride{},
		spend:     map[spendKey]int64{},
		hidden:    map[uuid.UUID]bool{},
	}
}

// OrganizationID is the id of the default organization (and of its
// Everyone group).
func (s *Server) OrganizationID() uuid.UUID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir.orgID
}

// CreateUser adds a user to the deployment and its organization. Usernames
// are unique regardless of case, as Coder's users_username_lower_idx.
func (s *Server) CreateUser(username string) (UserRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.userByNameLocked(username) != nil {
		return UserRow{}, ErrConflict
	}
	u := &UserRow{ID: uuid.New(), Username: username, Name: username, Email: username + "@coder.com", CreatedAt: s.now()}
	s.dir.users = append(s.dir.users, u)
	return *u, nil
}

// CreateGroup adds a group to the organization.
func (s *Server) CreateGroup(name string) (GroupRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groupByNameLocked(name) != nil {
		return GroupRow{}, ErrConflict
	}
	g := &GroupRow{ID: s.newID(), OrganizationID: s.dir.orgID, Name: name, CreatedAt: s.now()}
	s.dir.groups = append(s.dir.groups, g)
	return g.clone(), nil
}

// AddGroupMember adds a user to a group; adding a member again is a no-op.
func (s *Server) AddGroupMember(group, user uuid.UUID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, u := s.groupLocked(group), s.userLocked(user)
	if g == nil || u == nil || g.ID == s.dir.orgID {
		return ErrNotFound
	}
	if !slices.Contains(g.Members, user) {
		g.Members = append(g.Members, user)
	}
	return nil
}

// RemoveGroupMember removes a user from a group, and with it the user's
// override attributed to that group, as Coder's trigger
// delete_user_ai_budget_overrides_on_group_member_delete does.
func (s *Server) RemoveGroupMember(group, user uuid.UUID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupLocked(group)
	if g == nil || !slices.Contains(g.Members, user) {
		return ErrNotFound
	}
	g.Members = slices.DeleteFunc(g.Members, func(id uuid.UUID) bool { return id == user })
	if o := s.dir.overrides[user]; o != nil && o.GroupID == group {
		delete(s.dir.overrides, user)
	}
	return nil
}

// DeleteGroup deletes a group with its budget and the overrides attributed
// to it (the ON DELETE CASCADE of both tables' group_id).
func (s *Server) DeleteGroup(group uuid.UUID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if group == s.dir.orgID || s.groupLocked(group) == nil {
		return ErrNotFound
	}
	s.dir.groups = slices.DeleteFunc(s.dir.groups, func(g *GroupRow) bool { return g.ID == group })
	delete(s.dir.budgets, group)
	for u, o := range s.dir.overrides {
		if o.GroupID == group {
			delete(s.dir.overrides, u)
		}
	}
	return nil
}

// SetHidden makes a group or user one the token may not read (true), as
// for a token whose user was demoted, a scoped token, or an organization
// whose members may not read its groups, or readable again (false). As
// Coder v2.36.0 does, whose dbauthz refusal httpmw.ExtractGroupParam and
// ExtractUserParam read with httpapi.Is404Error, the fake then answers 404
// for it and for every route that resolves it: the group, its budget and
// spend, an override naming it; the user and its override. Nothing in
// Coder changes.
func (s *Server) SetHidden(id uuid.UUID, hidden bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hidden {
		s.dir.hidden[id] = true
		return
	}
	delete(s.dir.hidden, id)
}

// seesGroupLocked is dbauthz's read of a group: only an owner or a user
// admin reads other groups here, and no one a hidden one.
func (s *Server) seesGroupLocked(g *GroupRow) bool {
	return g != nil && s.managesDirectoryLocked() && !s.dir.hidden[g.ID]
}

// seesUserLocked is dbauthz's read of a user: a member reads only itself,
// and no one a hidden user.
func (s *Server) seesUserLocked(u *UserRow) bool {
	return u != nil && (s.managesDirectoryLocked() || u.ID == s.user.ID) && !s.dir.hidden[u.ID]
}

// SetSpend sets a user's spend attributed to a group over the current
// budget period, in micros, as AI Gateway interceptions add it up.
func (s *Server) SetSpend(user, group uuid.UUID, micros int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.userLocked(user) == nil || s.groupLocked(group) == nil {
		return ErrNotFound
	}
	s.dir.spend[spendKey{user, group}] = micros
	return nil
}

// Users returns the stored users in creation order.
func (s *Server) Users() []UserRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]UserRow, len(s.dir.users))
	for i, u := range s.dir.users {
		out[i] = *u
	}
	return out
}

// Groups returns the stored groups in creation order, Everyone first.
func (s *Server) Groups() []GroupRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]GroupRow, len(s.dir.groups))
	for i, g := range s.dir.groups {
		out[i] = g.clone()
	}
	return out
}

// GroupBudgets returns the stored group budgets by group id.
func (s *Server) GroupBudgets() map[uuid.UUID]codersdk.GroupAIBudget {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[uuid.UUID]codersdk.GroupAIBudget, len(s.dir.budgets))
	for id, b := range s.dir.budgets {
		out[id] = *b
	}
	return out
}

// BudgetOverrides returns the stored user overrides by user id.
func (s *Server) BudgetOverrides() map[uuid.UUID]codersdk.UserAIBudgetOverride {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[uuid.UUID]codersdk.UserAIBudgetOverride, len(s.dir.overrides))
	for id, o := range s.dir.overrides {
		out[id] = *o
	}
	return out
}

func (g *GroupRow) clone() GroupRow {
	c := *g
	c.Members = slices.Clone(g.Members)
	return c
}

func (s *Server) userLocked(id uuid.UUID) *UserRow {
	for _, u := range s.dir.users {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// userByNameLocked compares as GetUserByEmailOrUsername does:
// LOWER(username) = LOWER(@username).
func (s *Server) userByNameLocked(name string) *UserRow {
	for _, u := range s.dir.users {
		if strings.EqualFold(u.Username, name) {
			return u
		}
	}
	return nil
}

func (s *Server) groupLocked(id uuid.UUID) *GroupRow {
	for _, g := range s.dir.groups {
		if g.ID == id {
			return g
		}
	}
	return nil
}

// groupByNameLocked is GetGroupByOrgAndName: an exact match within the
// organization.
func (s *Server) groupByNameLocked(name string) *GroupRow {
	for _, g := range s.dir.groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// memberLocked is group_members_expanded: the Everyone group holds every
// organization member, another group those added to it.
func (s *Server) memberLocked(g *GroupRow, user uuid.UUID) bool {
	return g.ID == s.dir.orgID || slices.Contains(g.Members, user)
}

// membersLocked lists a group's members in the users' creation order.
func (s *Server) membersLocked(g *GroupRow) []*UserRow {
	var out []*UserRow
	for _, u := range s.dir.users {
		if s.memberLocked(g, u.ID) {
			out = append(out, u)
		}
	}
	return out
}
