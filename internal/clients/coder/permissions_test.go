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
	"net/http"
	"testing"
)

const providerCreateRefused = "the token's user lacks the Coder permission ai_provider:create (Coder's Owner role has it; see docs/how-to/least-privilege.md)"

func TestForbiddenNamesThePermissionTheCallNeedsAndTheLeastRole(t *testing.T) {
	cases := map[string]struct {
		reason   string
		method   string
		endpoint string
		want     string
	}{
		"ProviderCreate": {
			reason: "InsertAIProvider checks ai_provider create, which only the Owner role holds",
			method: http.MethodPost, endpoint: EndpointProviders,
			want: providerCreateRefused,
		},
		"ProviderDelete": {
			reason: "a delete refused waits with the permission it lacks",
			method: http.MethodDelete, endpoint: EndpointProvider,
			want: "the token's user lacks the Coder permission ai_provider:delete (Coder's Owner role has it; see docs/how-to/least-privilege.md)",
		},
		"KeyList": {
			reason: "ListAIGatewayKeys checks ai_gateway_key read",
			method: http.MethodGet, endpoint: EndpointKeys,
			want: "the token's user lacks the Coder permission ai_gateway_key:read (Coder's Owner role has it; see docs/how-to/least-privilege.md)",
		},
		"GroupBudgetPut": {
			reason: "UpsertGroupAIBudget updates the group, which the User Admin role may",
			method: http.MethodPut, endpoint: EndpointGroupBudget,
			want: "the token's user lacks the Coder permission group:update (Coder's User Admin role has it; see docs/how-to/least-privilege.md)",
		},
		"OverrideDelete": {
			reason: "DeleteUserAIBudgetOverride updates the user and the group",
			method: http.MethodDelete, endpoint: EndpointUserBudgetOverride,
			want: "the token's user lacks the Coder permission user:update and group:update (Coder's User Admin role has it; see docs/how-to/least-privilege.md)",
		},
		"DeploymentConfig": {
			reason: "deployment_config read is the Owner's (and the Auditor's, which the provider does not need)",
			method: http.MethodGet, endpoint: EndpointDeploymentConfig,
			want: "the token's user lacks the Coder permission deployment_config:read (Coder's Owner role has it; see docs/how-to/least-privilege.md)",
		},
		"Unknown": {
			reason: "a call whose permission is not known here says only that one is missing",
			method: http.MethodGet, endpoint: EndpointMe,
			want: CauseNoPermission,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := noPermission(tc.method, tc.endpoint); got != tc.want {
				t.Errorf("%s\nnoPermission(%s %s) = %q, want %q", tc.reason, tc.method, tc.endpoint, got, tc.want)
			}
		})
	}
}
