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
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// budgetRecord is the record of b naming group id with Coder's updated_at.
func budgetRecord(b *aiv1alpha1.GroupAIBudget, id, updatedAt string) *clusterv1alpha1.CleanupRecord {
	r := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
		Name: deletion.Name(aiv1alpha1.GroupAIBudgetKind, b.UID), Labels: map[string]string{deletion.ManagedResourceUIDLabel: string(b.UID)},
	}}
	r.Spec.Kind = deletion.KindGroupBudget
	r.Status = clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, ExternalID: id, CoderUpdatedAt: updatedAt}
	return r
}

func TestObserveTakesItsOwnLastPutForNoChangeWhenTheCacheLags(t *testing.T) {
	ctx := context.Background()
	s, cl := fixture.Coder(t)
	g, err := s.CreateGroup("team")
	if err != nil {
		t.Fatal(err)
	}
	first, err := cl.UpsertGroupAIBudget(ctx, g.ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	s.SetClockOffset(s.ClockOffset() + time.Second)
	last, err := cl.UpsertGroupAIBudget(ctx, g.ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	b := &aiv1alpha1.GroupAIBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "team", UID: "uid-1"}}
	b.Spec.ForProvider.GroupName = ptr.To("team")
	b.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](5)
	meta.SetExternalName(b, g.ID.String())

	cases := map[string]struct {
		reason string
		cached string
		fresh  string
		want   managed.ExternalObservation
	}{
		"CacheLags": {
			reason: "The cache shows the updated_at of the PUT before our last; the API server has the last: no change.",
			cached: deletion.FormatUpdatedAt(first.UpdatedAt), fresh: deletion.FormatUpdatedAt(last.UpdatedAt),
			want: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
		},
		"ChangedInCoder": {
			reason: "Neither shows Coder's updated_at: someone wrote it since, and Update puts it back.",
			cached: deletion.FormatUpdatedAt(first.UpdatedAt), fresh: deletion.FormatUpdatedAt(first.UpdatedAt),
			want: managed.ExternalObservation{ResourceExists: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cache := fixture.Kube(t, budgetRecord(b, g.ID.String(), tc.cached)).Build()
			api := fixture.Kube(t, budgetRecord(b, g.ID.String(), tc.fresh)).Build()
			e := &external[Budget]{kind: groupBudget{}, coder: cl, name: aiv1alpha1.GroupAIBudgetKind, record: event.NewNopRecorder(),
				records: deletion.NewStore(cache, fixture.Scheme(t), nil).WithReader(api)}
			got, err := e.Observe(ctx, b.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
