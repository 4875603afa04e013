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

package deletion

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// TestADeletingBudgetsRecordsFindItsBudgetOnlyWhileItIsTheirs: a
// GroupAIBudget whose external name was stripped still finds, by its
// record, the budget its last PUT wrote, and deletes it; a budget someone
// wrote since is not the record's and is left.
func TestADeletingBudgetsRecordsFindItsBudgetOnlyWhileItIsTheirs(t *testing.T) {
	cases := map[string]struct {
		reason      string
		changedLate bool
		want        Leftovers
	}{
		"StillOurs": {reason: "Coder shows the recorded updated_at: the budget is left to delete."},
		"ChangedInCoder": {
			reason: "Someone wrote the budget after our PUT: nothing of ours is left.", changedLate: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			srv, cl := fixture.Coder(t)
			g, err := srv.CreateGroup("team")
			if err != nil {
				t.Fatal(err)
			}
			put, err := cl.UpsertGroupAIBudget(ctx, g.ID, 5)
			if err != nil {
				t.Fatal(err)
			}
			if tc.changedLate {
				srv.SetClockOffset(srv.ClockOffset() + time.Second)
				if _, err := cl.UpsertGroupAIBudget(ctx, g.ID, 6); err != nil {
					t.Fatal(err)
				}
			} else {
				tc.want = Leftovers{KindGroupBudget: []string{g.ID.String()}}
			}
			b := &aiv1alpha1.GroupAIBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "team", UID: "uid-1"}}
			b.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
			rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
				Name: Name(KindGroupBudget, b.UID), Labels: map[string]string{ManagedResourceUIDLabel: string(b.UID)},
			}}
			rec.Spec.Kind = KindGroupBudget
			rec.Status = clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, ExternalID: g.ID.String(), CoderUpdatedAt: FormatUpdatedAt(put.UpdatedAt)}
			kube := fixture.Kube(t, rec).Build()
			p := Pass{Kind: KindGroupBudget, Records: NewStore(kube, fixture.Scheme(t), nil), Coder: cl}
			recs, err := p.Records.Of(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			left, err := p.recordsLeft(ctx, b, recs, Origin{}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, left, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("\n%s\nrecordsLeft(...): -want, +got:\n%s", tc.reason, diff)
			}
			if err := p.deleteLeft(ctx, left); err != nil {
				t.Fatal(err)
			}
			_, present := srv.GroupBudgets()[g.ID]
			if present != tc.changedLate {
				t.Errorf("\n%s\nbudget in Coder after deleteLeft: %t, want %t", tc.reason, present, tc.changedLate)
			}
		})
	}
}
