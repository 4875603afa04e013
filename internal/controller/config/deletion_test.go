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

package config

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// dependentKey is a key of team-a that uses the ProviderConfig "default";
// deleting, it carries the finalizers given.
func dependentKey(deleting bool, finalizers ...string) client.Object {
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gw", Finalizers: finalizers}}
	k.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	if deleting {
		now := metav1.Now()
		k.DeletionTimestamp = &now
	}
	return k
}

// The deletion path of a ProviderConfig: it keeps its finalizer while a
// dependent may still need its credentials to delete in Coder, and lets
// go as soon as none may.
func TestADeletingProviderConfigHoldsOnlyForDependentsThatMayStillNeedIt(t *testing.T) {
	cases := map[string]struct {
		reason      string
		dependent   client.Object
		wantHolding bool
	}{
		"NoDependents": {
			reason: "Nothing uses the ProviderConfig: it is released at once.",
		},
		"LiveDependent": {
			reason:      "A live dependent will need the credentials to delete its object in Coder.",
			dependent:   dependentKey(false),
			wantHolding: true,
		},
		"DeletingDependentWithOurFinalizer": {
			reason:      "A dependent that is deleting and still carries our finalizer has not deleted in Coder yet.",
			dependent:   dependentKey(true, providerconfig.ManagedFinalizer),
			wantHolding: true,
		},
		"DeletingDependentWithoutOurFinalizer": {
			reason:    "A dependent whose finalizer is gone is done with Coder, whatever other finalizer keeps it.",
			dependent: dependentKey(true, "someone.else/keep"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			now := metav1.Now()
			pc := &namespacedv1alpha1.ProviderConfig{
				ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "default", Finalizers: []string{providerconfig.HoldFinalizer}, DeletionTimestamp: &now},
				Spec: common.LocalProviderConfigSpec{URL: "https://coder.example.com", Credentials: common.LocalCredentials{
					Source: common.CredentialsSourceSecret, SecretRef: &common.LocalSecretKeySelector{Name: "coder-token", Key: "token"},
				}},
			}
			objs := []client.Object{pc, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}}
			if tc.dependent != nil {
				objs = append(objs, tc.dependent)
			}
			kube := fixture.Kube(t, objs...).Build()
			r := &Reconciler{
				kube: kube, kind: namespacedv1alpha1.ProviderConfigGroupVersionKind.GroupKind(),
				log: logging.NewNopLogger(), poll: time.Minute, timeout: time.Second,
				mem: &configStates{m: map[providerconfig.Ref]*configState{}}, finalizer: resource.NewAPIFinalizer(kube, providerconfig.HoldFinalizer),
			}

			res, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team-a", Name: "default"}})
			if err != nil {
				t.Fatalf("%s\nReconcile: %v", tc.reason, err)
			}
			got := &namespacedv1alpha1.ProviderConfig{}
			err = kube.Get(ctx, client.ObjectKeyFromObject(pc), got)
			if !tc.wantHolding {
				// Our finalizer was the last: its removal lets the API
				// server delete the object.
				if !kerrors.IsNotFound(err) {
					t.Errorf("%s\nthe ProviderConfig is still there (get error %v, finalizers %v), want it released", tc.reason, err, got.Finalizers)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nthe ProviderConfig was released: %v", tc.reason, err)
			}
			if h := got.Status.Hold; h == nil || h.Remaining != 1 {
				t.Errorf("%s\nstatus.hold = %+v, want one dependent waited for", tc.reason, h)
			}
			if c := got.GetCondition(xpv2.TypeReady); c.Status != corev1.ConditionFalse {
				t.Errorf("%s\nReady = %s, want False while holding", tc.reason, c.Status)
			}
			if res.RequeueAfter <= 0 {
				t.Errorf("%s\nno requeue while holding: the hold's time bound would never be checked", tc.reason)
			}
		})
	}
}
