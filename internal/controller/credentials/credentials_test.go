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

package credentials

import (
	"context"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

const foreign = "someone.else/finalizer"

func protectedSecret() *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Namespace: token.Namespace, Name: token.Name,
		Finalizers: []string{foreign, providerconfig.CredentialsFinalizer},
	}}
}

func namespacedConfig(ns, secret string) *namespacedv1alpha1.ProviderConfig {
	return &namespacedv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"},
		Spec: common.LocalProviderConfigSpec{
			URL:         "https://coder.example.com",
			Credentials: common.LocalCredentials{Source: common.CredentialsSourceSecret, SecretRef: &common.LocalSecretKeySelector{Name: secret, Key: "token"}},
		},
	}
}

func TestASecretLosesOnlyOurFinalizerOnceNoProviderConfigNeedsIt(t *testing.T) {
	type want struct {
		result     reconcile.Result
		err        bool
		finalizers []string
	}
	cases := map[string]struct {
		reason string
		objs   []client.Object
		funcs  interceptor.Funcs
		want   want
	}{
		"Released": {
			reason: "A Secret no ProviderConfig reads loses our finalizer and keeps everyone else's.",
			objs:   []client.Object{protectedSecret()},
			want:   want{finalizers: []string{foreign}},
		},
		"Needed": {
			reason: "A Secret a live ProviderConfig of its namespace reads keeps our finalizer.",
			objs:   []client.Object{protectedSecret(), namespacedConfig(token.Namespace, token.Name)},
			want:   want{finalizers: []string{foreign, providerconfig.CredentialsFinalizer}},
		},
		"NamespacedConfigElsewhere": {
			reason: "A namespaced ProviderConfig reads Secrets of its own namespace only: one elsewhere with the same secretRef does not keep it.",
			objs:   []client.Object{protectedSecret(), namespacedConfig(other.Namespace, token.Name)},
			want:   want{finalizers: []string{foreign}},
		},
		"WrittenSinceRead": {
			reason: "A write to the Secret between our read and our patch, as a ProviderConfig protecting it makes, fails the patch: decide again.",
			objs:   []client.Object{protectedSecret()},
			funcs: interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
				sec := &corev1.Secret{}
				if err := c.Get(ctx, token, sec); err != nil {
					return err
				}
				if sec.Annotations == nil {
					sec.Annotations = map[string]string{"touched": "yes"}
					if err := c.Update(ctx, sec); err != nil {
						return err
					}
				}
				return c.List(ctx, l, opts...)
			}},
			want: want{result: reconcile.Result{RequeueAfter: AfterConflict}, finalizers: []string{foreign, providerconfig.CredentialsFinalizer}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := fixture.Kube(t, tc.objs...).WithInterceptorFuncs(tc.funcs).Build()
			r := &Reconciler{kube: kube, reader: kube, log: logging.NewNopLogger(), record: event.NewNopRecorder()}
			res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: token})
			sec := &corev1.Secret{}
			if gerr := kube.Get(context.Background(), token, sec); gerr != nil {
				t.Fatal(gerr)
			}
			got := want{result: res, err: err != nil, finalizers: sec.Finalizers}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nReconcile(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}

	t.Run("SecretGone", func(t *testing.T) {
		kube := fixture.Kube(t).Build()
		r := &Reconciler{kube: kube, reader: kube, log: logging.NewNopLogger(), record: event.NewNopRecorder()}
		if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: token}); err != nil {
			t.Errorf("a Secret already gone: %v", err)
		}
	})
}

func clusterConfig(secret types.NamespacedName) *namespacedv1alpha1.ClusterProviderConfig {
	return &namespacedv1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "c", UID: "cpc-uid", Finalizers: []string{providerconfig.HoldFinalizer}},
		Spec: common.ProviderConfigSpec{
			URL: "https://coder.example.com",
			Credentials: common.Credentials{Source: common.CredentialsSourceSecret, SecretRef: &common.SecretKeySelector{
				LocalSecretKeySelector: common.LocalSecretKeySelector{Name: secret.Name, Key: "token"}, Namespace: secret.Namespace,
			}},
		},
	}
}

// events records the reasons of the events it is given, by object UID.
type events struct{ got map[types.UID][]string }

func (e *events) Event(o runtime.Object, ev event.Event) {
	if m, ok := o.(metav1.Object); ok {
		e.got[m.GetUID()] = append(e.got[m.GetUID()], string(ev.Type)+" "+string(ev.Reason))
	}
}

func (e *events) WithAnnotations(...string) event.Recorder { return e }

func TestASecretBeingDeletedIsReleasedOnceTheStandingClusterProviderConfigThatReadsItPassedItsBounds(t *testing.T) {
	deleting := func() *corev1.Secret {
		sec := protectedSecret()
		sec.DeletionTimestamp = &metav1.Time{Time: time.Now().Add(-time.Second)}
		return sec
	}
	liveKey := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "k"}}
	liveKey.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "c"}
	type want struct {
		requeue  bool
		released bool
		events   []string
	}
	cases := map[string]struct {
		reason string
		objs   []client.Object
		want   want
	}{
		"NoDependents": {
			reason: "A standing ClusterProviderConfig with no dependents lets its Secret being deleted go at once, and is told so.",
			objs:   []client.Object{deleting(), clusterConfig(token)},
			want:   want{released: true, events: []string{"Warning " + string(providerconfig.ReasonCredentialsUnavailable)}},
		},
		"LiveDependent": {
			reason: "A live dependent keeps the Secret for liveDependentTimeout from its deletion: decide again at the bound.",
			objs:   []client.Object{deleting(), clusterConfig(token), liveKey},
			want:   want{requeue: true},
		},
		"NotDeleting": {
			reason: "A Secret not being deleted stays protected while a ProviderConfig reads it, with nothing to re-check by itself.",
			objs:   []client.Object{protectedSecret(), clusterConfig(token)},
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := fixture.Kube(t, tc.objs...).Build()
			ev := &events{got: map[types.UID][]string{}}
			r := &Reconciler{kube: kube, reader: kube, log: logging.NewNopLogger(), record: ev}
			res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: token})
			if err != nil {
				t.Fatal(err)
			}
			sec := &corev1.Secret{}
			released := kube.Get(context.Background(), token, sec) != nil || !controllerutil.ContainsFinalizer(sec, providerconfig.CredentialsFinalizer)
			got := want{requeue: res.RequeueAfter > 0, released: released, events: ev.got["cpc-uid"]}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nReconcile(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
