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

package argocd

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aibudget"
	"github.com/crossplane-contrib/provider-coder/internal/spendwarning"
)

// The refusals of the AI budget kinds: Observe sets Ready False with the
// reason and returns the error, so Synced is False too, and Argo CD shows
// the resource Degraded with what to do.
func init() {
	for name, r := range map[string]struct {
		override bool
		reason   xpv2.ConditionReason
		msg      string
	}{
		"budget-exists":           {false, aibudget.ReasonBudgetExists, "group 6f1c already has a budget of 5000000 micros in Coder that this resource did not set: set the external name to the group id to import it"},
		"budget-not-licensed":     {false, aibudget.ReasonNotLicensed, "Coder refused: its licence lacks the Template RBAC feature"},
		"budget-forbidden":        {false, aibudget.ReasonForbidden, "Coder refused: the token's user may not manage this group"},
		"budget-group-not-found":  {false, aibudget.ReasonGroupNotFound, "no group ml in Coder's organization coder"},
		"override-exists":         {true, aibudget.ReasonOverrideExists, "user alice already has an override in Coder that this resource did not set"},
		"override-user-not-found": {true, aibudget.ReasonUserNotFound, "no user alice in Coder"},
		"override-not-member":     {true, aibudget.ReasonUserNotGroupMember, "user alice is not a member of group ml"},
	} {
		managedStates[name] = managedState{
			set: func(mg resource.Managed) {
				c := xpv2.Unavailable()
				c.Reason, c.Message = r.reason, r.msg
				mg.SetConditions(at(c), syncError("cannot observe external resource: "+r.msg))
			},
			want: health{"Degraded", "cannot observe external resource: " + r.msg},
			only: map[bool]func(resource.Managed) bool{false: isGroupBudget, true: isOverride}[r.override],
		}
	}
}

// The spend warning of a budget with warnAt: the budget is healthy at
// any spend, and its condition and event say how near the limit it is;
// the scripts do not read it.
func init() {
	for name, r := range map[string]struct {
		status corev1.ConditionStatus
		reason xpv2.ConditionReason
	}{
		"spend-warning-reached":  {corev1.ConditionTrue, spendwarning.ReasonReached},
		"spend-warning-below":    {corev1.ConditionFalse, spendwarning.ReasonBelow},
		"spend-warning-no-limit": {corev1.ConditionFalse, spendwarning.ReasonNoLimit},
	} {
		managedStates[name] = managedState{
			set: func(mg resource.Managed) {
				mg.SetConditions(at(xpv2.Available()), synced(), at(xpv2.Condition{Type: spendwarning.TypeSpendWarning, Status: r.status, Reason: r.reason}))
			},
			want: health{"Healthy", "Available in Coder"},
			only: func(mg resource.Managed) bool { return isGroupBudget(mg) || isOverride(mg) },
		}
	}
}

func isGroupBudget(mg resource.Managed) bool {
	switch mg.(type) {
	case *namespacedaiv1alpha1.GroupAIBudget, *clusteraiv1alpha1.GroupAIBudget:
		return true
	}
	return false
}

func isOverride(mg resource.Managed) bool {
	switch mg.(type) {
	case *namespacedaiv1alpha1.UserAIBudgetOverride, *clusteraiv1alpha1.UserAIBudgetOverride:
		return true
	}
	return false
}
