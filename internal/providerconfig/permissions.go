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
	"fmt"
	"strings"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// TypeCoderPermissions is the ProviderConfig condition that says, per
// managed kind, whether the token's user holds the Coder permissions the
// kind's calls need, as Coder's POST /api/v2/authcheck answers without
// writing anything: an operator who gave the provider a least-privilege
// token learns which kinds it may manage before the first 403.
const TypeCoderPermissions xpv2.ConditionType = "CoderPermissions"

// Reasons of the CoderPermissions condition.
const (
	// ReasonCoderPermissionsGranted: the token may manage every kind.
	ReasonCoderPermissionsGranted xpv2.ConditionReason = "AllKinds"
	// ReasonCoderPermissionsMissing: some kinds lack a permission; the
	// message names each permission and kind.
	ReasonCoderPermissionsMissing xpv2.ConditionReason = "MissingCoderPermissions"
	// ReasonCoderPermissionsUnknown: Coder did not answer the check.
	ReasonCoderPermissionsUnknown xpv2.ConditionReason = "PermissionsUnknown"
)

// KindNeeds are the Coder permissions one managed kind's calls need, in
// both scopes.
type KindNeeds struct {
	Kind  string
	Needs []coder.Permission
}

// Needs lists every managed kind with the permissions Coder's database
// authorizer (coderd/database/dbauthz) checks for the calls its external
// client makes: read to observe, and what its create, update and delete
// check.
func Needs() []KindNeeds {
	p := func(r codersdk.RBACResource, as ...codersdk.RBACAction) []coder.Permission {
		ps := make([]coder.Permission, len(as))
		for i, a := range as {
			ps[i] = coder.Permission{Resource: r, Action: a}
		}
		return ps
	}
	read, create, update, del := codersdk.ActionRead, codersdk.ActionCreate, codersdk.ActionUpdate, codersdk.ActionDelete
	return []KindNeeds{
		{Kind: v1alpha1.AIProviderKind, Needs: p(codersdk.ResourceAIProvider, read, create, update, del)},
		// Coder keeps ai_gateway_key update for the gateway replicas'
		// heartbeats; the Owner role does not have it (rbac/roles.go).
		{Kind: v1alpha1.AIGatewayKeyKind, Needs: p(codersdk.ResourceAIGatewayKey, read, create, del)},
		{Kind: v1alpha1.GroupAIBudgetKind, Needs: p(codersdk.ResourceGroup, read, update)},
		{Kind: v1alpha1.UserAIBudgetOverrideKind, Needs: append(p(codersdk.ResourceUser, read, update), p(codersdk.ResourceGroup, read, update)...)},
		// Coder keeps MCP servers as deployment configuration
		// (dbauthz: GetMCPServerConfigs reads it, the writes update it).
		{Kind: v1alpha1.MCPServerKind, Needs: p(codersdk.ResourceDeploymentConfig, read, update)},
	}
}

// PermissionChecks is the authcheck request for every kind's Needs, one
// check per permission, named by the permission (Permission.String).
func PermissionChecks() map[string]codersdk.AuthorizationCheck {
	checks := map[string]codersdk.AuthorizationCheck{}
	for _, k := range Needs() {
		for _, p := range k.Needs {
			checks[p.String()] = p.Check()
		}
	}
	return checks
}

// CoderPermissionsCondition is the CoderPermissions condition for Coder's
// authcheck answers, keyed as PermissionChecks names them. A permission
// Coder did not answer counts as missing.
func CoderPermissionsCondition(allowed map[string]bool) xpv2.Condition {
	var missing, granted []string
	for _, k := range Needs() {
		var lacks []string
		for _, p := range k.Needs {
			if !allowed[p.String()] {
				lacks = append(lacks, p.String())
			}
		}
		if len(lacks) == 0 {
			granted = append(granted, k.Kind)
			continue
		}
		missing = append(missing, fmt.Sprintf("%s needs %s (Coder's %s role)", k.Kind, strings.Join(lacks, ", "), leastRole(k.Needs)))
	}
	c := xpv2.Condition{Type: TypeCoderPermissions, Status: corev1.ConditionTrue, Reason: ReasonCoderPermissionsGranted,
		Message: "the token's user may manage every kind in Coder"}
	if len(missing) == 0 {
		return c
	}
	c.Status, c.Reason = corev1.ConditionFalse, ReasonCoderPermissionsMissing
	c.Message = "the token's user lacks Coder permissions: " + strings.Join(missing, "; ") +
		"; Coder refuses (403) these kinds through this ProviderConfig"
	if len(granted) > 0 {
		c.Message += "; it may manage " + strings.Join(granted, ", ")
	}
	return c
}

// CoderPermissionsUnknown is the CoderPermissions condition when Coder did
// not answer the check; err is safe to show (internal/clients/coder).
func CoderPermissionsUnknown(err error) xpv2.Condition {
	return xpv2.Condition{Type: TypeCoderPermissions, Status: corev1.ConditionUnknown, Reason: ReasonCoderPermissionsUnknown,
		Message: "cannot ask Coder which kinds the token's user may manage: " + err.Error()}
}

func leastRole(ps []coder.Permission) string {
	role := ""
	for _, p := range ps {
		if r := coder.LeastRole(p.Resource); role == "" || r == "Owner" {
			role = r
		}
	}
	return role
}
