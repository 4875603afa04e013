package providerconfig

import (
	"fmt"

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
