package managedkind

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Policies resolves mg's management policies as the managed reconciler
// does, so an external client asks the same question the reconciler asks
// (may it update? may it delete?) and gets the same answer.
func Policies(mg resource.Managed) managed.ManagementPoliciesChecker {
	ps := mg.GetManagementPolicies()
	if len(ps) == 0 {
		// The API server defaults it to ["*"].
		ps = xpv2.ManagementPolicies{xpv2.ManagementActionAll}
	}
	// The cluster-scoped kinds keep deletionPolicy, as the managed
	// reconciler does for them.
	if l, ok := mg.(resource.LegacyManaged); ok { //nolint:staticcheck // Our cluster-scoped kinds are legacy managed resources.
		return managed.NewLegacyManagementPoliciesResolver(true, ps, l.GetDeletionPolicy()) //nolint:staticcheck // As above.
	}
	return managed.NewManagementPoliciesResolver(true, ps)
}
