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

package aibudget

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

func TestAnOverrideOfAUserOutsideTheGroupSaysSo(t *testing.T) {
	ctx := context.Background()
	s, cl := fixture.Coder(t)
	_, err := s.CreateGroup("team")
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser("alice")
	if err != nil {
		t.Fatal(err)
	}
	r := &aiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "alice", UID: "uid-1"}}
	r.Spec.ForProvider.User = "alice"
	r.Spec.ForProvider.GroupName = ptr.To("team")
	r.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](5)
	meta.SetExternalName(r, u.ID.String())
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
		Name: deletion.Name(aiv1alpha1.UserAIBudgetOverrideKind, r.UID), Labels: map[string]string{deletion.ManagedResourceUIDLabel: string(r.UID)},
	}}
	rec.Spec.Kind = deletion.KindUserOverride
	rec.Status = clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, ExternalID: u.ID.String(), CoderUpdatedAt: "2026-01-01T00:00:00Z"}
	kube := fixture.Kube(t, rec).Build()
	e := &external[Override]{kind: userOverride{}, coder: cl, name: aiv1alpha1.UserAIBudgetOverrideKind, record: event.NewNopRecorder(),
		records: deletion.NewStore(kube, fixture.Scheme(t), nil)}

	// The override this resource wrote is gone: Coder dropped it when the
	// user left the group. Update puts it back, and Coder refuses.
	o, err := e.Observe(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if !o.ResourceExists || o.ResourceUpToDate {
		t.Fatalf("Observe of our override gone from Coder = %+v, want it to exist and not be up to date, so Update puts it back", o)
	}
	if _, err := e.Update(ctx, r); err == nil {
		t.Fatal("Update of a user outside the group succeeded")
	}
	c := r.GetCondition(xpv2.TypeReady)
	got := struct {
		Reason xpv2.ConditionReason
		Member bool
		UserID string
	}{c.Reason, r.Status.AtProvider.Member, r.Status.AtProvider.UserID}
	want := got
	want.Reason, want.Member, want.UserID = ReasonUserNotGroupMember, false, u.ID.String()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after Coder refused a non-member: -want, +got:\n%s", diff)
	}
	if _, ok := s.BudgetOverrides()[u.ID]; ok {
		t.Error("Coder holds an override of a user outside the group")
	}
}
