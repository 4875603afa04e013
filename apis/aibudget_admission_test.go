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

package apis_test

import (
	"context"
	"strings"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// The messages of the AI budget kinds' rules.
const (
	msgOneGroup       = "forProvider: set exactly one of groupName and groupID"
	msgOrgWithID      = "forProvider.organization names where groupName is; it cannot go with groupID"
	msgLimitRequired  = `spec.forProvider.spendLimitMicros is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as ["Observe"]`
	msgGroupImmutable = "forProvider: the group is immutable: budget another group with another resource"
	msgUserImmutable  = "forProvider.user is immutable: override another user with another resource"
	msgUserNotMe      = "forProvider.user: name the user, not me (the ProviderConfig's token user)"
)

const budgetGroupID = "8d0a9b36-4d1e-4bb4-9a76-0c2f1a3e5b7d"

// budgetKube starts a control plane with the generated CRDs and returns a
// client of it.
func budgetKube(t *testing.T) (context.Context, client.Client) {
	t.Helper()
	cp := controlplane.StartOrSkip(t, controlplane.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	if err := crds.Install(ctx, cp.Config); err != nil {
		t.Fatal(err)
	}
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, kube
}

// groupBudget is a namespaced GroupAIBudget of the group named name, with
// a limit when limit is not negative.
func groupBudget(name string, limit int64, edit ...func(*aiv1alpha1.GroupAIBudget)) *aiv1alpha1.GroupAIBudget {
	b := &aiv1alpha1.GroupAIBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "budget"}}
	if name != "" {
		b.Spec.ForProvider.GroupName = ptr.To(name)
	}
	if limit >= 0 {
		b.Spec.ForProvider.SpendLimitMicros = ptr.To(limit)
	}
	for _, e := range edit {
		e(b)
	}
	return b
}

func userOverride(user string, edit ...func(*aiv1alpha1.UserAIBudgetOverride)) *aiv1alpha1.UserAIBudgetOverride {
	o := &aiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "override"}}
	o.Spec.ForProvider.User = user
	o.Spec.ForProvider.GroupName = ptr.To("eng")
	o.Spec.ForProvider.SpendLimitMicros = ptr.To(int64(1))
	for _, e := range edit {
		e(o)
	}
	return o
}

// wantAdmission checks what the API server said of a dry-run write: nil
// when want is empty, else Invalid with every message of want.
func wantAdmission(t *testing.T, reason string, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s\n%v, want admitted", reason, err)
		}
		return
	}
	if !kerrors.IsInvalid(err) {
		t.Fatalf("%s\n%v, want Invalid", reason, err)
	}
	for _, msg := range want {
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("%s\nrefused with %q, want it to say %q", reason, err, msg)
		}
	}
}

func TestAIBudgetsNameOneGroupAndAValidLimitAtAdmission(t *testing.T) {
	ctx, kube := budgetKube(t)
	observe := xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	cases := map[string]struct {
		reason string
		obj    client.Object
		want   []string
	}{
		"ByName": {reason: "A group by name in the default organization.", obj: groupBudget("Everyone", 5_000_000)},
		"ByNameInAnOrganization": {reason: "A group by name in a named organization.",
			obj: groupBudget("eng", 0, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.Organization = ptr.To("coder") })},
		"ByID":         {reason: "A group by id.", obj: groupBudget("", 1, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.GroupID = ptr.To(budgetGroupID) })},
		"AtTheMaximum": {reason: "Coder's maximum is allowed.", obj: groupBudget("eng", common.MaxAISpendLimitMicros)},
		"NameAndID": {reason: "Both name and id.", want: []string{msgOneGroup},
			obj: groupBudget("eng", 1, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.GroupID = ptr.To(budgetGroupID) })},
		"NoGroup": {reason: "Neither name nor id.", obj: groupBudget("", 1), want: []string{msgOneGroup}},
		"OrgWithID": {reason: "An organization says where a name is, never an id.", want: []string{msgOrgWithID},
			obj: groupBudget("", 1, func(b *aiv1alpha1.GroupAIBudget) {
				b.Spec.ForProvider.GroupID, b.Spec.ForProvider.Organization = ptr.To(budgetGroupID), ptr.To("coder")
			})},
		"AboveTheMaximum": {reason: "Coder refuses more than its maximum.", obj: groupBudget("eng", common.MaxAISpendLimitMicros+1),
			want: []string{"spec.forProvider.spendLimitMicros: Invalid value: 1000000000001: spec.forProvider.spendLimitMicros in body should be less than or equal to 1000000000000"}},
		"Negative": {reason: "A limit is never negative.", obj: groupBudget("eng", 0, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.SpendLimitMicros = ptr.To(int64(-1)) }),
			want: []string{"should be greater than or equal to 0"}},
		"NotAGroupName": {reason: "Coder's group names are letters, digits and single hyphens.", obj: groupBudget("eng team", 1),
			want: []string{"spec.forProvider.groupName in body should match"}},
		"NotAnID": {reason: "A group id is a UUID.", want: []string{"spec.forProvider.groupID in body should match"},
			obj: groupBudget("", 1, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.GroupID = ptr.To("eng") })},
		"NoLimitToCreate": {reason: "The default policies create: a limit is required.", obj: groupBudget("eng", -1), want: []string{msgLimitRequired}},
		"NoLimitToObserve": {reason: "An observe-only import reads the limit from Coder.",
			obj: groupBudget("eng", -1, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ManagementPolicies = observe })},
		"ClusterNoLimitToCreate": {reason: "The cluster-scoped kind needs a limit too.", want: []string{msgLimitRequired},
			obj: &clusteraiv1alpha1.GroupAIBudget{ObjectMeta: metav1.ObjectMeta{Name: "budget"},
				Spec: clusteraiv1alpha1.GroupAIBudgetSpec{ForProvider: common.GroupAIBudgetParameters{AIBudgetGroup: common.AIBudgetGroup{GroupName: ptr.To("eng")}}}}},
		"OverrideByUsername": {reason: "An override of a user by name.", obj: userOverride("alice")},
		"OverrideByUserID":   {reason: "An override of a user by id.", obj: userOverride(budgetGroupID)},
		"OverrideOfMe":       {reason: "me would follow whoever owns the ProviderConfig's token.", obj: userOverride("me"), want: []string{msgUserNotMe}},
		"OverrideNoUser":     {reason: "The user is required.", obj: userOverride(""), want: []string{"spec.forProvider.user in body should be at least 1 chars long"}},
		"OverrideNoGroup": {reason: "An override names the group its spend goes to.", want: []string{msgOneGroup},
			obj: userOverride("alice", func(o *aiv1alpha1.UserAIBudgetOverride) { o.Spec.ForProvider.GroupName = nil })},
		"ClusterOverrideOfMe": {reason: "The cluster-scoped kind has the same rules.", want: []string{msgUserNotMe},
			obj: &clusteraiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Name: "override"},
				Spec: clusteraiv1alpha1.UserAIBudgetOverrideSpec{ForProvider: common.UserAIBudgetOverrideParameters{User: "me",
					AIBudgetGroup: common.AIBudgetGroup{GroupName: ptr.To("eng")}, SpendLimitMicros: ptr.To(int64(1))}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wantAdmission(t, tc.reason, kube.Create(ctx, tc.obj, client.DryRunAll), tc.want)
		})
	}
}

func TestAGroupBudgetKeepsItsGroupAndAnOverrideItsUser(t *testing.T) {
	ctx, kube := budgetKube(t)
	stored := groupBudget("eng", 1)
	if err := kube.Create(ctx, stored); err != nil {
		t.Fatal(err)
	}
	override := userOverride("alice")
	if err := kube.Create(ctx, override); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		obj    client.Object
		want   []string
	}{
		"NewLimit": {reason: "The limit may change.",
			obj: edit(stored, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.SpendLimitMicros = ptr.To(int64(2)) })},
		"OtherName": {reason: "Another group is another budget.", want: []string{msgGroupImmutable},
			obj: edit(stored, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.GroupName = ptr.To("ops") })},
		"NameToID": {reason: "Naming the same group by id is still a change of what the resource names.", want: []string{msgGroupImmutable},
			obj: edit(stored, func(b *aiv1alpha1.GroupAIBudget) {
				b.Spec.ForProvider.GroupName, b.Spec.ForProvider.GroupID = nil, ptr.To(budgetGroupID)
			})},
		"AddOrganization": {reason: "An organization added later may name another group.", want: []string{msgGroupImmutable},
			obj: edit(stored, func(b *aiv1alpha1.GroupAIBudget) { b.Spec.ForProvider.Organization = ptr.To("coder") })},
		"OverrideOtherGroup": {reason: "An override's spend may move to another group.",
			obj: edit(override, func(o *aiv1alpha1.UserAIBudgetOverride) { o.Spec.ForProvider.GroupName = ptr.To("ops") })},
		"OverrideOtherUser": {reason: "Another user is another override.", want: []string{msgUserImmutable},
			obj: edit(override, func(o *aiv1alpha1.UserAIBudgetOverride) { o.Spec.ForProvider.User = "bob" })},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wantAdmission(t, tc.reason, kube.Update(ctx, tc.obj, client.DryRunAll), tc.want)
		})
	}
}

// edit returns an edited copy of a stored object.
func edit[T client.Object](stored T, change func(T)) T {
	c := stored.DeepCopyObject().(T)
	change(c)
	return c
}
