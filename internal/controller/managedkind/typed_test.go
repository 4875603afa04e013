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

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

// keyResource is, like aigatewaykey.Resource, an interface both scopes of
// a kind implement: the type parameter a kind's client takes.
type keyResource interface {
	resource.Managed
	KeyParameters() *common.AIGatewayKeyParameters
}

// TestTypedClientTakesEitherScopeThroughTheCleanupPass checks that a kind's
// typed client, adapted to the untyped one the cleanup pass wraps and back,
// gets the very object the reconciler passed, of either scope, and that an
// object of another kind never reaches it.
func TestTypedClientTakesEitherScopeThroughTheCleanupPass(t *testing.T) {
	cases := map[string]struct {
		reason  string
		mg      resource.Managed
		wantErr bool
	}{
		"Namespaced": {reason: "a namespaced key is a keyResource", mg: &aiv1alpha1.AIGatewayKey{}},
		"Cluster":    {reason: "a cluster-scoped key is a keyResource", mg: &clusteraiv1alpha1.AIGatewayKey{}},
		"OtherKind":  {reason: "a provider is not a keyResource", mg: &aiv1alpha1.AIProvider{}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []resource.Managed
			kind := managed.TypedExternalClientFns[keyResource]{
				ObserveFn: func(_ context.Context, k keyResource) (managed.ExternalObservation, error) {
					got = append(got, k)
					return managed.ExternalObservation{ResourceExists: true}, nil
				},
			}
			// What the cleanup pass holds: the kind's client, untyped.
			var pass managed.ExternalClient = untyped[keyResource]{kind}
			o, err := pass.Observe(context.Background(), tc.mg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("\n%s\nObserve(...): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			var want []resource.Managed
			if !tc.wantErr {
				want = []resource.Managed{tc.mg}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("\n%s\nobjects the kind's client got: -want, +got:\n%s", tc.reason, diff)
			}
			if o.ResourceExists == tc.wantErr {
				t.Errorf("\n%s\nResourceExists = %t, want %t", tc.reason, o.ResourceExists, !tc.wantErr)
			}
			if k, ok := tc.mg.(keyResource); ok {
				// What the reconciler's typed connector returns: the pass,
				// typed again.
				back := typed[keyResource]{pass}
				if _, err := back.Observe(context.Background(), k); err != nil {
					t.Errorf("\n%s\ntyped Observe: %v", tc.reason, err)
				}
				if len(got) != 2 || got[1] != tc.mg {
					t.Errorf("\n%s\ntyped Observe did not pass the object through", tc.reason)
				}
			}
		})
	}
}
