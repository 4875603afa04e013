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

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/activation"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// Under Crossplane's SafeStart a kind no policy activated has no CRD: the
// API server refuses to list it. The dependents counted are those of the
// kinds that exist, and the count does not fail on the others.
func TestDependentsCountOnlyKindsThatExist(t *testing.T) {
	provider := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "openai"}}
	provider.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	// A key's list fails as the API server's does for a kind it does not serve.
	kube := fixture.Kube(t, provider, dependentKey(false)).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
			if _, ok := l.(*aiv1alpha1.AIGatewayKeyList); ok {
				return errors.New(`no matches for kind "AIGatewayKey" in version "ai.coder.m.crossplane.io/v1alpha1"`)
			}
			return c.List(ctx, l, opts...)
		},
	}).Build()
	ref := providerconfig.Ref{GroupKind: namespacedv1alpha1.ProviderConfigGroupVersionKind.GroupKind(), Namespace: "team-a", Name: "default"}

	cases := map[string]struct {
		reason  string
		served  []schema.GroupVersionKind
		want    []string
		wantErr bool
	}{
		"OnlyProvidersActive": {
			reason: "the policy activates the namespaced AIProvider only: the key kind is not counted, nor asked",
			served: []schema.GroupVersionKind{aiv1alpha1.AIProviderGroupVersionKind},
			want:   []string{"AIProvider team-a/openai"},
		},
		"NothingActive": {
			reason: "no managed kind active: nothing uses the ProviderConfig",
		},
		"KeysCountedOnceActive": {
			reason:  "a kind that exists is listed: here the API server still refuses it, and the count fails rather than miss a dependent",
			served:  []schema.GroupVersionKind{aiv1alpha1.AIProviderGroupVersionKind, aiv1alpha1.AIGatewayKeyGroupVersionKind},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kinds := activation.Existing(apis.ManagedKinds(), func(gvk schema.GroupVersionKind) bool {
				for _, s := range tc.served {
					if s == gvk {
						return true
					}
				}
				return false
			})
			deps, err := ListDependents(context.Background(), kube, ref, kinds)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nListDependents: %v, want error %t", tc.reason, err, tc.wantErr)
			}
			var got []string
			for _, d := range deps {
				got = append(got, d.Kind+" "+d.Namespace+"/"+d.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nListDependents: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
