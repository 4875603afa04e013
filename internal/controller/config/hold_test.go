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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// A ProviderConfig reconciled again before the cache holds its own
// protection of the credentials Secret decides on a fresh copy: it writes
// nothing when the Secret is already protected, where a write from the
// stale copy would be refused as a conflict and report the ProviderConfig
// not Ready for a moment (CI's benchmark saw one such 409 in 30 keys).
func TestAProtectionTheCacheHasNotSeenYetIsNotWrittenAgain(t *testing.T) {
	cases := map[string]struct {
		reason      string
		onServer    []string
		wantPatches int
	}{
		"ProtectedSinceTheCacheRead": {
			reason:   "The Secret holds the finalizer; only the cache does not know yet.",
			onServer: []string{providerconfig.CredentialsFinalizer},
		},
		"NotProtected": {
			reason:      "Neither copy holds the finalizer: it is added once.",
			wantPatches: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			nn := types.NamespacedName{Namespace: "team-a", Name: "coder-token"}
			server := fixture.Kube(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: nn.Namespace, Name: nn.Name}}).Build()
			stale := &corev1.Secret{}
			if err := server.Get(ctx, nn, stale); err != nil {
				t.Fatal(err)
			}
			if len(tc.onServer) > 0 {
				s := stale.DeepCopy()
				s.Finalizers = tc.onServer
				if err := server.Update(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			patches := 0
			cached := interceptor.NewClient(server, interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if s, ok := obj.(*corev1.Secret); ok && key == nn {
						stale.DeepCopyInto(s)
						return nil
					}
					return c.Get(ctx, key, obj, opts...)
				},
				Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
					patches++
					return c.Patch(ctx, obj, p, opts...)
				},
			})
			r := &Reconciler{kube: cached, reader: server}

			if err := r.protectSecret(ctx, nn); err != nil {
				t.Fatalf("%s\nprotectSecret: %v", tc.reason, err)
			}
			if patches != tc.wantPatches {
				t.Errorf("%s\npatches = %d, want %d", tc.reason, patches, tc.wantPatches)
			}
			got := &corev1.Secret{}
			if err := server.Get(ctx, nn, got); err != nil {
				t.Fatal(err)
			}
			if !controllerutil.ContainsFinalizer(got, providerconfig.CredentialsFinalizer) {
				t.Errorf("%s\nthe Secret is not protected: finalizers %v", tc.reason, got.Finalizers)
			}
		})
	}
}
