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

package managedkind

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

func TestADeletingResourceTheManagedReconcilerLeavesAloneIsReleasedAtItsBounds(t *testing.T) {
	s := fixture.Scheme(t)
	const dependentTimeout = time.Minute
	key := types.NamespacedName{Namespace: "team-a", Name: "gw"}
	newKey := func(deleting, paused bool) *aiv1alpha1.AIGatewayKey {
		k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{
			Namespace: key.Namespace, Name: key.Name, UID: "aaaaaaaa-0000-0000-0000-000000000009",
			Finalizers: []string{providerconfig.ManagedFinalizer, "someone.else/keep"},
		}}
		k.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
		k.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionAll}
		meta.SetExternalName(k, "key-1")
		if deleting {
			k.DeletionTimestamp = &metav1.Time{Time: time.Now().Add(-time.Hour)}
		}
		if paused {
			meta.AddAnnotations(k, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
		}
		return k
	}
	pc := func(phase providerconfig.Phase) *namespacedv1alpha1.ProviderConfig {
		p := &namespacedv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "default"}}
		p.Spec.Deletion = &common.DeletionSpec{DependentTimeout: &metav1.Duration{Duration: dependentTimeout}}
		if phase != "" {
			p.Finalizers = []string{providerconfig.HoldFinalizer}
			p.DeletionTimestamp = &metav1.Time{Time: time.Now().Add(-time.Hour)}
			p.Status.Hold = &common.HoldStatus{Phase: string(phase)}
		}
		return p
	}
	namespace := func(deletingFor time.Duration) *corev1.Namespace {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: key.Namespace}}
		if deletingFor > 0 {
			ns.Finalizers = []string{"someone.else/keep"}
			ns.DeletionTimestamp = &metav1.Time{Time: time.Now().Add(-deletingFor)}
		}
		return ns
	}
	type want struct {
		InnerRan bool
		Released bool
		// Requeue is a bound: the result's RequeueAfter is within
		// [Requeue-10s, Requeue].
		Requeue time.Duration
	}
	cases := map[string]struct {
		reason string
		objs   []client.Object
		want   want
	}{
		"Live": {
			reason: "A resource that is not being deleted is the managed reconciler's.",
			objs:   []client.Object{newKey(false, true), pc(""), namespace(0)},
			want:   want{InnerRan: true},
		},
		"NotStalled": {
			reason: "A deleting resource the managed reconciler acts on is its own.",
			objs:   []client.Object{newKey(true, false), pc(""), namespace(0)},
			want:   want{InnerRan: true},
		},
		"PausedProviderConfigStands": {
			reason: "A paused resource whose ProviderConfig stands, in a namespace that stays, waits as Crossplane has it: for a change.",
			objs:   []client.Object{newKey(true, true), pc(""), namespace(0)},
			want:   want{InnerRan: true},
		},
		"PausedProviderConfigGone": {
			reason: "Nothing holds for it any more: released, without the managed reconciler.",
			objs:   []client.Object{newKey(true, true), namespace(0)},
			want:   want{Released: true},
		},
		"PausedProviderConfigHolding": {
			reason: "Its ProviderConfig's hold waits for it: so does it.",
			objs:   []client.Object{newKey(true, true), pc(providerconfig.PhaseHolding), namespace(0)},
			want:   want{InnerRan: true},
		},
		"PausedProviderConfigInGrace": {
			reason: "Its ProviderConfig's grace began: released.",
			objs:   []client.Object{newKey(true, true), pc(providerconfig.PhaseGrace), namespace(0)},
			want:   want{Released: true},
		},
		"PausedNamespaceDeletingWithinBound": {
			reason: "Its namespace is being deleted: looked at again at the namespace bound, which the managed reconciler never asks for.",
			objs:   []client.Object{newKey(true, true), pc(""), namespace(20 * time.Second)},
			want:   want{InnerRan: true, Requeue: dependentTimeout - 20*time.Second},
		},
		"PausedNamespaceDeletingPastBound": {
			reason: "Its namespace has been deleting for dependentTimeout: released.",
			objs:   []client.Object{newKey(true, true), pc(""), namespace(dependentTimeout)},
			want:   want{Released: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := fixture.Kube(t, tc.objs...).WithStatusSubresource(&clusterv1alpha1.CleanupRecord{}).Build()
			ran := false
			inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				ran = true
				return reconcile.Result{}, nil
			})
			r := &stalledReconciler{
				inner: inner, cache: kube, newObj: func() resource.Managed { return &aiv1alpha1.AIGatewayKey{} }, policies: true,
				connector: &providerconfig.Connector{Kube: kube},
				finalizer: deletion.NewFinalizer(kube, providerconfig.ManagedFinalizer, "AIGatewayKey", deletion.NewReleases(), deletion.NewStore(kube, s, nil), event.NewNopRecorder()),
				log:       logging.NewNopLogger(),
			}
			res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key})
			if err != nil {
				t.Fatal(err)
			}
			got := &aiv1alpha1.AIGatewayKey{}
			if err := kube.Get(context.Background(), key, got); err != nil {
				t.Fatal(err)
			}
			g := want{InnerRan: ran, Released: !meta.FinalizerExists(got, providerconfig.ManagedFinalizer)}
			if w := tc.want.Requeue; w > 0 && res.RequeueAfter <= w && res.RequeueAfter > w-10*time.Second {
				g.Requeue = w
			} else if res.RequeueAfter > 0 {
				g.Requeue = res.RequeueAfter
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("%s\nReconcile(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
