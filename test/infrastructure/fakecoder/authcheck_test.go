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
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/coder/coder/v2/codersdk"
)

// authChecks ask what the provider asks, and ai_gateway_key update, which
// even an Owner lacks.
var authChecks = map[string]codersdk.AuthorizationCheck{
	"ai_provider:create":    {Object: codersdk.AuthorizationObject{ResourceType: codersdk.ResourceAIProvider}, Action: codersdk.ActionCreate},
	"ai_gateway_key:delete": {Object: codersdk.AuthorizationObject{ResourceType: codersdk.ResourceAIGatewayKey}, Action: codersdk.ActionDelete},
	"ai_gateway_key:update": {Object: codersdk.AuthorizationObject{ResourceType: codersdk.ResourceAIGatewayKey}, Action: codersdk.ActionUpdate},
	"group:read":            {Object: codersdk.AuthorizationObject{ResourceType: codersdk.ResourceGroup, AnyOrgOwner: true}, Action: codersdk.ActionRead},
	"group:update":          {Object: codersdk.AuthorizationObject{ResourceType: codersdk.ResourceGroup, AnyOrgOwner: true}, Action: codersdk.ActionUpdate},
	"user:update":           {Object: codersdk.AuthorizationObject{ResourceType: codersdk.ResourceUser}, Action: codersdk.ActionUpdate},
}

func TestAuthCheckAnswersFromTheUsersSiteRoles(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		opts   Options
		roles  []string
		want   codersdk.AuthorizationResponse
	}{
		"Owner": {
			reason: "The Owner role holds every permission the provider asks for, but not a key's update.",
			opts:   Options{}, roles: []string{codersdk.RoleOwner},
			want: codersdk.AuthorizationResponse{"ai_provider:create": true, "ai_gateway_key:delete": true, "ai_gateway_key:update": false, "group:read": true, "group:update": true, "user:update": true},
		},
		"UserAdmin": {
			reason: "The User Admin role manages users and groups, no provider or key.",
			opts:   Options{Member: true, UserAdmin: true}, roles: []string{codersdk.RoleUserAdmin},
			want: codersdk.AuthorizationResponse{"ai_provider:create": false, "ai_gateway_key:delete": false, "ai_gateway_key:update": false, "group:read": true, "group:update": true, "user:update": true},
		},
		"Member": {
			reason: "A member reads the organization's groups (workspace sharing is open by default) and manages nothing.",
			opts:   Options{Member: true}, roles: []string{},
			want: codersdk.AuthorizationResponse{"ai_provider:create": false, "ai_gateway_key:delete": false, "ai_gateway_key:update": false, "group:read": true, "group:update": false, "user:update": false},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, c := start(t, tc.opts)
			got, err := c.AuthCheck(context.Background(), codersdk.AuthorizationRequest{Checks: authChecks})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nauthcheck: -want +got:\n%s", tc.reason, diff)
			}
			me, err := c.User(context.Background(), codersdk.Me)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, r := range me.Roles {
				names = append(names, r.Name)
			}
			if diff := cmp.Diff(tc.roles, names); diff != "" {
				t.Errorf("users/me roles: -want +got:\n%s", diff)
			}
		})
	}
}

func TestAuthCheckRefusesACheckWithoutAResourceType(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{})
	_, err := c.AuthCheck(context.Background(), codersdk.AuthorizationRequest{Checks: map[string]codersdk.AuthorizationCheck{"x": {Action: codersdk.ActionRead}}})
	var e *codersdk.Error
	if !errors.As(err, &e) || e.StatusCode() != 400 {
		t.Fatalf("authcheck without a resource type: %v, want Coder's 400", err)
	}
}
