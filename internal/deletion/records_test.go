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
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

func TestRotatedRecordNamesParseBack(t *testing.T) {
	const uid = types.UID("5f0c7b1e-2d3a-4c5b-9e8f-0123456789ab")
	cases := map[string]struct {
		name   string
		want   int
		wantOK bool
	}{
		"FirstKey":       {name: "aigatewaykey-" + string(uid), want: 0, wantOK: true},
		"Rotated":        {name: "aigatewaykey-" + string(uid) + "-r7", want: 7, wantOK: true},
		"ZeroIsNotAName": {name: "aigatewaykey-" + string(uid) + "-r0"},
		"LeadingZero":    {name: "aigatewaykey-" + string(uid) + "-r07"},
		"OtherObject":    {name: "aigatewaykey-6f0c7b1e-2d3a-4c5b-9e8f-0123456789ab-r1"},
		"OtherKind":      {name: "aiprovider-" + string(uid)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n, ok := RotationOf("AIGatewayKey", uid, tc.name)
			if n != tc.want || ok != tc.wantOK {
				t.Errorf("RotationOf(%q) = %d, %v; want %d, %v", tc.name, n, ok, tc.want, tc.wantOK)
			}
		})
	}
	if got := rotatedName("AIGatewayKey", uid, 0); got != Name("AIGatewayKey", uid) {
		t.Errorf("counter 0 record = %q, want the record name keys always had", got)
	}
}

func TestRecordsCoverEveryKeyOfARotation(t *testing.T) {
	ctx := context.Background()
	b, s := fixture.Kube(t), fixture.Scheme(t)
	mg := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw", UID: "aaaaaaaa-0000-0000-0000-000000000001"}}
	other := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other", UID: "bbbbbbbb-0000-0000-0000-000000000002"}}
	kube := b.Build()
	r := NewStore(kube, s, nil)

	if err := r.Ensure(ctx, mg, "AIGatewayKey", dep, "gw-aaaaaaaa", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := r.SetExternalID(ctx, mg, "AIGatewayKey", "id-0"); err != nil {
		t.Fatal(err)
	}
	// A first attempt of rotation 1 whose key was discarded left its id.
	if err := r.EnsureRotated(ctx, mg, "AIGatewayKey", 1, dep, "gw-aaaaaaaa-r1"); err != nil {
		t.Fatal(err)
	}
	if err := r.SetRotatedExternalID(ctx, mg, "AIGatewayKey", 1, "lost"); err != nil {
		t.Fatal(err)
	}
	if err := r.EnsureRotated(ctx, mg, "AIGatewayKey", 1, dep, "gw-aaaaaaaa-r1"); err != nil {
		t.Fatal(err)
	}
	rec := &clusterv1alpha1.CleanupRecord{}
	if err := kube.Get(ctx, types.NamespacedName{Name: rotatedName("AIGatewayKey", mg.UID, 1)}, rec); err != nil {
		t.Fatal(err)
	}
	if rec.Status.ExternalID != "" || rec.Status.CoderName != "gw-aaaaaaaa-r1" || rec.Status.Phase != clusterv1alpha1.CleanupPhaseActive {
		t.Errorf("re-ensured rotation record = %+v, want Active, named, without the discarded key's id", rec.Spec)
	}
	if err := r.Ensure(ctx, other, "AIGatewayKey", dep, "other-bbbbbbbb", time.Now()); err != nil {
		t.Fatal(err)
	}

	set, err := r.Of(ctx, mg)
	if err != nil {
		t.Fatal(err)
	}
	got := set.Rotations("AIGatewayKey")
	sort.Ints(got)
	if diff := cmp.Diff([]int{0, 1}, got); diff != "" {
		t.Errorf("Rotations: -want, +got:\n%s", diff)
	}

	if err := r.Abandon(ctx, mg, "AIGatewayKey", "Unavailable"); err != nil {
		t.Fatal(err)
	}
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := kube.List(ctx, l); err != nil {
		t.Fatal(err)
	}
	phases := map[string]string{}
	for _, x := range l.Items {
		phases[x.Name] = x.Status.Phase
	}
	want := map[string]string{
		Name("AIGatewayKey", mg.UID):           clusterv1alpha1.CleanupPhaseAbandoned,
		rotatedName("AIGatewayKey", mg.UID, 1): clusterv1alpha1.CleanupPhaseAbandoned,
		Name("AIGatewayKey", other.UID):        clusterv1alpha1.CleanupPhaseActive,
	}
	if diff := cmp.Diff(want, phases); diff != "" {
		t.Errorf("phases after Abandon: -want, +got:\n%s", diff)
	}

	if err := r.Delete(ctx, mg, "AIGatewayKey"); err != nil {
		t.Fatal(err)
	}
	if err := kube.List(ctx, l, client.MatchingLabels{ManagedResourceUIDLabel: string(mg.UID)}); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 0 {
		t.Errorf("records of the object left after Delete: %d", len(l.Items))
	}
	if err := kube.Get(ctx, types.NamespacedName{Name: Name("AIGatewayKey", other.UID)}, rec); err != nil {
		t.Errorf("Delete removed another object's record: %v", err)
	}
}

func TestAnImportedObjectGetsARecordOnlyWhenItsResourceHasNone(t *testing.T) {
	const kind = "AIGatewayKey"
	mg := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw", UID: "aaaaaaaa-0000-0000-0000-000000000001"}}
	cases := map[string]struct {
		// before writes the records mg has when it is observed.
		before func(ctx context.Context, r *Store) error
		// want maps each record of mg afterwards to its external id.
		want map[string]string
	}{
		"Imported": {
			before: func(context.Context, *Store) error { return nil },
			want:   map[string]string{Name(kind, mg.UID): "imported-id"},
		},
		"Created": {
			before: func(ctx context.Context, r *Store) error {
				if err := r.Ensure(ctx, mg, kind, dep, "gw-aaaaaaaa", time.Now()); err != nil {
					return err
				}
				return r.SetExternalID(ctx, mg, kind, "created-id")
			},
			want: map[string]string{Name(kind, mg.UID): "created-id"},
		},
		"RotationOver": {
			// The first key's record went with the first key; the key in
			// use has its rotation's record.
			before: func(ctx context.Context, r *Store) error {
				if err := r.EnsureRotated(ctx, mg, kind, 1, dep, "gw-aaaaaaaa-r1"); err != nil {
					return err
				}
				return r.SetRotatedExternalID(ctx, mg, kind, 1, "imported-id")
			},
			want: map[string]string{rotatedName(kind, mg.UID, 1): "imported-id"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b, s := fixture.Kube(t), fixture.Scheme(t)
			kube := b.Build()
			r := NewStore(kube, s, nil)
			if err := tc.before(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := r.EnsureAdopted(ctx, mg, kind, dep, "imported-id"); err != nil {
				t.Fatal(err)
			}
			l := &clusterv1alpha1.CleanupRecordList{}
			if err := kube.List(ctx, l, client.MatchingLabels{ManagedResourceUIDLabel: string(mg.UID)}); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, x := range l.Items {
				got[x.Name] = x.Status.ExternalID
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("records after EnsureAdopted: -want, +got:\n%s", diff)
			}
		})
	}
}

// dep is where the creates of these tests go.
var dep = Origin{DeploymentID: "dep", ProviderConfig: clusterv1alpha1.RecordedProviderConfig{
	Group: "coder.m.crossplane.io", Kind: "ProviderConfig", Namespace: "ns", Name: "coder", URL: "https://coder.example.com",
}}

func TestEnsureWritesTheStatusOnlyOnItsOwnResourcesRecord(t *testing.T) {
	ctx := context.Background()
	mg := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw", UID: "aaaaaaaa-0000-0000-0000-000000000001"}}
	name := Name("AIGatewayKey", mg.UID)
	// ours is the record Ensure writes for mg, changed by edit.
	ours := func(edit ...func(*clusterv1alpha1.CleanupRecord)) *clusterv1alpha1.CleanupRecord {
		r := &clusterv1alpha1.CleanupRecord{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ManagedResourceUIDLabel: string(mg.UID)}},
			Spec: clusterv1alpha1.CleanupRecordSpec{
				Kind: "AIGatewayKey", DeploymentID: "dep", ProviderConfig: dep.Spec(),
				ManagedResource: clusterv1alpha1.ManagedResourceReference{
					APIVersion: aiv1alpha1.SchemeGroupVersion.String(), Kind: "AIGatewayKey", Namespace: "ns", Name: "gw", UID: string(mg.UID),
				},
			},
		}
		for _, e := range edit {
			e(r)
		}
		return r
	}
	cases := map[string]struct {
		reason   string
		existing *clusterv1alpha1.CleanupRecord
		wantErr  bool
		// wantOther: the error says which deployment holds the object,
		// and never to delete the record.
		wantOther bool
	}{
		"New": {
			reason: "A new record gets the status the sweep acts on.",
		},
		"LeftByAnEarlierAttempt": {
			reason:   "A record of this resource left without a status (a create that stopped) is completed.",
			existing: ours(),
		},
		"AnotherResourcesSpec": {
			reason:   "A record of this name written for another resource is refused: the create would make it name our key.",
			existing: ours(func(r *clusterv1alpha1.CleanupRecord) { r.Spec.ManagedResource.Namespace = "elsewhere" }),
			wantErr:  true,
		},
		"AnotherDeployment": {
			reason:   "This resource's record of another deployment (its ProviderConfig repointed) is refused without telling anyone to delete it: the object may live there.",
			existing: ours(func(r *clusterv1alpha1.CleanupRecord) { r.Spec.DeploymentID = "theirs" }),
			wantErr:  true, wantOther: true,
		},
		"WrittenByAnEarlierRelease": {
			reason:   "A record of this resource that names no ProviderConfig (an earlier release's) is completed when its deployment matches.",
			existing: ours(func(r *clusterv1alpha1.CleanupRecord) { r.Spec.ProviderConfig = nil }),
		},
		"AnotherURL": {
			reason:   "This resource's record made at another URL is refused without telling anyone to delete it, whatever deployment id that server reports.",
			existing: ours(func(r *clusterv1alpha1.CleanupRecord) { r.Spec.ProviderConfig.URL = "https://elsewhere.example" }),
			wantErr:  true, wantOther: true,
		},
		"AnotherProviderConfig": {
			reason:   "This resource's record made through another ProviderConfig is refused: the sweep of what this create makes would go through that one.",
			existing: ours(func(r *clusterv1alpha1.CleanupRecord) { r.Spec.ProviderConfig.Name = "other" }),
			wantErr:  true, wantOther: true,
		},
		"AnotherLabel": {
			reason: "A record whose label names another resource is refused: that resource's delete would delete the record.",
			existing: ours(func(r *clusterv1alpha1.CleanupRecord) {
				r.Labels[ManagedResourceUIDLabel] = "bbbbbbbb-0000-0000-0000-000000000002"
			}),
			wantErr: true,
		},
	}
	for n, tc := range cases {
		t.Run(n, func(t *testing.T) {
			b, s := fixture.Kube(t), fixture.Scheme(t)
			if tc.existing != nil {
				b = b.WithObjects(tc.existing)
			}
			kube := b.Build()
			err := NewStore(kube, s, nil).Ensure(ctx, mg, "AIGatewayKey", dep, "ns-gw-aaaaaaaa", time.Now())
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nEnsure() = %v, want error %v", tc.reason, err, tc.wantErr)
			}
			var other *otherDeploymentError
			if got := errors.As(err, &other); got != tc.wantOther || (err != nil && tc.wantOther && strings.Contains(err.Error(), "delete it")) {
				t.Errorf("%s\nEnsure() = %v; want an otherDeploymentError: %t, never telling to delete the record", tc.reason, err, tc.wantOther)
			}
			rec := &clusterv1alpha1.CleanupRecord{}
			if err := kube.Get(ctx, types.NamespacedName{Name: name}, rec); err != nil {
				t.Fatal(err)
			}
			wrote := rec.Status.Phase == clusterv1alpha1.CleanupPhaseActive && rec.Status.CoderName == "ns-gw-aaaaaaaa" && rec.Status.CreateAttemptedAt != nil
			if wrote == tc.wantErr {
				t.Errorf("%s\nstatus = %+v; written: %v", tc.reason, rec.Status, wrote)
			}
		})
	}
}
