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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aibudget"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

const kindGroupBudget = "GroupAIBudget"

func newGroupBudget(ns, name, group string, limit int64) *aiv1alpha1.GroupAIBudget {
	b := &aiv1alpha1.GroupAIBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	b.Spec.ProviderConfigReference = testenv.PCRef()
	b.Spec.ForProvider.GroupName = ptr.To(group)
	b.Spec.ForProvider.SpendLimitMicros = ptr.To(limit)
	return b
}

// budgetCoder is a fake Coder of the scenario's own, for a scenario that
// disturbs it, with a group of one member who has spent spend micros this
// period. The scenario checks its token appears nowhere.
func budgetCoder(t *testing.T, group string, spend int64) (*fakecoder.Server, fakecoder.GroupRow) {
	t.Helper()
	s := fakecoder.New(fakecoder.Options{})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, budgetGroup(t, s, group, spend)
}

// budgetGroup adds a group of one member who has spent spend micros this
// period to s.
func budgetGroup(t *testing.T, s *fakecoder.Server, group string, spend int64) fakecoder.GroupRow {
	t.Helper()
	g, err := s.CreateGroup(group)
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
	if err := s.SetSpend(u.ID, g.ID, spend); err != nil {
		t.Fatal(err)
	}
	return g
}

// budgetLimit is the limit of group g's budget in Coder; false when it has
// none.
func budgetLimit(s *fakecoder.Server, g uuid.UUID) (int64, bool) {
	b, ok := s.GroupBudgets()[g]
	return b.SpendLimitMicros, ok
}

func waitBudget(t *testing.T, s *fakecoder.Server, g uuid.UUID, limit int64, what string) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, what, func() (bool, string) {
		got, ok := budgetLimit(s, g)
		return ok && got == limit, fmt.Sprintf("budget present %t, limit %d", ok, got)
	})
}

// TestGroupAIBudgetIsSetPutBackAndDeleted: a GroupAIBudget writes the
// group's budget and shows its spend; a new limit is PUT; a change made in
// Coder is put back; deleting it leaves the group with no budget, Coder's
// default, and no record.
func TestGroupAIBudgetIsSetPutBackAndDeleted(t *testing.T) {
	s, ns := env.Coder, env.Namespace(t)
	g := budgetGroup(t, s, ns, 1_250_000)
	env.ProviderConfig(t, ns)
	b := newGroupBudget(ns, "platform", g.Name, 5_000_000)
	env.Create(t, b)
	env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitBudget(t, s, g.ID, 5_000_000, "the budget in Coder")
	testenv.Eventually(t, testenv.WaitLong, "the spend in status.atProvider", func() (bool, string) {
		env.Get(t, b)
		o := b.Status.AtProvider
		return o.GroupID == g.ID.String() && ptr.Deref(o.SpendLimitMicros, 0) == 5_000_000 && o.CurrentSpendMicros == 1_250_000,
			fmt.Sprintf("atProvider %+v", o)
	})
	if got := meta.GetExternalName(b); got != g.ID.String() {
		t.Errorf("external name = %q, want the group id %s", got, g.ID)
	}
	rec := recordOf(t, kindGroupBudget, b.UID)
	if rec == nil || rec.Status.ExternalID != g.ID.String() || rec.Status.CoderUpdatedAt != deletion.FormatUpdatedAt(s.GroupBudgets()[g.ID].UpdatedAt) {
		t.Fatalf("cleanup record = %+v, want it to name the group and Coder's updated_at %s", rec, s.GroupBudgets()[g.ID].UpdatedAt)
	}

	puts := s.Requests(fakecoder.EndpointGroupBudgetPut)
	if err := env.Update(t, b, func() { b.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](7_000_000) }); err != nil {
		t.Fatal(err)
	}
	waitBudget(t, s, g.ID, 7_000_000, "the new limit PUT to Coder")

	// Someone sets the budget in Coder: the next poll puts the spec back.
	if _, err := testenv.LocalCoder(s).SDK(t).UpsertGroupAIBudget(context.Background(), g.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: 9_000_000}); err != nil {
		t.Fatal(err)
	}
	waitBudget(t, s, g.ID, 7_000_000, "the change made in Coder to be put back")
	// Two more polls find nothing to do: the provider's own PUT is not
	// taken for a change in Coder.
	waitBudgetReads(t, s, 2, "two more polls of the budget")
	// The new limit, the change made in Coder, and putting it back.
	if n := s.Requests(fakecoder.EndpointGroupBudgetPut) - puts; n != 3 {
		t.Errorf("%d PUT requests for a new limit and one change in Coder put back, want 3", n)
	}

	env.Delete(t, b)
	env.WaitGone(t, b, testenv.WaitLong)
	// The create, the new limit, the change in Coder put back, the delete.
	wantChanges(t, b, change{op: opCreate}, change{op: opUpdate}, change{op: opUpdate}, change{op: opDelete})
	if got, ok := budgetLimit(s, g.ID); ok {
		t.Errorf("the group still has a budget (%d micros) after its GroupAIBudget was deleted", got)
	}
	if r := recordOf(t, kindGroupBudget, b.UID); r != nil {
		t.Errorf("cleanup record left after a verified delete: %+v", r)
	}
}

// TestGroupAIBudgetReleasedWithItsTokenGoneIsSweptOnlyWhileOurs: a
// namespace is deleted after Coder stopped accepting its ProviderConfig's
// token, so its two budgets are released without delete, counted and
// evented, and their records stay Abandoned. Someone then changes one
// budget in Coder: the sweep deletes the other, whose updated_at is still
// the provider's, and leaves the changed one.
func TestGroupAIBudgetReleasedWithItsTokenGoneIsSweptOnlyWhileOurs(t *testing.T) {
	s, kept := budgetCoder(t, "kept", 0)
	changed, err := s.CreateGroup("changed")
	if err != nil {
		t.Fatal(err)
	}
	c := testenv.LocalCoder(s)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	bk, bc := newGroupBudget(ns, "kept", kept.Name, 5_000_000), newGroupBudget(ns, "changed", changed.Name, 6_000_000)
	env.Create(t, bk)
	env.Create(t, bc)
	env.WaitCondition(t, bk, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.WaitCondition(t, bc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	before := releasedWithoutDelete(t, kindGroupBudget)

	// The token is revoked in Coder, then the namespace goes.
	token := s.Token()
	s.SetToken("revoked-" + uuid.NewString())
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	env.Delete(t, nsObj)
	env.WaitGone(t, nsObj, 2*time.Minute)
	for _, b := range []*aiv1alpha1.GroupAIBudget{bk, bc} {
		if r := recordOf(t, kindGroupBudget, b.UID); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
			t.Fatalf("cleanup record of %s after the namespace went = %+v, want Abandoned", b.Name, r)
		}
	}
	if got := releasedWithoutDelete(t, kindGroupBudget) - before; got != 2 {
		t.Errorf("released_without_delete_total{kind=GroupAIBudget} grew by %v, want 2", got)
	}
	if _, ok := budgetLimit(s, kept.ID); !ok {
		t.Fatal("the budget was deleted although Coder refused the token")
	}

	// Someone sets the second group's budget in Coder before the sweep.
	s.SetToken(token)
	if _, err := c.SDK(t).UpsertGroupAIBudget(context.Background(), changed.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: 8_000_000}); err != nil {
		t.Fatal(err)
	}
	sweepThrough(t, c)
	waitRecordGone(t, kindGroupBudget, bk.UID)
	waitRecordGone(t, kindGroupBudget, bc.UID)
	if got, ok := budgetLimit(s, kept.ID); ok {
		t.Errorf("the sweep left the provider's own budget of %s (%d micros)", kept.Name, got)
	}
	if got, ok := budgetLimit(s, changed.ID); !ok || got != 8_000_000 {
		t.Errorf("budget of %s after the sweep = (%d, present %t), want the 8000000 someone set since", changed.Name, got, ok)
	}
	// The suite scans for the shared Coder's token; this Coder's is checked
	// here.
	if strings.Contains(env.Cluster.ProviderLogs(t), token) {
		t.Error("the provider logged this Coder's session token")
	}
}

// TestGroupAIBudgetRefusesABudgetItDidNotSetUntilImported: a budget set in
// Coder before the resource existed is not written over; the condition
// says how to take it over, and an external name set to the group id does.
// Deleting the importer deletes the budget it now owns.
func TestGroupAIBudgetRefusesABudgetItDidNotSetUntilImported(t *testing.T) {
	s, ns := env.Coder, env.Namespace(t)
	g := budgetGroup(t, s, ns, 0)
	env.ProviderConfig(t, ns)
	if _, err := testenv.LocalCoder(s).SDK(t).UpsertGroupAIBudget(context.Background(), g.ID, codersdk.UpsertGroupAIBudgetRequest{SpendLimitMicros: 3_000_000}); err != nil {
		t.Fatal(err)
	}
	b := newGroupBudget(ns, "taken", g.Name, 5_000_000)
	env.Create(t, b)
	testenv.Eventually(t, testenv.WaitLong, "Ready False with reason BudgetExists", func() (bool, string) {
		env.Get(t, b)
		c := b.GetCondition(xpv2.TypeReady)
		return c.Reason == aibudget.ReasonBudgetExists && strings.Contains(c.Message, g.ID.String()), fmt.Sprintf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
	})
	if got, _ := budgetLimit(s, g.ID); got != 3_000_000 {
		t.Fatalf("the refused resource changed the budget in Coder to %d", got)
	}

	if err := env.Update(t, b, func() { meta.SetExternalName(b, g.ID.String()) }); err != nil {
		t.Fatal(err)
	}
	env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitBudget(t, s, g.ID, 5_000_000, "the imported budget to take the spec's limit")
	env.Delete(t, b)
	env.WaitGone(t, b, testenv.WaitLong)
	if got, ok := budgetLimit(s, g.ID); ok {
		t.Errorf("the imported budget (%d micros) is still in Coder after its resource was deleted", got)
	}
}

// TestGroupAIBudgetOnAnUnlicensedCoderSaysSo: Coder refuses groups without
// a licence; the condition names the licence, and deleting the resource
// finishes at once, since nothing was written.
func TestGroupAIBudgetOnAnUnlicensedCoderSaysSo(t *testing.T) {
	s, g := budgetCoder(t, "unlicensed", 0)
	s.SetLicensed(false)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, testenv.LocalCoder(s), nil)
	b := newGroupBudget(ns, "unlicensed", g.Name, 5_000_000)
	env.Create(t, b)
	testenv.Eventually(t, testenv.WaitLong, "Ready False with reason NotLicensed", func() (bool, string) {
		env.Get(t, b)
		c := b.GetCondition(xpv2.TypeReady)
		return c.Reason == aibudget.ReasonNotLicensed && strings.Contains(c.Message, "licen"), fmt.Sprintf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
	})
	before := releasedWithoutDelete(t, kindGroupBudget)
	env.Delete(t, b)
	env.WaitGone(t, b, testenv.WaitLong)
	if got := releasedWithoutDelete(t, kindGroupBudget) - before; got != 0 {
		t.Errorf("released_without_delete_total grew by %v for a budget never written", got)
	}
	if strings.Contains(env.Cluster.ProviderLogs(t), s.Token()) {
		t.Error("the provider logged this Coder's session token")
	}
}

// TestGroupAIBudgetExamplesAreAdmitted applies every GroupAIBudget and
// UserAIBudgetOverride example of both scopes with a server-side dry run.
func TestGroupAIBudgetExamplesAreAdmitted(t *testing.T) {
	ns := env.Namespace(t)
	n := 0
	for _, scope := range []string{"namespaced", "cluster"} {
		var files []string
		for _, kind := range []string{"groupaibudget", "useraibudgetoverride"} {
			more, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "examples", scope, kind, "*.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, more...)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if u.GetNamespace() != "" {
					u.SetNamespace(ns)
				}
				n++
				if err := env.Kube.Create(context.Background(), u, client.DryRunAll); err != nil {
					t.Errorf("%s/%s: %s %s is not admitted: %v", scope, filepath.Base(f), u.GetKind(), u.GetName(), err)
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("%d budget examples, want at least 5 (a budget, observe-only and an override namespaced, a budget and an override cluster-scoped)", n)
	}
}

// TestTwoGroupAIBudgetsOfOneGroupLeaveOneOwner: two resources created at
// once for one group race their first writes; one owns the budget and the
// other is refused, and neither writes over the other afterwards.
func TestTwoGroupAIBudgetsOfOneGroupLeaveOneOwner(t *testing.T) {
	s, ns := env.Coder, env.Namespace(t)
	g := budgetGroup(t, s, ns, 0)
	env.ProviderConfig(t, ns)
	a, b := newGroupBudget(ns, "a", g.Name, 1_000_000), newGroupBudget(ns, "b", g.Name, 2_000_000)
	env.Create(t, a)
	env.Create(t, b)
	var owner, other *aiv1alpha1.GroupAIBudget
	testenv.Eventually(t, testenv.WaitLong, "one Ready owner and one refused resource", func() (bool, string) {
		env.Get(t, a)
		env.Get(t, b)
		ra, rb := a.GetCondition(xpv2.TypeReady), b.GetCondition(xpv2.TypeReady)
		owner, other = a, b
		if rb.Status == corev1.ConditionTrue {
			owner, other = b, a
		}
		refused := other.GetCondition(xpv2.TypeReady)
		ok := owner.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && refused.Status == corev1.ConditionFalse &&
			(refused.Reason == aibudget.ReasonBudgetExists || strings.Contains(refused.Message, "is owned by"))
		return ok, fmt.Sprintf("a: %s %s %q; b: %s %s %q", ra.Status, ra.Reason, ra.Message, rb.Status, rb.Reason, rb.Message)
	})
	want := *owner.Spec.ForProvider.SpendLimitMicros
	waitBudget(t, s, g.ID, want, "the owner's limit in Coder")
	puts := s.Requests(fakecoder.EndpointGroupBudgetPut)
	waitBudgetReads(t, s, 4, "two more polls of both resources")
	if n := s.Requests(fakecoder.EndpointGroupBudgetPut) - puts; n != 0 {
		t.Errorf("%d PUT requests after one resource owned the budget, want 0: the two write over each other", n)
	}
	if got, _ := budgetLimit(s, g.ID); got != want {
		t.Errorf("budget limit = %d, want the owner's %d", got, want)
	}
	if r := recordOf(t, kindGroupBudget, other.UID); r != nil && r.Status.ExternalID == g.ID.String() {
		t.Errorf("the refused resource keeps a record naming the group: %+v", r.Status)
	}
}

// TestGroupAIBudgetOnTheRealUnlicensedCoderSaysSo: the real Coder v2.36.0
// without a licence refuses its group routes ("Template RBAC is a Premium
// feature") before it looks for the group; the resource says the licence
// is missing, and its deletion writes and releases nothing. With a licence
// supplied the real Coder serves budgets, which this scenario does not
// cover.
func TestGroupAIBudgetOnTheRealUnlicensedCoderSaysSo(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	if c.ServesKeys() {
		t.Skip("the real Coder is licensed: it serves budgets, and refuses nothing for a licence")
	}
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	b := newGroupBudget(ns, "real-unlicensed", "", 5_000_000)
	b.Spec.ForProvider.GroupName = nil
	b.Spec.ForProvider.GroupID = ptr.To(uuid.NewString())
	env.Create(t, b)
	testenv.Eventually(t, testenv.WaitLong, "Ready False with reason NotLicensed", func() (bool, string) {
		env.Get(t, b)
		c := b.GetCondition(xpv2.TypeReady)
		return c.Reason == aibudget.ReasonNotLicensed && strings.Contains(c.Message, "licen"), fmt.Sprintf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
	})
	before := releasedWithoutDelete(t, kindGroupBudget)
	env.Delete(t, b)
	env.WaitGone(t, b, testenv.WaitLong)
	if got := releasedWithoutDelete(t, kindGroupBudget) - before; got != 0 {
		t.Errorf("released_without_delete_total grew by %v for a budget never written", got)
	}
}

// waitBudgetReads waits until s has answered n more reads of a group
// budget: the polls a scenario gives the provider to do what it must not.
func waitBudgetReads(t *testing.T, s *fakecoder.Server, n int, why string) {
	t.Helper()
	from := s.Requests(fakecoder.EndpointGroupBudgetGet)
	testenv.Eventually(t, testenv.WaitLong, why, func() (bool, string) {
		got := s.Requests(fakecoder.EndpointGroupBudgetGet) - from
		return got >= n, fmt.Sprintf("%d reads of the budget", got)
	})
}
