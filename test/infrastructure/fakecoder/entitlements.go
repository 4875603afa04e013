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

	"github.com/coder/coder/v2/codersdk"
)

// The fake's deployment is in one of three AI Gateway states:
//
//	licensed, enabled (the default)  aibridge entitled, enabled: keys work
//	licensed, AIGatewayDisabled      aibridge entitled, not enabled: keys 403
//	Unlicensed                       aibridge not_entitled, not enabled: keys 403
//
// The key endpoints' 403 and /api/v2/entitlements both read aiGatewayLocked,
// as coderd's RequireFeatureMW reads the entitlements set that
// serveEntitlements serves (enterprise/coderd/templates.go,
// enterprise/coderd/coderd.go).

// SetLicensed grants or removes the AI Gateway entitlement.
func (s *Server) SetLicensed(licensed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.licensed = licensed
}

// SetAIGatewayEnabled turns the deployment's AI Gateway on or off, as
// CODER_AI_GATEWAY_ENABLED does on a real server. Off, a licensed fake
// shows aibridge entitled but disabled and refuses gateway keys with 403.
func (s *Server) SetAIGatewayEnabled(enabled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aiGatewayEnabled = enabled
}

// aiGatewayLocked is the aibridge feature as Coder v2.36.0 computes it in
// license.LicensesEntitlements (enterprise/coderd/license/license.go): a
// licence that grants it makes it entitled and Enabled is the deployment's
// enablement (CODER_AI_GATEWAY_ENABLED, enterprise/coderd/coderd.go
// updateEntitlements: FeatureAIBridge: ...BridgeConfig.Enabled); without a
// licence it is not_entitled, and the closing loop there disables every
// not-entitled feature whatever the enablement. s.mu must be held.
func (s *Server) aiGatewayLocked() codersdk.Feature {
	if !s.licensed {
		return codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled, Enabled: false}
	}
	return codersdk.Feature{Entitlement: codersdk.EntitlementEntitled, Enabled: s.aiGatewayEnabled}
}

// entitlements mirrors serveEntitlements (enterprise/coderd/coderd.go),
// which writes api.Entitlements.AsJSON() with 200. The route is mounted
// without apiKeyMiddleware, so it needs no session: an anonymous or invalid
// token gets the same 200 (coderd's PrecheckAPIKey never rejects).
//
// The body is what license.LicensesEntitlements returns: every
// codersdk.FeatureNames entry present (not_entitled, disabled by default),
// user_limit carrying the active user count, warnings and errors as empty
// arrays, never null (they start as []string{} there and in
// entitlements.New). Only aibridge and has_license follow the fake's
// licence: a real licence entitles more features (its feature set or
// add-ons) and may add warnings (expiry, "The AI Governance add-on is
// required ..."), which the fake leaves out.
func (s *Server) entitlements(*http.Request) reply {
	s.mu.Lock()
	aiGateway, licensed := s.aiGatewayLocked(), s.licensed
	s.mu.Unlock()

	activeUsers := int64(1) // the fake's only user
	e := codersdk.Entitlements{
		Features: make(map[codersdk.FeatureName]codersdk.Feature, len(codersdk.FeatureNames)),
		Warnings: []string{},
		Errors:   []string{},
		// HasLicense: set by any valid licence (license.go); Trial and
		// RequireTelemetry come from the licence's claims, false here.
		HasLicense: licensed,
		// Coder refreshes on licence changes and every 10 minutes; the
		// fake's entitlements are always fresh.
		RefreshedAt: s.now(),
	}
	for _, name := range codersdk.FeatureNames {
		e.Features[name] = codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled, Enabled: false}
	}
	e.Features[codersdk.FeatureUserLimit] = codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled, Actual: &activeUsers}
	e.Features[codersdk.FeatureAIBridge] = aiGateway
	e.Features[codersdk.FeatureTemplateRBAC] = templateRBAC(licensed) // groups (groups.go)
	return reply{http.StatusOK, e}
}
