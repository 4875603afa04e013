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

	dto "github.com/prometheus/client_model/go"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

const testFinalizer = "ai.coder.crossplane.io/external-cleanup"

// released reads released_without_delete_total of the kind.
func released(t *testing.T, kind string) float64 {
	t.Helper()
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "provider_coder_cleanup_released_without_delete_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if hasLabel(m, "kind", kind) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

func TestAReleaseIsCountedOnlyWhenOurFinalizerRemovalPersists(t *testing.T) {
	s := fixture.Scheme(t)
	gone := func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
		return kerrors.NewNotFound(schema.GroupResource{Resource: "aigatewaykeys"}, "gw")
	}
	conflict := func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
		return kerrors.NewConflict(schema.GroupResource{Resource: "aigatewaykeys"}, "gw", nil)
	}
	// lost persists the update and loses its answer; failed loses the
	// request before it reaches the API server.
	lost := func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		if err := c.Update(ctx, obj, opts...); err != nil {
			return err
		}
		return kerrors.NewTimeoutError("the answer was lost", 1)
	}
	// stripped: a hand removes every finalizer first, so the resource
	// goes, and the provider's removal conflicts.
	stripped := func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		got := obj.DeepCopyObject().(client.Object)
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
			return err
		}
		got.SetFinalizers(nil)
		if err := c.Update(ctx, got, opts...); err != nil {
			return err
		}
		return kerrors.NewConflict(schema.GroupResource{Resource: "aigatewaykeys"}, "gw", nil)
	}
	failed := func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
		return kerrors.NewTimeoutError("the request was lost", 1)
	}
	cases := map[string]struct {
		update    func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error
		release   bool
		wantErr   bool
		wantCount float64
		// wantMarked: the release is still noted for the next attempt.
		wantMarked bool
	}{
		"ReleasedAndRemoved":         {release: true, wantCount: 1},
		"VerifiedDeleteIsNotCounted": {},
		// Gone when a retry removes the finalizer: an earlier removal
		// whose answer was lost, or a hand that stripped it. The release
		// happened either way, and its records were Abandoned first.
		"GoneWhileReleasingCountsOnce":  {update: gone, release: true, wantCount: 1},
		"GoneNotReleasingCountsNothing": {update: gone},
		"LostAnswerThatPersistedCounts": {update: lost, release: true, wantCount: 1},
		"LostRequestCountsNothingYet":   {update: failed, release: true, wantErr: true, wantMarked: true},
		"RefusedRemovalCountsNothing":   {update: conflict, release: true, wantErr: true, wantMarked: true},
		// A hand stripped the finalizers after the provider decided the
		// release and Abandoned its records: the release stands, counted.
		"StrippedWhileReleasingCountsOnce":  {update: stripped, release: true, wantCount: 1},
		"StrippedNotReleasingCountsNothing": {update: stripped},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			now := metav1.NewTime(time.Now())
			mg := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{
				Namespace: "ns", Name: "gw", UID: "aaaaaaaa-0000-0000-0000-000000000001",
				Finalizers: []string{testFinalizer, "someone.else/keep"}, DeletionTimestamp: &now,
			}}
			b := fixture.Kube(t, mg)
			if tc.update != nil {
				b = b.WithInterceptorFuncs(interceptor.Funcs{Update: tc.update})
			}
			kube := b.Build()
			rel := NewReleases()
			if tc.release {
				rel.mark(mg.UID, "Unavailable")
			}
			f := NewFinalizer(kube, testFinalizer, "AIGatewayKey", rel, NewStore(kube, s, nil), event.NewNopRecorder())
			kind := "AIGatewayKey"
			before := released(t, kind)
			err := f.RemoveFinalizer(context.Background(), mg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("RemoveFinalizer: %v, want error %v", err, tc.wantErr)
			}
			if got := released(t, kind) - before; got != tc.wantCount {
				t.Errorf("released_without_delete_total rose by %v, want %v", got, tc.wantCount)
			}
			if _, marked := rel.peek(mg.UID); marked != tc.wantMarked {
				t.Errorf("release still noted: %v, want %v", marked, tc.wantMarked)
			}
			if tc.update == nil {
				got := &aiv1alpha1.AIGatewayKey{}
				if err := kube.Get(context.Background(), client.ObjectKeyFromObject(mg), got); err != nil {
					t.Fatal(err)
				}
				if len(got.Finalizers) != 1 || got.Finalizers[0] != "someone.else/keep" {
					t.Errorf("finalizers after removal: %v, want only the other one kept", got.Finalizers)
				}
			}
		})
	}
}

// A reconcile that read the resource from a cache behind its removal
// decides the release again and finds the resource gone: the release was
// counted once already, and is not counted again (seed 20 of test/interleave
// counted 4 releases of 3 resources so).
func TestAReleaseReadAgainFromAStaleCacheIsCountedOnce(t *testing.T) {
	s := fixture.Scheme(t)
	now := metav1.NewTime(time.Now())
	mg := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "gw", UID: "aaaaaaaa-0000-0000-0000-000000000002",
		Finalizers: []string{testFinalizer}, DeletionTimestamp: &now,
	}}
	kube := fixture.Kube(t, mg).Build()
	rel := NewReleases()
	f := NewFinalizer(kube, testFinalizer, "AIGatewayKey", rel, NewStore(kube, s, nil), event.NewNopRecorder())
	kind := "AIGatewayKey"
	before := released(t, kind)
	for i := range 2 {
		stale := mg.DeepCopy()
		rel.mark(stale.UID, "Unavailable")
		if err := f.RemoveFinalizer(context.Background(), stale); err != nil {
			t.Fatalf("removal %d: %v", i+1, err)
		}
	}
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(mg), &aiv1alpha1.AIGatewayKey{}); !kerrors.IsNotFound(err) {
		t.Fatalf("the resource after its finalizer's removal: %v, want it gone", err)
	}
	if got := released(t, kind) - before; got != 1 {
		t.Errorf("released_without_delete_total rose by %v over a removal and a stale retry, want 1", got)
	}
}
