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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aibudget"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// TestGroupAIBudgetWhoseGroupTheTokenCannotSeeIsNotTakenForDeleted: the
// token loses sight of a budget's group (a demoted user, a scoped token),
// so Coder answers 404 for the group and its budget, as it does for a group
// that is gone. The deleting resource waits, saying so and naming the
// group; past its ProviderConfig's bounds it is released, counted, with
// the budget still in Coder and its record Abandoned. The sweep leaves the
// record while the group stays unseen, and deletes the budget once the
// token sees the group again.
func TestGroupAIBudgetWhoseGroupTheTokenCannotSeeIsNotTakenForDeleted(t *testing.T) {
	s, g := budgetCoder(t, "hidden", 0)
	c := testenv.LocalCoder(s)
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	b := newGroupBudget(ns, "hidden", g.Name, 5_000_000)
	env.Create(t, b)
	env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitBudget(t, s, g.ID, 5_000_000, "the budget in Coder")
	before := releasedWithoutDelete(t, kindGroupBudget)

	s.SetHidden(g.ID, true)
	env.Delete(t, b)
	testenv.Eventually(t, testenv.WaitLong, "the deleting budget to say the token cannot see its group", func() (bool, string) {
		if !env.Get(t, b) {
			return false, "the GroupAIBudget is gone although Coder only answered 404 for a group the token cannot see"
		}
		ready, synced := b.GetCondition(xpv2.TypeReady), b.GetCondition(xpv2.TypeSynced)
		says := func(c xpv2.Condition) bool {
			return strings.Contains(c.Message, g.ID.String()) && strings.Contains(c.Message, "may not read")
		}
		return (ready.Reason == aibudget.ReasonNotVisible && says(ready)) || says(synced),
			fmt.Sprintf("Ready %s %s: %s; Synced %s: %s", ready.Status, ready.Reason, ready.Message, synced.Status, synced.Message)
	})
	// It keeps waiting while its ProviderConfig stands.
	waitBudgetReads(t, s, 2, "two more looks at the budget")
	if !env.Get(t, b) {
		t.Fatal("the GroupAIBudget went while its ProviderConfig stands and its group is unseen")
	}

	// Its ProviderConfig goes: the hold's bounds release it, counted.
	env.Delete(t, pc)
	env.WaitGone(t, b, 2*time.Minute)
	if got := releasedWithoutDelete(t, kindGroupBudget) - before; got != 1 {
		t.Errorf("released_without_delete_total{kind=GroupAIBudget} grew by %v, want 1", got)
	}
	if _, ok := budgetLimit(s, g.ID); !ok {
		t.Fatal("the budget is gone from Coder; the scenario did not hide it")
	}
	rec := recordOf(t, kindGroupBudget, b.UID)
	if rec == nil || rec.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
		t.Fatalf("cleanup record after the release = %+v, want Abandoned", rec)
	}

	// The sweep, through a ClusterProviderConfig of this Coder, reads the
	// same 404s and leaves the record, naming the group.
	sweepThrough(t, c)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to keep the record with the reason", func() (bool, string) {
		r := recordOf(t, kindGroupBudget, b.UID)
		if r == nil {
			return false, "the sweep settled the record although the budget is still in Coder"
		}
		return strings.Contains(r.Status.LastError, g.ID.String()) && strings.Contains(r.Status.LastError, "may not read"),
			fmt.Sprintf("lastError %q", r.Status.LastError)
	})
	if _, ok := budgetLimit(s, g.ID); !ok {
		t.Fatal("the budget went while the token could not see its group")
	}

	// Seen again: the sweep deletes the budget, still the provider's.
	s.SetHidden(g.ID, false)
	waitRecordGone(t, kindGroupBudget, b.UID)
	if got, ok := budgetLimit(s, g.ID); ok {
		t.Errorf("the sweep settled the record and left the budget (%d micros)", got)
	}
}

// TestSweepDoesNotSettleABudgetRecordWhoseGroupTheTokenCannotSee: a
// budget released without delete (its token revoked while its namespace
// went) is left to the sweep; when the token is back but may no longer
// read the group, the budget's 404 is not taken for a delete.
func TestSweepDoesNotSettleABudgetRecordWhoseGroupTheTokenCannotSee(t *testing.T) {
	s, g := budgetCoder(t, "unseen", 0)
	c := testenv.LocalCoder(s)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	b := newGroupBudget(ns, "unseen", g.Name, 5_000_000)
	env.Create(t, b)
	env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitBudget(t, s, g.ID, 5_000_000, "the budget in Coder")

	token := s.Token()
	s.SetToken("revoked-" + uuid.NewString())
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	env.Delete(t, nsObj)
	env.WaitGone(t, nsObj, 2*time.Minute)
	if r := recordOf(t, kindGroupBudget, b.UID); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
		t.Fatalf("cleanup record after the namespace went = %+v, want Abandoned", r)
	}

	s.SetToken(token)
	s.SetHidden(g.ID, true)
	sweeps := s.Requests(fakecoder.EndpointGroupGet)
	sweepThrough(t, c)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to look and keep the record", func() (bool, string) {
		r := recordOf(t, kindGroupBudget, b.UID)
		if r == nil {
			return false, "the sweep settled the record although the budget is still in Coder"
		}
		return s.Requests(fakecoder.EndpointGroupGet) > sweeps && strings.Contains(r.Status.LastError, g.ID.String()),
			fmt.Sprintf("lastError %q", r.Status.LastError)
	})
	if _, ok := budgetLimit(s, g.ID); !ok {
		t.Fatal("the budget went while the token could not see its group")
	}
}
