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

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Reasons of the Ready condition of a ProviderConfig. Each names what an
// operator has to look at.
const (
	// ReasonCredentialsUnavailable: the token Secret or CA Secret cannot be read.
	ReasonCredentialsUnavailable xpv2.ConditionReason = "CredentialsUnavailable"
	// ReasonCoderUnreachable: /api/v2/buildinfo did not answer.
	ReasonCoderUnreachable xpv2.ConditionReason = "CoderUnreachable"
	// ReasonUnauthorized: Coder rejected the session token.
	ReasonUnauthorized xpv2.ConditionReason = "Unauthorized"
	// ReasonConnected: Coder answered and accepted the token.
	ReasonConnected xpv2.ConditionReason = "Connected"
	// ReasonMissingPermissions: the provider's ServiceAccount lacks RBAC it
	// needs beyond what Crossplane grants (examples/install/rbac.yaml).
	ReasonMissingPermissions xpv2.ConditionReason = "MissingPermissions"
)

// CreateRefused says why nothing may be created in Coder through pc now;
// empty when creates may go ahead. A ProviderConfig being deleted takes no
// new objects, and one the controller holds not Ready for a reason the
// provider must mend first (its own permissions, the protection of the
// credentials) would leave objects in Coder it could not account for once
// deleted. Other reasons stop nothing here: a Coder that is down or refuses
// the token fails the create itself.
func CreateRefused(pc Object) string {
	if pc.GetDeletionTimestamp() != nil {
		return "the ProviderConfig is being deleted"
	}
	c := pc.GetCondition(xpv2.TypeReady)
	if c.Status != corev1.ConditionFalse {
		return ""
	}
	switch c.Reason {
	case ReasonMissingPermissions, ReasonCredentialsUnavailable:
		return fmt.Sprintf("%s is not Ready (%s): %s", RefOfConfig(pc), c.Reason, c.Message)
	default:
		return ""
	}
}

// TypeAIGateway is the ProviderConfig condition that says whether the Coder
// deployment serves AI Gateway keys, from its /api/v2/entitlements: an
// operator learns it before the first key. AI providers need no licence.
const TypeAIGateway xpv2.ConditionType = "AIGateway"

// Reasons of the AIGateway condition.
const (
	// ReasonAIGatewayEnabled: the licence grants AI Gateway and the
	// deployment enables it.
	ReasonAIGatewayEnabled xpv2.ConditionReason = "Enabled"
	// ReasonAIGatewayNotEntitled: no licence grants AI Gateway.
	ReasonAIGatewayNotEntitled xpv2.ConditionReason = "NotEntitled"
	// ReasonAIGatewayNotEnabled: the licence grants it, the deployment
	// does not enable it.
	ReasonAIGatewayNotEnabled xpv2.ConditionReason = "NotEnabled"
	// ReasonAIGatewayUnknown: Coder's entitlements could not be read.
	ReasonAIGatewayUnknown xpv2.ConditionReason = "EntitlementsUnknown"
)

// Messages of the AIGateway condition: what an operator does about each.
const (
	msgAIGatewayEnabled     = "Coder's licence grants AI Gateway and the deployment enables it: AIGatewayKeys can be created"
	msgAIGatewayGrace       = "Coder's licence for AI Gateway has expired and is in its grace period: AIGatewayKeys work until it ends; renew the licence"
	msgAIGatewayNotEntitled = "Coder is not licensed for AI Gateway: AIGatewayKeys through this ProviderConfig are refused (403) until a Coder licence with the AI Governance add-on is added (a trial's will do); AIProviders need no licence"
	msgAIGatewayNotEnabled  = "Coder's licence grants AI Gateway but the deployment does not enable it: set CODER_AI_GATEWAY_ENABLED=true on the Coder server; until then AIGatewayKeys are refused (403)"
	msgAIGatewayUnknown     = "cannot read Coder's entitlements, so whether AIGatewayKeys will work is unknown"
)

// AIGatewayCondition is the AIGateway condition for the AI Gateway feature
// as Coder's entitlements show it. Coder disables a feature its licence
// does not grant (enterprise/coderd/license/license.go), so Enabled alone
// decides whether keys work; the entitlement says what to do when not.
func AIGatewayCondition(f codersdk.Feature) xpv2.Condition {
	c := xpv2.Condition{Type: TypeAIGateway, Status: corev1.ConditionTrue, Reason: ReasonAIGatewayEnabled, Message: msgAIGatewayEnabled}
	switch {
	case f.Enabled && f.Entitlement == codersdk.EntitlementGracePeriod:
		c.Message = msgAIGatewayGrace
	case f.Enabled:
	case f.Entitlement.Entitled():
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, ReasonAIGatewayNotEnabled, msgAIGatewayNotEnabled
	default:
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, ReasonAIGatewayNotEntitled, msgAIGatewayNotEntitled
	}
	return c
}

// AIGatewayUnknown is the AIGateway condition when the entitlements could
// not be read; err is safe to show (internal/clients/coder).
func AIGatewayUnknown(err error) xpv2.Condition {
	return xpv2.Condition{Type: TypeAIGateway, Status: corev1.ConditionUnknown, Reason: ReasonAIGatewayUnknown, Message: msgAIGatewayUnknown + ": " + err.Error()}
}
