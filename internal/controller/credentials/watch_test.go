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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

func TestAProviderConfigUpdateRechecksTheSecretsOfOldAndNew(t *testing.T) {
	old := namespacedConfig(token.Namespace, token.Name)
	old.Spec.TLS = &common.LocalTLSConfig{CASecretRef: &common.LocalSecretKeySelector{Name: ca.Name, Key: "ca.crt"}}
	repointed := namespacedConfig(token.Namespace, "coder-token-2")

	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	enqueueSecrets().Update(context.Background(), event.UpdateEvent{ObjectOld: old, ObjectNew: repointed}, q)

	var got []types.NamespacedName
	for q.Len() > 0 {
		r, _ := q.Get()
		got = append(got, r.NamespacedName)
		q.Done(r)
	}
	// The old token and CA Secrets are named by the old object alone: a
	// repoint or a removed caSecretRef must still reach them.
	want := []types.NamespacedName{token, ca, {Namespace: token.Namespace, Name: "coder-token-2"}}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b types.NamespacedName) bool { return a.String() < b.String() })); diff != "" {
		t.Errorf("enqueued Secrets: -want, +got:\n%s", diff)
	}
}

func TestOnlyProviderConfigChangesThatMayReleaseASecretRecheckIt(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	base := namespacedConfig(token.Namespace, token.Name)
	base.Finalizers = []string{providerconfig.HoldFinalizer}
	cases := map[string]struct {
		reason string
		change func(n *namespacedv1alpha1.ProviderConfig)
		want   bool
	}{
		"StatusOnly": {
			reason: "A status update changes nothing the decision reads: no list per poll.",
			change: func(n *namespacedv1alpha1.ProviderConfig) { n.Status.Version = "v2.30.0" },
			want:   false,
		},
		"Repointed": {
			reason: "A repointed secretRef may release the old Secret.",
			change: func(n *namespacedv1alpha1.ProviderConfig) { n.Spec.Credentials.SecretRef.Name = "coder-token-2" },
			want:   true,
		},
		"CARemoved": {
			reason: "A removed caSecretRef may release the CA Secret.",
			change: func(n *namespacedv1alpha1.ProviderConfig) { n.Spec.TLS = nil },
			want:   true,
		},
		"DeletionStarted": {
			reason: "A deletion starting matters to the decision.",
			change: func(n *namespacedv1alpha1.ProviderConfig) { n.DeletionTimestamp = &now },
			want:   true,
		},
		"HoldLetGo": {
			reason: "The hold finalizer leaving is what releases the Secret.",
			change: func(n *namespacedv1alpha1.ProviderConfig) { n.Finalizers = nil },
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := base.DeepCopy()
			o.Spec.TLS = &common.LocalTLSConfig{CASecretRef: &common.LocalSecretKeySelector{Name: ca.Name, Key: "ca.crt"}}
			n := o.DeepCopy()
			tc.change(n)
			if got := secretsMayBeReleased().Update(event.UpdateEvent{ObjectOld: o, ObjectNew: n}); got != tc.want {
				t.Errorf("%s\nUpdate(...) = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}
