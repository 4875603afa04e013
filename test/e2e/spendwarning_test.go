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

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-coder/internal/spendwarning"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// TestBudgetSpendWarningTurnsTrueWithFiguresAndEventsOncePerPeriod: a
// GroupAIBudget with warnAt 90 is below it at 80% of its limit; its member
// spends up to 92%: the condition turns True with the figures, one Warning
// event is sent, and neither more polls nor a restart send another. The
// gauge shows the ratio; without warnAt the condition goes, and with the
// resource its series.
func TestBudgetSpendWarningTurnsTrueWithFiguresAndEventsOncePerPeriod(t *testing.T) {
	s, ns := env.Coder, env.Namespace(t)
	g, err := s.CreateGroup(ns)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser("m" + uuid.NewString()[:8])
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddGroupMember(g.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	spend := func(micros int64) {
		t.Helper()
		if err := s.SetSpend(u.ID, g.ID, micros); err != nil {
			t.Fatal(err)
		}
	}
	spend(4_000_000)
	env.ProviderConfig(t, ns)
	b := newGroupBudget(ns, "ml", g.Name, 5_000_000)
	b.Spec.ForProvider.WarnAt = ptr.To[int32](90)
	env.Create(t, b)

	c := env.WaitCondition(t, b, spendwarning.TypeSpendWarning, corev1.ConditionFalse, testenv.WaitLong)
	if c.Reason != spendwarning.ReasonBelow || !strings.Contains(c.Message, "spend 4000000 micros is 80% of the group's combined limit, 5000000 micros: below warnAt 90%") {
		t.Errorf("SpendWarning at 80%%: %s %q, want %s with the figures", c.Reason, c.Message, spendwarning.ReasonBelow)
	}

	spend(4_600_000)
	c = env.WaitCondition(t, b, spendwarning.TypeSpendWarning, corev1.ConditionTrue, testenv.WaitLong)
	env.Get(t, b)
	o := b.Status.AtProvider
	if o.PeriodStart == nil || o.PeriodEnd == nil {
		t.Fatalf("status.atProvider has no budget period: %+v", o)
	}
	want := fmt.Sprintf("spend 4600000 micros is 92%% of the group's combined limit, 5000000 micros: at or above warnAt 90%%; the budget period ends %s",
		o.PeriodEnd.UTC().Format(time.RFC3339))
	if c.Reason != spendwarning.ReasonReached || c.Message != want {
		t.Errorf("SpendWarning at 92%%: %s %q, want %s %q", c.Reason, c.Message, spendwarning.ReasonReached, want)
	}
	testenv.Eventually(t, testenv.WaitLong, "the period's warning recorded in status", func() (bool, string) {
		env.Get(t, b)
		w := b.Status.AtProvider.WarnedPeriodStart
		return w != nil && w.Equal(o.PeriodStart), fmt.Sprintf("warnedPeriodStart %v, period start %v", w, o.PeriodStart)
	})
	if got := spendRatio(env.Cluster.ProviderMetrics(t), ns, "ml"); got != "0.92" {
		t.Errorf("provider_coder_budget_spend_ratio of %s/ml = %s, want 0.92", ns, got)
	}

	// More spend, more polls, and a restart: the period has its one event.
	spend(4_700_000)
	testenv.Eventually(t, testenv.WaitLong, "the new spend in the condition", func() (bool, string) {
		env.Get(t, b)
		m := b.GetCondition(spendwarning.TypeSpendWarning).Message
		return strings.Contains(m, "spend 4700000 micros is 94%"), m
	})
	env.Cluster.RestartProvider(t)
	waitBudgetReads(t, s, 3, "three polls after the restart")
	if n := warnings(t, string(b.UID)); n != 1 {
		t.Errorf("%d %s events after more spend, more polls and a restart, want 1: %v", n, spendwarning.ReasonReached, eventsOf(t, string(b.UID)))
	}

	if err := env.Update(t, b, func() { b.Spec.ForProvider.WarnAt = nil }); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the condition removed with warnAt", func() (bool, string) {
		env.Get(t, b)
		c := b.GetCondition(spendwarning.TypeSpendWarning)
		return c.Status == corev1.ConditionUnknown, fmt.Sprintf("SpendWarning %s %s", c.Status, c.Reason)
	})
	if got := spendRatio(env.Cluster.ProviderMetrics(t), ns, "ml"); got != "0.94" {
		t.Errorf("provider_coder_budget_spend_ratio without warnAt = %s, want 0.94", got)
	}

	env.Delete(t, b)
	env.WaitGone(t, b, testenv.WaitLong)
	testenv.Eventually(t, testenv.WaitLong, "the series gone with the budget", func() (bool, string) {
		got := spendRatio(env.Cluster.ProviderMetrics(t), ns, "ml")
		return got == "", "series " + got
	})
}

// warnings counts the SpendReachedWarnAt events about uid, repeats
// included.
func warnings(t *testing.T, uid string) int32 {
	t.Helper()
	var n int32
	for _, e := range env.Events(t) {
		if string(e.InvolvedObject.UID) == uid && e.Reason == string(spendwarning.ReasonReached) {
			n += max(e.Count, 1)
		}
	}
	return n
}

// spendRatio is the provider_coder_budget_spend_ratio of the namespaced
// GroupAIBudget ns/name in mfs; "" without one.
func spendRatio(mfs []*dto.MetricFamily, ns, name string) string {
	for _, mf := range mfs {
		if mf.GetName() != "provider_coder_budget_spend_ratio" {
			continue
		}
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["kind"] == kindGroupBudget && l["resource_namespace"] == ns && l["resource_name"] == name {
				return fmt.Sprintf("%.2f", m.GetGauge().GetValue())
			}
		}
	}
	return ""
}
