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

package aigatewaykey

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/coder/coder/v2/codersdk"
)

// staleCache answers Secret reads with a snapshot, as an informer that lags
// the API server does; everything else, writes included, goes through.
type staleCache struct {
	client.Client
	secret *corev1.Secret
}

func (c staleCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if s, ok := obj.(*corev1.Secret); ok && c.secret != nil && key == client.ObjectKeyFromObject(c.secret) {
		c.secret.DeepCopyInto(s)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func TestHoldsOnlyAPlaintextBesideItsOwnID(t *testing.T) {
	id := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	keys := []ownKey{{AIGatewayKey: codersdk.AIGatewayKey{ID: id, KeyPrefix: "abcdefghijk"}}}
	cases := map[string]struct {
		reason string
		data   map[string][]byte
		want   string
	}{
		"Own":         {"the plaintext begins with the prefix of the key the id names", map[string][]byte{ConnectionID: []byte(id.String()), ConnectionKey: []byte("abcdefghijkREST")}, id.String()},
		"NoPlaintext": {"a Secret without its plaintext holds no key", map[string][]byte{ConnectionID: []byte(id.String())}, ""},
		"OthersKey":   {"a plaintext of another key beside the id (an edit or a stale write) holds no key", map[string][]byte{ConnectionID: []byte(id.String()), ConnectionKey: []byte("zzzzzzzzzzzREST")}, ""},
		"UnknownID":   {"an id that is none of the resource's keys holds no key", map[string][]byte{ConnectionID: []byte("other"), ConnectionKey: []byte("abcdefghijkREST")}, ""},
		"EmptySecret": {"an empty Secret holds no key", nil, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := holds(tc.data, keys); got != tc.want {
				t.Errorf("%s\nholds(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestKeepsPlaintextOnlyBesideTheIDItWasCachedWith(t *testing.T) {
	cases := map[string]struct {
		reason  string
		cached  map[string][]byte
		details managed.ConnectionDetails
		want    bool
	}{
		"SameKey": {"the cache pairs the plaintext with the id details publish, and it is that key's: a key's plaintext never changes",
			map[string][]byte{ConnectionID: []byte("k1"), ConnectionKey: []byte("p1-rest")}, managed.ConnectionDetails{ConnectionID: []byte("k1"), ConnectionKeyPrefix: []byte("p1")}, true},
		"CacheBehindARotation": {"the cache still holds the retiring key while details name the new one: its plaintext must not go beside the new id",
			map[string][]byte{ConnectionID: []byte("k0"), ConnectionKey: []byte("p0-rest")}, managed.ConnectionDetails{ConnectionID: []byte("k1"), ConnectionKeyPrefix: []byte("p1")}, false},
		"EditedPlaintext": {"a cached plaintext that is not the key's own is not kept",
			map[string][]byte{ConnectionID: []byte("k1"), ConnectionKey: []byte("p0-rest")}, managed.ConnectionDetails{ConnectionID: []byte("k1"), ConnectionKeyPrefix: []byte("p1")}, false},
		"NoPrefix": {"without a prefix to check against, nothing is kept",
			map[string][]byte{ConnectionID: []byte("k1"), ConnectionKey: []byte("p1-rest")}, managed.ConnectionDetails{ConnectionID: []byte("k1")}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := keepsPlaintext(tc.cached, tc.details); got != tc.want {
				t.Errorf("%s\nkeepsPlaintext(...) = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

// A whole rotation with a Secret cache that lags: the cache still shows the
// first key's Secret after the rotation publishes the second. Each step
// publishes through crossplane-runtime's own publisher on the lagging
// cache, and after every step the Secret's plaintext is the key its id
// names.
func TestARotationWithALaggingSecretCacheKeepsEachPlaintextBesideItsID(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	api := f.ext.kube
	k := liveKey(nil)
	if err := api.Create(ctx, k); err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		s := &corev1.Secret{}
		if err := api.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "gw-conn"}, s); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		key, prefix := string(s.Data[ConnectionKey]), string(s.Data[ConnectionKeyPrefix])
		row, ok := f.srv.ValidKey(key)
		if !strings.HasPrefix(key, prefix) || !ok || row.ID.String() != string(s.Data[ConnectionID]) {
			t.Fatalf("%s: the Secret pairs id %s (prefix %s) with a plaintext that is not that key's (valid %v, of %s)", step, s.Data[ConnectionID], prefix, ok, row.ID)
		}
	}
	publish := func(step string, details managed.ConnectionDetails) {
		t.Helper()
		if _, err := managed.NewAPILocalSecretPublisher(f.ext.kube, f.ext.scheme).PublishConnection(ctx, k, details); err != nil {
			t.Fatalf("%s: publish: %v", step, err)
		}
		check(step)
	}
	observe := func(step string) managed.ExternalObservation {
		t.Helper()
		f.ext.plan = nil
		o, err := f.ext.Observe(ctx, k)
		if err != nil {
			t.Fatalf("%s: Observe: %v", step, err)
		}
		publish(step, o.ConnectionDetails)
		return o
	}

	c, err := f.ext.Create(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	publish("create", c.ConnectionDetails)
	observe("first observe")

	// The cache stops here: it shows the first key's Secret from now on.
	lagging := &corev1.Secret{}
	if err := api.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "gw-conn"}, lagging); err != nil {
		t.Fatal(err)
	}
	f.ext.kube = staleCache{Client: api, secret: lagging}
	first := meta.GetExternalName(k)
	meta.AddAnnotations(k, map[string]string{RotateAnnotation: "1"})
	if o := observe("observe of the request"); o.ResourceUpToDate || f.ext.plan.Action != ActionStart {
		t.Fatalf("the request did not start a rotation: %+v", f.ext.plan)
	}
	u, err := f.ext.Update(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	publish("start", u.ConnectionDetails)
	if meta.GetExternalName(k) == first {
		t.Fatalf("the rotation did not commit to a new key")
	}
	for _, step := range []string{"window observe 1", "window observe 2", "window observe 3"} {
		observe(step)
	}
}
