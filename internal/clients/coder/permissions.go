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
	"net/http"
	"strings"

	"github.com/coder/coder/v2/codersdk"
)

// EndpointAuthCheck answers, per object and action, whether the token's
// user may do it; it writes nothing (coderd/authorize.go checkAuthorization).
const EndpointAuthCheck = "/api/v2/authcheck"

// A Permission is one action on one of Coder's RBAC resource types, as
// Coder's database authorizer checks it (coderd/database/dbauthz) and
// POST /api/v2/authcheck answers it.
type Permission struct {
	Resource codersdk.RBACResource
	Action   codersdk.RBACAction
}

// String is the permission as Coder's RBAC names it, "ai_provider:create".
func (p Permission) String() string { return string(p.Resource) + ":" + string(p.Action) }

// Check is the authcheck question for p, site-wide: a group belongs to an
// organization, so it asks whether the user may act on groups of any
// organization (an Organization Admin may, in its own).
func (p Permission) Check() codersdk.AuthorizationCheck {
	o := codersdk.AuthorizationObject{ResourceType: p.Resource}
	if p.Resource == codersdk.ResourceGroup {
		o.AnyOrgOwner = true
	}
	return codersdk.AuthorizationCheck{Object: o, Action: p.Action}
}

// LeastRole is the least built-in role of Coder v2.36 that holds every
// action the provider needs on resource, from coderd/rbac/roles.go: only the
// Owner role lists ai_provider and ai_gateway_key (ownerRole); the User
// Admin role holds create, read, update and delete on users and groups
// site-wide (userAdminRole). Custom roles are per organization and cannot
// grant a site-wide resource.
func LeastRole(resource codersdk.RBACResource) string {
	switch resource {
	case codersdk.ResourceUser, codersdk.ResourceGroup:
		return "User Admin"
	default:
		return "Owner"
	}
}

// AuthCheck asks Coder which of checks the token's user may do, by the
// caller's names of them. It writes nothing in Coder.
func (c *Client) AuthCheck(ctx context.Context, checks map[string]codersdk.AuthorizationCheck) (map[string]bool, error) {
	ctx, rec := c.begin(ctx, http.MethodPost, EndpointAuthCheck)
	resp, err := c.sdk.AuthCheck(ctx, codersdk.AuthorizationRequest{Checks: checks})
	return resp, wrap(rec, err)
}

// permissionsOf are the permissions Coder checks for a call, from the
// queries its handler runs through dbauthz, so a 403 names what the
// token's user lacks. Nil for a call the provider makes that every user
// may make, or that only needs a licence.
func permissionsOf(method, endpoint string) []Permission {
	read := func(r codersdk.RBACResource) []Permission { return []Permission{{r, codersdk.ActionRead}} }
	switch endpoint {
	case EndpointProviders, EndpointProvider:
		// GetAIProviders, InsertAIProvider, UpdateAIProvider,
		// DeleteAIProviderByID: ai_provider with the method's action.
		return []Permission{{codersdk.ResourceAIProvider, actionOf(method)}}
	case EndpointKeys, EndpointKey:
		// ListAIGatewayKeys, InsertAIGatewayKey, DeleteAIGatewayKey.
		return []Permission{{codersdk.ResourceAIGatewayKey, actionOf(method)}}
	case EndpointGroupBudget:
		// GetGroupAIBudget reads the group; UpsertGroupAIBudget and
		// DeleteGroupAIBudget update it.
		if method == http.MethodGet {
			return read(codersdk.ResourceGroup)
		}
		return []Permission{{codersdk.ResourceGroup, codersdk.ActionUpdate}}
	case EndpointUserBudgetOverride:
		// GetUserAIBudgetOverride reads the user; the upsert and delete
		// update the user and the group the override counts against.
		if method == http.MethodGet {
			return read(codersdk.ResourceUser)
		}
		return []Permission{{codersdk.ResourceUser, codersdk.ActionUpdate}, {codersdk.ResourceGroup, codersdk.ActionUpdate}}
	case EndpointGroup, EndpointGroupByName, EndpointGroupSpend:
		return read(codersdk.ResourceGroup)
	case EndpointUser, EndpointUserSpend:
		return read(codersdk.ResourceUser)
	case EndpointDeploymentConfig:
		return read(codersdk.ResourceDeploymentConfig)
	case EndpointMCPServers, EndpointMCPServer:
		// Coder keeps MCP servers as deployment configuration: reading
		// them reads it, and creating, changing or deleting one updates it.
		if method == http.MethodGet {
			return read(codersdk.ResourceDeploymentConfig)
		}
		return []Permission{{codersdk.ResourceDeploymentConfig, codersdk.ActionUpdate}}
	}
	return nil
}

func actionOf(method string) codersdk.RBACAction {
	switch method {
	case http.MethodPost:
		return codersdk.ActionCreate
	case http.MethodPatch, http.MethodPut:
		return codersdk.ActionUpdate
	case http.MethodDelete:
		return codersdk.ActionDelete
	default:
		return codersdk.ActionRead
	}
}

// noPermission is the cause of a 403 that is not a licence's: the
// permissions the call needs and the least built-in role holding them.
func noPermission(method, endpoint string) string {
	ps := permissionsOf(method, endpoint)
	if len(ps) == 0 {
		return CauseNoPermission
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.String()
	}
	return "the token's user lacks the Coder permission " + strings.Join(names, " and ") +
		" (Coder's " + leastRoleOf(ps) + " role has it; see docs/how-to/least-privilege.md)"
}

// leastRoleOf is the least built-in role holding every one of ps: the
// Owner role holds what the User Admin role does.
func leastRoleOf(ps []Permission) string {
	role := LeastRole(ps[0].Resource)
	for _, p := range ps[1:] {
		if r := LeastRole(p.Resource); r == "Owner" {
			role = r
		}
	}
	return role
}
