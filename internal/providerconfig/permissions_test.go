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

package providerconfig

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
)

// answers is authcheck's answer allowing exactly the named permissions.
func answers(allowed ...string) map[string]bool {
	m := map[string]bool{}
	for name := range PermissionChecks() {
		m[name] = false
	}
	for _, a := range allowed {
		m[a] = true
	}
	return m
}

func TestCoderPermissionsNameEachMissingPermissionAndItsKind(t *testing.T) {
	all := make([]string, 0, len(PermissionChecks()))
	for name := range PermissionChecks() {
		all = append(all, name)
	}
	userAdmin := []string{"group:read", "group:update", "user:read", "user:update"}
	type want struct {
		status  corev1.ConditionStatus
		reason  xpv2.ConditionReason
		message string
	}
	cases := map[string]struct {
		reason  string
		allowed map[string]bool
		want    want
	}{
		"Owner": {
			reason:  "An Owner's token may manage every kind.",
			allowed: answers(all...),
			want:    want{corev1.ConditionTrue, ReasonCoderPermissionsGranted, "the token's user may manage every kind in Coder"},
		},
		"UserAdmin": {
			reason:  "The User Admin role manages groups and users, so budgets and overrides, but no provider or key.",
			allowed: answers(userAdmin...),
			want: want{corev1.ConditionFalse, ReasonCoderPermissionsMissing, "the token's user lacks Coder permissions: " +
				"AIProvider needs ai_provider:read, ai_provider:create, ai_provider:update, ai_provider:delete (Coder's Owner role); " +
				"AIGatewayKey needs ai_gateway_key:read, ai_gateway_key:create, ai_gateway_key:delete (Coder's Owner role); " +
				"MCPServer needs deployment_config:read, deployment_config:update (Coder's Owner role); " +
				"Coder refuses (403) these kinds through this ProviderConfig; it may manage GroupAIBudget, UserAIBudgetOverride"},
		},
		"GroupsOnly": {
			reason:  "An override also updates the user: a token that may update groups only manages group budgets.",
			allowed: answers("group:read", "group:update", "user:read"),
			want: want{corev1.ConditionFalse, ReasonCoderPermissionsMissing, "the token's user lacks Coder permissions: " +
				"AIProvider needs ai_provider:read, ai_provider:create, ai_provider:update, ai_provider:delete (Coder's Owner role); " +
				"AIGatewayKey needs ai_gateway_key:read, ai_gateway_key:create, ai_gateway_key:delete (Coder's Owner role); " +
				"UserAIBudgetOverride needs user:update (Coder's User Admin role); " +
				"MCPServer needs deployment_config:read, deployment_config:update (Coder's Owner role); " +
				"Coder refuses (403) these kinds through this ProviderConfig; it may manage GroupAIBudget"},
		},
		"ProvidersWithoutDelete": {
			reason:  "One missing action is enough to name the kind: a provider that cannot be deleted would hang its deletion.",
			allowed: answers("ai_provider:read", "ai_provider:create", "ai_provider:update", "ai_gateway_key:read", "ai_gateway_key:create", "ai_gateway_key:delete", "group:read", "group:update", "user:read", "user:update", "deployment_config:read", "deployment_config:update"),
			want: want{corev1.ConditionFalse, ReasonCoderPermissionsMissing, "the token's user lacks Coder permissions: " +
				"AIProvider needs ai_provider:delete (Coder's Owner role); " +
				"Coder refuses (403) these kinds through this ProviderConfig; it may manage AIGatewayKey, GroupAIBudget, UserAIBudgetOverride, MCPServer"},
		},
		"Member": {
			reason:  "A plain member may manage nothing; no kind is said to be manageable.",
			allowed: answers(),
			want: want{corev1.ConditionFalse, ReasonCoderPermissionsMissing, "the token's user lacks Coder permissions: " +
				"AIProvider needs ai_provider:read, ai_provider:create, ai_provider:update, ai_provider:delete (Coder's Owner role); " +
				"AIGatewayKey needs ai_gateway_key:read, ai_gateway_key:create, ai_gateway_key:delete (Coder's Owner role); " +
				"GroupAIBudget needs group:read, group:update (Coder's User Admin role); " +
				"UserAIBudgetOverride needs user:read, user:update, group:read, group:update (Coder's User Admin role); " +
				"MCPServer needs deployment_config:read, deployment_config:update (Coder's Owner role); " +
				"Coder refuses (403) these kinds through this ProviderConfig"},
		},
		"Unanswered": {
			reason:  "A permission Coder did not answer is not assumed.",
			allowed: map[string]bool{"group:read": true, "group:update": true},
			want: want{corev1.ConditionFalse, ReasonCoderPermissionsMissing, "the token's user lacks Coder permissions: " +
				"AIProvider needs ai_provider:read, ai_provider:create, ai_provider:update, ai_provider:delete (Coder's Owner role); " +
				"AIGatewayKey needs ai_gateway_key:read, ai_gateway_key:create, ai_gateway_key:delete (Coder's Owner role); " +
				"UserAIBudgetOverride needs user:read, user:update (Coder's User Admin role); " +
				"MCPServer needs deployment_config:read, deployment_config:update (Coder's Owner role); " +
				"Coder refuses (403) these kinds through this ProviderConfig; it may manage GroupAIBudget"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := CoderPermissionsCondition(tc.allowed)
			got := want{c.Status, c.Reason, c.Message}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nCoderPermissionsCondition: -want +got:\n%s", tc.reason, diff)
			}
			if c.Type != TypeCoderPermissions {
				t.Errorf("type = %s, want %s", c.Type, TypeCoderPermissions)
			}
		})
	}
}

func TestCoderPermissionsUnknownSaysCoderDidNotAnswer(t *testing.T) {
	c := CoderPermissionsUnknown(errors.New("POST /api/v2/authcheck: 503 Service Unavailable"))
	if c.Status != corev1.ConditionUnknown || c.Reason != ReasonCoderPermissionsUnknown || c.Message != "cannot ask Coder which kinds the token's user may manage: POST /api/v2/authcheck: 503 Service Unavailable" {
		t.Errorf("CoderPermissionsUnknown = %+v", c)
	}
}

// Every managed kind says what it needs in Coder, so a new kind cannot be
// left out of the condition.
func TestEveryManagedKindNeedsCoderPermissions(t *testing.T) {
	needs := map[string]bool{}
	for _, k := range Needs() {
		if len(k.Needs) == 0 {
			t.Errorf("%s needs no permission", k.Kind)
		}
		needs[k.Kind] = true
	}
	for _, k := range apis.ManagedKinds() {
		if !needs[k.Kind] {
			t.Errorf("managed kind %s is missing from Needs()", k.Kind)
		}
	}
}
