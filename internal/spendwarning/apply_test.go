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
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

// events records the events sent, as the API recorder would send them.
type events []event.Event

func (e *events) Event(_ runtime.Object, ev event.Event) { *e = append(*e, ev) }

func (e *events) WithAnnotations(...string) event.Recorder { return e }

// ratio is the budget_spend_ratio series of the GroupAIBudget team-a/ml
// as the provider serves it; "" without one.
func ratio(t *testing.T) string {
	t.Helper()
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "provider_coder_budget_spend_ratio" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var l []string
			for _, p := range m.GetLabel() {
				l = append(l, p.GetName()+"="+p.GetValue())
			}
			if strings.Join(l, ",") == "kind=GroupAIBudget,resource_name=ml,resource_namespace=team-a" {
				return strconv.FormatFloat(m.GetGauge().GetValue(), 'g', -1, 64)
			}
		}
	}
	return ""
}

func TestApplyEventsOncePerPeriodKeepsTheTransitionTimeAndRemovesWhatIsUnset(t *testing.T) {
	b := &aiv1alpha1.GroupAIBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "ml"}}
	b.SetConditions(xpv2.Available())
	o := &b.Status.AtProvider
	var sent events
	poll := func(micros int64, warnAt *int32) {
		d := Decide(spend(micros, func(s *Spend) { s.WarnAt, s.Warned = warnAt, o.WarnedPeriodStart }))
		Apply(b, "GroupAIBudget", &o.AISpendWarningStatus, &sent, d)
	}

	poll(4_000_000, ptr.To[int32](80))
	first := b.GetCondition(TypeSpendWarning)
	if first.Status != corev1.ConditionTrue || len(sent) != 1 || sent[0].Reason != event.Reason(ReasonReached) || sent[0].Message != first.Message {
		t.Fatalf("first poll at warnAt: condition %+v, events %+v; want True and one %s event with its message", first, sent, ReasonReached)
	}
	if !o.WarnedPeriodStart.Equal(&july) {
		t.Errorf("warnedPeriodStart = %v, want the period's start %v", o.WarnedPeriodStart, july)
	}
	if got := ratio(t); got != "0.8" {
		t.Errorf("budget_spend_ratio = %q, want 0.8", got)
	}

	// Backdate the transition, so one written anew (now) would differ.
	for i := range b.Status.Conditions {
		if b.Status.Conditions[i].Type == TypeSpendWarning {
			b.Status.Conditions[i].LastTransitionTime = metav1.NewTime(first.LastTransitionTime.Add(-time.Hour))
			first = b.Status.Conditions[i]
		}
	}
	poll(4_500_000, ptr.To[int32](80))
	again := b.GetCondition(TypeSpendWarning)
	if len(sent) != 1 || !again.LastTransitionTime.Equal(&first.LastTransitionTime) || again.Message == first.Message {
		t.Errorf("second poll, more spend: %d events (want 1), transition %v (want %v kept), message %q (want new figures)",
			len(sent), again.LastTransitionTime, first.LastTransitionTime, again.Message)
	}

	poll(4_500_000, nil)
	if c := b.GetCondition(TypeSpendWarning); c.Status != corev1.ConditionUnknown || len(b.Status.Conditions) != 1 {
		t.Errorf("warnAt unset: conditions %+v, want only Ready", b.Status.Conditions)
	}
	if got := ratio(t); got != "0.9" {
		t.Errorf("budget_spend_ratio without warnAt = %q, want 0.9", got)
	}

	Apply(b, "GroupAIBudget", &o.AISpendWarningStatus, &sent, Decide(spend(0, func(s *Spend) { s.LimitMicros = nil })))
	if got := ratio(t); got != "" {
		t.Errorf("budget_spend_ratio without a limit = %q, want no series", got)
	}
}
