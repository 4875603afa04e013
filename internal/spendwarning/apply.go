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

package spendwarning

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// A Budget is a GroupAIBudget or a UserAIBudgetOverride of either scope.
type Budget interface {
	resource.Managed
	StatusConditions() *xpv2.ConditionedStatus
}

// Apply writes d on b, a budget of kind: the condition, set or removed;
// the period whose event was sent, in st; the event; and b's ratio series.
// All but the event and the series are in b's status, which the managed
// reconciler persists after Observe.
func Apply(b Budget, kind string, st *common.AISpendWarningStatus, record event.Recorder, d Decision) {
	setCondition(b.StatusConditions(), d.Condition)
	st.WarnedPeriodStart = d.Warned
	if d.Event {
		record.Event(b, event.Warning(event.Reason(ReasonReached), errors.New(d.Condition.Message)))
	}
	if d.HasRatio {
		metrics.SetBudgetSpendRatio(kind, b.GetNamespace(), b.GetName(), d.Ratio)
		return
	}
	Forget(kind, b.GetNamespace(), b.GetName())
}

// Forget removes the ratio series of a budget that has no limit any more,
// is being deleted, or is gone.
func Forget(kind, namespace, name string) { metrics.ForgetBudgetSpendRatio(kind, namespace, name) }

// setCondition sets c in s, or removes the SpendWarning condition when c
// is nil. A condition whose status did not change keeps its transition
// time though its figures did: a poll that only moves the spend is not a
// transition.
func setCondition(s *xpv2.ConditionedStatus, c *xpv2.Condition) {
	if c == nil {
		kept := s.Conditions[:0]
		for _, x := range s.Conditions {
			if x.Type != TypeSpendWarning {
				kept = append(kept, x)
			}
		}
		s.Conditions = kept
		return
	}
	next := *c
	next.LastTransitionTime = metav1.Now()
	if was := s.GetCondition(TypeSpendWarning); was.Status == next.Status && !was.LastTransitionTime.IsZero() {
		next.LastTransitionTime = was.LastTransitionTime
	}
	s.SetConditions(next)
}
