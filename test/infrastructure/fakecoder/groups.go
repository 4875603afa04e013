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
	"strconv"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// The lookups a budget needs before it can name its group or user: a group
// by organization and name, a user by id or username. Each mirrors the
// coderd middleware that resolves the path parameter, so the budget
// handlers (budgets.go) answer a bad or unknown group or user exactly as
// Coder does.
//
// What a member (not an Owner) is shown of other users and groups depends
// on dbauthz; the fake answers a member's lookups of anything but itself
// with 404, as httpapi.Is404Error reads a dbauthz refusal, which the
// contract has not compared with a real server.

// templateRBAC is FeatureTemplateRBAC as a licence grants it: entitled and
// enabled with any licence the fake models, off without one (see
// aiGatewayLocked for how Coder computes a feature).
func templateRBAC(licensed bool) codersdk.Feature {
	if !licensed {
		return codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled, Enabled: false}
	}
	return codersdk.Feature{Entitlement: codersdk.EntitlementEntitled, Enabled: true}
}

// requireTemplateRBAC mirrors templateRBACEnabledMW
// (enterprise/coderd/templates.go), RequireFeatureMW(FeatureTemplateRBAC),
// which enterprise/coderd/coderd.go puts on every /groups and
// /organizations/{organization}/groups route: groups are a Premium
// feature, so an unlicensed Coder refuses them whatever AI Gateway says.
func (s *Server) requireTemplateRBAC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		enabled := templateRBAC(s.licensed).Enabled
		s.mu.Unlock()
		if !enabled {
			rep := premiumFeatureReply(codersdk.FeatureTemplateRBAC)
			writeJSON(w, rep.status, rep.body)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// premiumFeatureReply is RequireFeatureMW's refusal
// (enterprise/coderd/templates.go): 403 "<feat.Humanize()> is a Premium
// feature. Contact sales!".
func premiumFeatureReply(feat codersdk.FeatureName) reply {
	return reply{http.StatusForbidden, codersdk.Response{
		Message: fmt.Sprintf("%s is a Premium feature. Contact sales!", feat.Humanize()),
	}}
}

// groupParamLocked mirrors httpmw.ExtractGroupParam
// (coderd/httpmw/groupparam.go): the {group} parameter must be a UUID
// (httpmw.ParseUUIDParam, coderd/httpmw/httpmw.go: 400 "Invalid UUID %q."
// with uuid.Parse's error), and an unknown group is
// httpapi.ResourceNotFound. s.mu must be held.
func (s *Server) groupParamLocked(r *http.Request) (*GroupRow, reply, bool) {
	raw := r.PathValue("group")
	id, err := uuid.Parse(raw)
	if err != nil {
		return nil, errorReply(http.StatusBadRequest, fmt.Sprintf("Invalid UUID %q.", raw), err.Error()), false
	}
	g := s.groupLocked(id)
	if !s.seesGroupLocked(g) {
		return nil, notFoundReply, false
	}
	return g, reply{}, true
}

// userParamLocked mirrors httpmw.ExtractUserContext
// (coderd/httpmw/userparam.go): "me" is the session's user, a UUID is
// looked up by id, anything else by username, case-insensitively; an
// unknown user is httpapi.ResourceNotFound. s.mu must be held.
func (s *Server) userParamLocked(r *http.Request) (*UserRow, reply, bool) {
	q := r.PathValue("user")
	var u *UserRow
	if q == codersdk.Me {
		u = s.userLocked(s.user.ID)
	} else if id, err := uuid.Parse(q); err == nil {
		u = s.userLocked(id)
	} else {
		u = s.userByNameLocked(q)
	}
	if !s.seesUserLocked(u) {
		return nil, notFoundReply, false
	}
	return u, reply{}, true
}

// organizationOKLocked mirrors httpmw.ExtractOrganizationParam
// (coderd/httpmw/organizationparam.go): "default" and the nil UUID name
// the default organization, a UUID its id, anything else its name; any
// other organization is httpapi.ResourceNotFound. The fake has one.
func (s *Server) organizationOKLocked(r *http.Request) bool {
	arg := r.PathValue("organization")
	if arg == codersdk.DefaultOrganization || arg == uuid.Nil.String() || arg == DefaultOrganizationName {
		return true
	}
	id, err := uuid.Parse(arg)
	return err == nil && id == s.dir.orgID
}

// groupByName mirrors groupByOrganization, which is api.group
// (enterprise/coderd/groups.go), behind httpmw.ExtractGroupByNameParam
// (coderd/httpmw/groupparam.go): an exact name within the organization,
// answered with every member (db2sdk.Group).
func (s *Server) groupByName(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.organizationOKLocked(r) {
		return notFoundReply
	}
	g := s.groupByNameLocked(r.PathValue("groupName"))
	if !s.seesGroupLocked(g) {
		return notFoundReply
	}
	return reply{http.StatusOK, s.sdkGroupLocked(g)}
}

// groupByID mirrors api.group (enterprise/coderd/groups.go) behind
// httpmw.ExtractGroupParam: the group, with its members unless
// exclude_members is true.
func (s *Server) groupByID(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, rep, ok := s.groupParamLocked(r)
	if !ok {
		return rep
	}
	out := s.sdkGroupLocked(g)
	if exclude, _ := strconv.ParseBool(r.URL.Query().Get("exclude_members")); exclude {
		out.Members = []codersdk.ReducedUser{}
	}
	return reply{http.StatusOK, out}
}

// sdkGroupLocked is db2sdk.Group of a group of the default organization.
func (s *Server) sdkGroupLocked(g *GroupRow) codersdk.Group {
	members := s.membersLocked(g)
	out := codersdk.Group{
		ID:                      g.ID,
		Name:                    g.Name,
		OrganizationID:          g.OrganizationID,
		Members:                 make([]codersdk.ReducedUser, 0, len(members)),
		TotalMemberCount:        len(members),
		Source:                  codersdk.GroupSourceUser,
		OrganizationName:        DefaultOrganizationName,
		OrganizationDisplayName: "Coder",
	}
	for _, u := range members {
		out.Members = append(out.Members, s.sdkUserLocked(u).ReducedUser)
	}
	return out
}

// userByParam mirrors userByName (coderd/users.go) behind
// httpmw.ExtractUserParam: the user, with its organizations and site
// roles.
func (s *Server) userByParam(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, rep, ok := s.userParamLocked(r)
	if !ok {
		return rep
	}
	return reply{http.StatusOK, s.sdkUserLocked(u)}
}

// sdkUserLocked is db2sdk.User: only stored site roles are listed, so a
// plain member shows none.
func (s *Server) sdkUserLocked(u *UserRow) codersdk.User {
	if u.ID == s.user.ID {
		out := s.user
		out.OrganizationIDs = []uuid.UUID{s.dir.orgID}
		out.Roles = s.siteRolesLocked()
		return out
	}
	return codersdk.User{
		ReducedUser: codersdk.ReducedUser{
			MinimalUser: codersdk.MinimalUser{ID: u.ID, Username: u.Username, Name: u.Name},
			Email:       u.Email,
			CreatedAt:   u.CreatedAt,
			UpdatedAt:   u.CreatedAt,
			Status:      codersdk.UserStatusActive,
			LoginType:   codersdk.LoginTypePassword,
		},
		OrganizationIDs: []uuid.UUID{s.dir.orgID},
		Roles:           []codersdk.SlimRole{},
	}
}
