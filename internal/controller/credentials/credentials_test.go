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

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/crossplane-contrib/provider-coder/apis"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
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
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
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
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(tc.objs...).WithInterceptorFuncs(tc.funcs).Build()
			r := &Reconciler{kube: kube, reader: kube, log: logging.NewNopLogger()}
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
		kube := fake.NewClientBuilder().WithScheme(s).Build()
		r := &Reconciler{kube: kube, reader: kube, log: logging.NewNopLogger()}
		if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: token}); err != nil {
			t.Errorf("a Secret already gone: %v", err)
		}
	})
}
