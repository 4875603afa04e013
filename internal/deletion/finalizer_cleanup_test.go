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

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// deletingKeyWithSecret is a key resource being deleted that writes its
// connection details to the Secret "gw-conn".
func deletingKeyWithSecret() *aiv1alpha1.AIGatewayKey {
	now := metav1.Now()
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "gw", UID: "aaaaaaaa-0000-0000-0000-000000000002",
		Finalizers: []string{testFinalizer}, DeletionTimestamp: &now,
	}}
	k.Spec.WriteConnectionSecretToReference = &xpv2.LocalSecretReference{Name: "gw-conn"}
	return k
}

func TestRemovingTheFinalizerDeletesOnlyAConnectionSecretTheResourceControls(t *testing.T) {
	cases := map[string]struct {
		reason string
		// controlled: the Secret has the resource as its controller.
		controlled bool
		wantGone   bool
	}{
		"ItsOwnSecretGoes": {
			reason:     "The Secret held a key now revoked; a re-created resource of the name must publish its own at once.",
			controlled: true, wantGone: true,
		},
		"SomeoneElsesSecretStays": {
			reason: "A Secret of the same name the resource does not control (a user's, an earlier incarnation's) is never deleted.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := fixture.Scheme(t)
			k := deletingKeyWithSecret()
			sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw-conn"}}
			if tc.controlled {
				meta.AddOwnerReference(sec, meta.AsController(meta.TypedReferenceTo(k, aiv1alpha1.AIGatewayKeyGroupVersionKind)))
			}
			kube := fixture.Kube(t, k, sec).Build()
			f := NewFinalizer(kube, testFinalizer, "AIGatewayKey", NewReleases(), NewStore(kube, s, nil), event.NewNopRecorder())
			if err := f.RemoveFinalizer(ctx, k); err != nil {
				t.Fatalf("%s\nRemoveFinalizer: %v", tc.reason, err)
			}
			err := kube.Get(ctx, client.ObjectKeyFromObject(sec), &corev1.Secret{})
			if gone := kerrors.IsNotFound(err); gone != tc.wantGone {
				t.Errorf("%s\nSecret gone = %v (get error %v), want %v", tc.reason, gone, err, tc.wantGone)
			}
		})
	}
}

func TestAVerifiedDeleteRemovesTheRecordsAndAReleaseAbandonsThem(t *testing.T) {
	cases := map[string]struct {
		reason string
		// release: the pass released the resource without a verified
		// delete, for this reason.
		release   string
		wantPhase string // empty: the records are removed
	}{
		"VerifiedDelete": {
			reason: "Coder's objects are verified gone: the records have nothing left to name.",
		},
		"ReleaseWithoutDelete": {
			reason:    "The objects may still exist in Coder: every record stays, Abandoned, for the sweep.",
			release:   "Unavailable",
			wantPhase: clusterv1alpha1.CleanupPhaseAbandoned,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := fixture.Scheme(t)
			k := deletingKeyWithSecret()
			var recs []client.Object
			for _, n := range []int{0, 1} {
				recs = append(recs, &clusterv1alpha1.CleanupRecord{
					ObjectMeta: metav1.ObjectMeta{
						Name:   rotatedName("AIGatewayKey", k.UID, n),
						Labels: map[string]string{ManagedResourceUIDLabel: string(k.UID)},
					},
					Spec:   clusterv1alpha1.CleanupRecordSpec{Kind: "AIGatewayKey"},
					Status: clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive},
				})
			}
			kube := fixture.Kube(t, append(recs, k)...).
				WithStatusSubresource(&clusterv1alpha1.CleanupRecord{}).Build()
			rel := NewReleases()
			if tc.release != "" {
				rel.mark(k.UID, tc.release)
			}
			f := NewFinalizer(kube, testFinalizer, "AIGatewayKey", rel, NewStore(kube, s, nil), event.NewNopRecorder())
			if err := f.RemoveFinalizer(ctx, k); err != nil {
				t.Fatalf("%s\nRemoveFinalizer: %v", tc.reason, err)
			}
			for _, r := range recs {
				got := &clusterv1alpha1.CleanupRecord{}
				err := kube.Get(ctx, client.ObjectKeyFromObject(r), got)
				switch {
				case kerrors.IsNotFound(err):
					if tc.wantPhase != "" {
						t.Errorf("%s\nrecord %s removed, want it %s", tc.reason, r.GetName(), tc.wantPhase)
					}
				case err != nil:
					t.Fatal(err)
				case tc.wantPhase == "" || got.Status.Phase != tc.wantPhase:
					t.Errorf("%s\nrecord %s is %q, want %q (empty: removed)", tc.reason, r.GetName(), got.Status.Phase, tc.wantPhase)
				}
			}
		})
	}
}
