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
	"context"
	"fmt"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aibudget"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

const kindUserOverride = "UserAIBudgetOverride"

// TestUserAIBudgetOverrideFollowsItsUsersMembership: an override is
// written for a member of the group, with the user's spend in status; a
// change made in Coder is put back; when the user leaves the group Coder
// drops the override, and the resource says the user is no member instead
// of retrying silently; deleting it then finishes, leaving no override.
func TestUserAIBudgetOverrideFollowsItsUsersMembership(t *testing.T) {
	s, ns := env.Coder, env.Namespace(t)
	g := budgetGroup(t, s, ns, 0)
	for _, row := range s.Groups() {
		if row.ID == g.ID {
			g = row
		}
	}
	if len(g.Members) != 1 {
		t.Fatalf("group %s has members %v, want the one budgetGroup added", g.Name, g.Members)
	}
	user := g.Members[0]
	if err := s.SetSpend(user, g.ID, 400_000); err != nil {
		t.Fatal(err)
	}
	env.ProviderConfig(t, ns)
	o := &aiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lead"}}
	o.Spec.ProviderConfigReference = testenv.PCRef()
	o.Spec.ForProvider.User = user.String()
	o.Spec.ForProvider.GroupName = ptr.To(g.Name)
	o.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](20_000_000)
	env.Create(t, o)
	env.WaitCondition(t, o, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	testenv.Eventually(t, testenv.WaitLong, "the override and spend in status.atProvider", func() (bool, string) {
		env.Get(t, o)
		a := o.Status.AtProvider
		return a.Member && a.GroupID == g.ID.String() && ptr.Deref(a.SpendLimitMicros, 0) == 20_000_000 && a.CurrentSpendMicros == 400_000,
			fmt.Sprintf("atProvider %+v", a)
	})
	if got := meta.GetExternalName(o); got != user.String() {
		t.Errorf("external name = %q, want the user id %s", got, user)
	}
	if r := recordOf(t, kindUserOverride, o.UID); r == nil || r.Status.GroupID != g.ID.String() || r.Status.CoderUpdatedAt == "" {
		t.Fatalf("cleanup record = %+v, want it to name the group and Coder's updated_at", r)
	}

	if _, err := testenv.LocalCoder(s).SDK(t).UpsertUserAIBudgetOverride(context.Background(), user, codersdk.UpsertUserAIBudgetOverrideRequest{GroupID: g.ID, SpendLimitMicros: 1}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the change made in Coder to be put back", func() (bool, string) {
		got, ok := s.BudgetOverrides()[user]
		return ok && got.SpendLimitMicros == 20_000_000, fmt.Sprintf("override present %t, %+v", ok, got)
	})

	if err := s.RemoveGroupMember(g.ID, user); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "Ready False with reason UserNotGroupMember and member false", func() (bool, string) {
		env.Get(t, o)
		c := o.GetCondition(xpv2.TypeReady)
		return c.Reason == aibudget.ReasonUserNotGroupMember && !o.Status.AtProvider.Member, fmt.Sprintf("Ready %s %s: %s; member %t", c.Status, c.Reason, c.Message, o.Status.AtProvider.Member)
	})

	env.Delete(t, o)
	env.WaitGone(t, o, testenv.WaitLong)
	// The create, the change in Coder put back, and the PUT Coder refused
	// once the user left the group. Coder dropped the override then, so
	// the delete found nothing to delete and logged nothing.
	wantChanges(t, o, change{op: opCreate}, change{op: opUpdate}, change{op: opUpdate, failed: true})
	if got, ok := s.BudgetOverrides()[user]; ok {
		t.Errorf("an override is left in Coder: %+v", got)
	}
	if r := recordOf(t, kindUserOverride, o.UID); r != nil {
		t.Errorf("cleanup record left: %+v", r)
	}
}
