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

// Package policy answers, for every kind's external client and for
// deletion, what crossplane-runtime's managed reconciler decides from a
// resource's management policies: may it update, may it delete, does it
// act at all. It sits beside the reconciler's options (managedkind) and
// imports nothing of the provider, so managedkind, deletion and every
// kind's client ask the same question and get the same answer.
package policy

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// MayDelete reports whether a resource's policies let the provider delete
// its object in Coder, as the managed reconciler decides it: an
// observe-only import or an orphaned resource never deletes.
func MayDelete(mg resource.Managed) bool { return Of(mg).ShouldDelete() }

// Of resolves mg's management policies as the managed reconciler does, so
// an external client asks the same question the reconciler asks (may it
// update? may it delete?) and gets the same answer.
func Of(mg resource.Managed) managed.ManagementPoliciesChecker {
	ps := mg.GetManagementPolicies()
	if len(ps) == 0 {
		// The API server defaults it to ["*"].
		ps = xpv2.ManagementPolicies{xpv2.ManagementActionAll}
	}
	return resolve(mg, true, ps)
}

// resolve is the managed reconciler's resolver of ps for mg: the
// cluster-scoped kinds keep deletionPolicy, as the reconciler does for
// them.
func resolve(mg resource.Managed, enabled bool, ps xpv2.ManagementPolicies) managed.ManagementPoliciesChecker {
	if l, ok := mg.(resource.LegacyManaged); ok { //nolint:staticcheck // Our cluster-scoped kinds are legacy managed resources.
		return managed.NewLegacyManagementPoliciesResolver(enabled, ps, l.GetDeletionPolicy()) //nolint:staticcheck // As above.
	}
	return managed.NewManagementPoliciesResolver(enabled, ps)
}

// Reasons the managed reconciler leaves a resource alone (Stalled); a
// deleting one released at its bound is released without delete for them.
const (
	// ReasonPaused: the crossplane.io/paused annotation, or empty
	// management policies.
	ReasonPaused = "Paused"
	// ReasonUnsupportedPolicies: management policies the managed
	// reconciler does not support (or any but the default while
	// management policies are disabled).
	ReasonUnsupportedPolicies = "UnsupportedManagementPolicies"
)

// Stalled says why the managed reconciler will not act on mg, as it decides
// it: paused, or its management policies are not supported (it reports them
// and waits for a change). Either way it returns before it observes,
// deletes or removes a finalizer, and does not requeue. Empty when it acts.
// enabled: management policies are enabled.
func Stalled(mg resource.Managed, enabled bool) string {
	p := resolve(mg, enabled, mg.GetManagementPolicies())
	switch {
	case meta.IsPaused(mg) || p.IsPaused():
		return ReasonPaused
	case p.Validate() != nil:
		return ReasonUnsupportedPolicies
	default:
		return ""
	}
}
