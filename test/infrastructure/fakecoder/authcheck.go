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
	"slices"

	"github.com/coder/coder/v2/codersdk"
)

// EndpointAuthCheck answers, per object and action, whether the session's
// user may do it (coderd/authorize.go checkAuthorization).
const EndpointAuthCheck = "POST /api/v2/authcheck"

// authCheck mirrors checkAuthorization for the objects the provider asks
// about, site-wide and without a resource id: every check is answered from
// the user's roles as coderd/rbac/roles.go grants them. A check without a
// resource type is the handler's 400.
func (s *Server) authCheck(r *http.Request) reply {
	var req codersdk.AuthorizationRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	s.mu.Lock()
	owner, userAdmin := s.owner, s.userAdmin
	s.mu.Unlock()
	resp := codersdk.AuthorizationResponse{}
	for k, c := range req.Checks {
		if c.Object.ResourceType == "" {
			return errorReply(http.StatusBadRequest, fmt.Sprintf("Object's \"resource_type\" field must be defined for key %q.", k), "")
		}
		resp[k] = allows(owner, userAdmin, c.Object.ResourceType, c.Action)
	}
	return reply{http.StatusOK, resp}
}

// allows is the fake's RBAC: the Owner role (ownerRole: every site
// permission but ai_gateway_key update, which Coder keeps for the gateway
// replicas' heartbeats), the User Admin role (userAdminRole: users and
// groups), and a member's (memberRole, organization-member: its own user
// only, and the organization's groups to read while workspace sharing is
// open to everyone, Coder's default).
func allows(owner, userAdmin bool, resource codersdk.RBACResource, action codersdk.RBACAction) bool {
	switch {
	case owner:
		return resource != codersdk.ResourceAIGatewayKey || action != codersdk.ActionUpdate
	case userAdmin && slices.Contains([]codersdk.RBACResource{codersdk.ResourceUser, codersdk.ResourceGroup}, resource):
		return slices.Contains([]codersdk.RBACAction{codersdk.ActionCreate, codersdk.ActionRead, codersdk.ActionUpdate, codersdk.ActionDelete}, action)
	default:
		return resource == codersdk.ResourceGroup && action == codersdk.ActionRead
	}
}

// SetUserAdmin gives the session's user Coder's User Admin site role
// (true) or takes it away (false); Owner, when set, still grants all.
func (s *Server) SetUserAdmin(userAdmin bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.userAdmin = userAdmin
}

// managesDirectoryLocked is whether the session's user reads and updates
// every user and group, as the Owner and User Admin roles do.
func (s *Server) managesDirectoryLocked() bool { return s.owner || s.userAdmin }

// siteRolesLocked is db2sdk.User's roles of the session's user: only
// stored site roles are listed; "member" is implicit and never shown.
func (s *Server) siteRolesLocked() []codersdk.SlimRole {
	roles := []codersdk.SlimRole{}
	if s.owner {
		roles = append(roles, codersdk.SlimRole{Name: codersdk.RoleOwner, DisplayName: "Owner"})
	}
	if s.userAdmin {
		roles = append(roles, codersdk.SlimRole{Name: codersdk.RoleUserAdmin, DisplayName: "User Admin"})
	}
	return roles
}
