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

	"github.com/google/go-cmp/cmp"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// warnings records the reasons of the Warning events it is given.
type warnings struct{ reasons []string }

func (w *warnings) Event(_ runtime.Object, e event.Event) {
	if e.Type == event.TypeWarning {
		w.reasons = append(w.reasons, string(e.Reason))
	}
}

func (w *warnings) WithAnnotations(...string) event.Recorder { return w }

// activeRecord is the first cleanup record of uid, Active.
func activeRecord(uid types.UID) *clusterv1alpha1.CleanupRecord {
	return &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{Name: Name("AIGatewayKey", uid), Labels: map[string]string{ManagedResourceUIDLabel: string(uid)}},
		Spec:       clusterv1alpha1.CleanupRecordSpec{Kind: "AIGatewayKey"},
		Status:     clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, CoderName: "gw-aaaaaaaa"},
	}
}

// boundOutcome is what a release did: whether the finalizer went, the
// record's phase and reason after it ("" for removed), what was counted
// and evented.
type boundOutcome struct {
	Err          bool
	FinalizerOff bool
	Phase        string
	Reason       string
	Counted      float64
	Warnings     []string
}

func outcomeOf(t *testing.T, kube client.Client, k *aiv1alpha1.AIGatewayKey, err error, counted float64, w *warnings) boundOutcome {
	t.Helper()
	ctx := context.Background()
	o := boundOutcome{Err: err != nil, Counted: counted, Warnings: w.reasons}
	got := &aiv1alpha1.AIGatewayKey{}
	if gerr := kube.Get(ctx, client.ObjectKeyFromObject(k), got); gerr != nil {
		t.Fatal(gerr)
	}
	o.FinalizerOff = !meta.FinalizerExists(got, testFinalizer)
	rec := &clusterv1alpha1.CleanupRecord{}
	switch gerr := kube.Get(ctx, types.NamespacedName{Name: Name("AIGatewayKey", k.UID)}, rec); {
	case kerrors.IsNotFound(gerr):
	case gerr != nil:
		t.Fatal(gerr)
	default:
		o.Phase, o.Reason = rec.Status.Phase, rec.Status.Reason
	}
	return o
}

func TestARecordDeleteTheProviderMayNotMakeDoesNotHoldAResource(t *testing.T) {
	forbidden := func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error {
		return kerrors.NewForbidden(schema.GroupResource{Group: "coder.crossplane.io", Resource: "cleanuprecords"}, "x", nil)
	}
	failing := func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error {
		return kerrors.NewInternalError(context.DeadlineExceeded)
	}
	cases := map[string]struct {
		reason   string
		delete   func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error
		noRecord bool
		orphan   bool
		want     boundOutcome
	}{
		"Forbidden": {
			reason: "Its object is verified gone, its record cannot be deleted: the record turns Abandoned for the sweep, the release is counted and evented, and the resource goes.",
			delete: forbidden,
			want: boundOutcome{FinalizerOff: true, Phase: clusterv1alpha1.CleanupPhaseAbandoned, Reason: ReasonRecordDeleteForbidden,
				Counted: 1, Warnings: []string{string(ReasonReleasedWithoutDelete)}},
		},
		"ForbiddenWithoutRecord": {
			reason:   "A resource that never had a record leaves nothing to settle: it goes, uncounted.",
			delete:   forbidden,
			noRecord: true,
			want:     boundOutcome{FinalizerOff: true},
		},
		"ForbiddenOrphan": {
			reason: "An orphan's record must not turn Abandoned, or the sweep would delete what it keeps in Coder: it waits for the RBAC.",
			delete: forbidden,
			orphan: true,
			want:   boundOutcome{Err: true, Phase: clusterv1alpha1.CleanupPhaseActive},
		},
		"OtherFailure": {
			reason: "Any other failure is retried.",
			delete: failing,
			want:   boundOutcome{Err: true, Phase: clusterv1alpha1.CleanupPhaseActive},
		},
		"Allowed": {
			reason: "A delete the provider may make removes the record, and nothing is counted.",
			want:   boundOutcome{FinalizerOff: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fixture.Scheme(t)
			k := deletingKeyWithSecret()
			k.Spec.WriteConnectionSecretToReference = nil
			// Another finalizer keeps it readable once ours is gone.
			k.Finalizers = append(k.Finalizers, "someone.else/keep")
			if tc.orphan {
				k.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate}
			}
			objs := []client.Object{k}
			if !tc.noRecord {
				objs = append(objs, activeRecord(k.UID))
			}
			b := fixture.Kube(t, objs...).WithStatusSubresource(&clusterv1alpha1.CleanupRecord{})
			if tc.delete != nil {
				b = b.WithInterceptorFuncs(interceptor.Funcs{Delete: tc.delete})
			}
			kube := b.Build()
			w := &warnings{}
			f := NewFinalizer(kube, testFinalizer, "AIGatewayKey", NewReleases(), NewStore(kube, s, nil), w)
			before := released(t, "AIGatewayKey")
			err := f.RemoveFinalizer(context.Background(), k.DeepCopy())
			got := outcomeOf(t, kube, k, err, released(t, "AIGatewayKey")-before, w)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nRemoveFinalizer(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestAStalledResourceIsReleasedWithoutAskingCoder(t *testing.T) {
	cases := map[string]struct {
		reason     string
		externalID string
		noRecord   bool
		orphan     bool
		want       boundOutcome
	}{
		"Created": {
			reason:     "A paused resource that created its object releases without delete: its record turns Abandoned, counted and evented.",
			externalID: "key-1",
			want: boundOutcome{FinalizerOff: true, Phase: clusterv1alpha1.CleanupPhaseAbandoned, Reason: policy.ReasonPaused,
				Counted: 1, Warnings: []string{string(ReasonReleasedWithoutDelete)}},
		},
		"CreateBegunOnly": {
			reason: "A record alone (a create whose answer was lost) counts as much as an id.",
			want: boundOutcome{FinalizerOff: true, Phase: clusterv1alpha1.CleanupPhaseAbandoned, Reason: policy.ReasonPaused,
				Counted: 1, Warnings: []string{string(ReasonReleasedWithoutDelete)}},
		},
		"NeverCreated": {
			reason:   "Nothing of it can exist in Coder: it goes, uncounted.",
			noRecord: true,
			want:     boundOutcome{FinalizerOff: true},
		},
		"Orphan": {
			reason:     "Its policies keep its object in Coder on purpose: its record goes, uncounted.",
			externalID: "key-1",
			orphan:     true,
			want:       boundOutcome{FinalizerOff: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fixture.Scheme(t)
			k := deletingKeyWithSecret()
			k.Spec.WriteConnectionSecretToReference = nil
			// Another finalizer keeps it readable once ours is gone.
			k.Finalizers = append(k.Finalizers, "someone.else/keep")
			meta.AddAnnotations(k, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
			if tc.externalID != "" {
				meta.SetExternalName(k, tc.externalID)
			}
			if tc.orphan {
				k.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
			}
			objs := []client.Object{k}
			if !tc.noRecord {
				objs = append(objs, activeRecord(k.UID))
			}
			kube := fixture.Kube(t, objs...).WithStatusSubresource(&clusterv1alpha1.CleanupRecord{}).Build()
			w := &warnings{}
			f := NewFinalizer(kube, testFinalizer, "AIGatewayKey", NewReleases(), NewStore(kube, s, nil), w)
			before := released(t, "AIGatewayKey")
			err := f.ReleaseStalled(context.Background(), k.DeepCopy(), policy.ReasonPaused)
			got := outcomeOf(t, kube, k, err, released(t, "AIGatewayKey")-before, w)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nReleaseStalled(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
