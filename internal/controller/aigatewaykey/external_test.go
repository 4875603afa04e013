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
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	testfixture "github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// testUID is the UID of the key resource the tests observe.
const testUID = "0b1c2d3e-0000-4000-8000-00000000abcd"

// fixture is an external client of a fake Coder and a fake Kubernetes
// API, and the fake Coder behind it.
type fixture struct {
	srv *fakecoder.Server
	cl  *coder.Client
	// keys is the shared key list; its TTL is long, so a list is stale
	// until something invalidates it.
	keys *coder.KeyLister
	ext  *external
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	srv, cl := testfixture.Coder(t)
	s := testfixture.Scheme(t)
	kube := testfixture.Kube(t).Build()
	keys := coder.NewKeyLister(time.Hour)
	return &fixture{srv: srv, cl: cl, keys: keys, ext: &external{
		coder: cl, keys: keys, sent: deletion.NewReleases(), scope: "test", url: srv.URL(),
		record: event.NewNopRecorder(), log: logging.NewNopLogger(),
		kube: kube, reader: kube, scheme: s,
		records: deletion.NewStore(kube, s, nil), kind: "AIGatewayKey", now: time.Now,
	}}
}

// createKey makes a key in Coder behind the provider's back.
func (f *fixture) createKey(t *testing.T, name string) uuid.UUID {
	t.Helper()
	resp, err := f.cl.CreateKey(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return resp.ID
}

// liveIDs are the ids of the keys left in Coder.
func (f *fixture) liveIDs() []uuid.UUID {
	var out []uuid.UUID
	for _, k := range f.srv.Keys() {
		out = append(out, k.ID)
	}
	return out
}

// deletingKey is a key resource being deleted, with external name id
// (none when empty).
func deletingKey(id string) *aiv1alpha1.AIGatewayKey {
	now := metav1.Now()
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{
		Namespace: "team-a", Name: "gw", UID: testUID, DeletionTimestamp: &now,
	}}
	if id != "" {
		meta.SetExternalName(k, id)
	}
	return k
}

// The deletion contract: a deleting key observes every key of the resource
// in Coder, Delete removes them all, and only an Observe that finds none
// lets the finalizer go.
func TestDeletingAKeyRevokesEveryKeyOfTheResourceAndOnlyThen(t *testing.T) {
	derived := func(n int) string { return RotatedKeyName("", "team-a", "gw", testUID, n) }
	cases := map[string]struct {
		reason string
		// setup makes keys in Coder and returns the external name (may
		// be empty) and the ids Delete must remove.
		setup func(t *testing.T, f *fixture) (externalName string, revoked []uuid.UUID)
		// wantExists is what the first Observe says.
		wantExists bool
	}{
		"CurrentAndRetiringKeys": {
			reason: "A delete during a rotation's settle window revokes the retiring key with the current one.",
			setup: func(t *testing.T, f *fixture) (string, []uuid.UUID) {
				old, cur := f.createKey(t, derived(0)), f.createKey(t, derived(1))
				return cur.String(), []uuid.UUID{old, cur}
			},
			wantExists: true,
		},
		"KeyOfALostCreateAnswer": {
			reason: "A key whose create answer was lost (no external name) is found by its derived name and revoked.",
			setup: func(t *testing.T, f *fixture) (string, []uuid.UUID) {
				return "", []uuid.UUID{f.createKey(t, derived(0))}
			},
			wantExists: true,
		},
		"ImportedKey": {
			reason: "A key imported by external name is the resource's whatever its name, and is revoked.",
			setup: func(t *testing.T, f *fixture) (string, []uuid.UUID) {
				id := f.createKey(t, "made-by-hand")
				return id.String(), []uuid.UUID{id}
			},
			wantExists: true,
		},
		"KeyAlreadyGoneInCoder": {
			reason: "A key deleted in Coder already is absent: nothing is left to revoke.",
			setup: func(t *testing.T, f *fixture) (string, []uuid.UUID) {
				id := f.createKey(t, derived(0))
				if err := f.cl.DeleteKey(context.Background(), id); err != nil {
					t.Fatal(err)
				}
				return id.String(), nil
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			other := f.createKey(t, RotatedKeyName("", "team-b", "gw", "ffffffff-0000-4000-8000-000000000000", 0))
			id, revoked := tc.setup(t, f)
			k := deletingKey(id)

			obs, err := f.ext.Observe(ctx, k)
			if err != nil {
				t.Fatalf("%s\nObserve: %v", tc.reason, err)
			}
			if obs.ResourceExists != tc.wantExists {
				t.Fatalf("%s\nObserve says exists = %v, want %v", tc.reason, obs.ResourceExists, tc.wantExists)
			}
			if !obs.ResourceExists {
				return
			}
			if meta.GetExternalName(k) == "" {
				t.Errorf("%s\nObserve left the external name empty; Delete would have nothing to name", tc.reason)
			}
			if _, err := f.ext.Delete(ctx, k); err != nil {
				t.Fatalf("%s\nDelete: %v", tc.reason, err)
			}
			for _, r := range revoked {
				if slices.Contains(f.liveIDs(), r) {
					t.Errorf("%s\nkey %s is still in Coder after Delete", tc.reason, r)
				}
			}
			if !slices.Contains(f.liveIDs(), other) {
				t.Errorf("%s\nDelete removed another resource's key", tc.reason)
			}
			// The reconciler observes again before it lets go.
			obs, err = f.ext.Observe(ctx, k)
			if err != nil || obs.ResourceExists {
				t.Errorf("%s\nObserve after Delete: exists %v, error %v; want absent", tc.reason, obs.ResourceExists, err)
			}
		})
	}
}

func TestDeleteOfAKeyAlreadyGoneInCoderSucceeds(t *testing.T) {
	// The reconciler deletes on an observation that may be a moment old:
	// Coder's NotFound for a key removed since is success, not a retry.
	ctx := context.Background()
	f := newFixture(t)
	id := f.createKey(t, KeyName("", "team-a", "gw", testUID))
	if err := f.cl.DeleteKey(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ext.Delete(ctx, deletingKey(id.String())); err != nil {
		t.Errorf("Delete of a key already gone: %v, want success", err)
	}
}

func TestDeleteWithoutAKeyIDFailsInsteadOfGuessing(t *testing.T) {
	// Nothing observed and an external name that is not a Coder key id:
	// there is nothing Delete may name, and succeeding would let the
	// finalizer go on an unverified delete.
	f := newFixture(t)
	if _, err := f.ext.Delete(context.Background(), deletingKey("not-a-uuid")); err == nil {
		t.Error("Delete with external name \"not-a-uuid\" succeeded, want an error")
	}
}

func TestObserveConfirmsAbsenceOnAListNewerThanTheSharedOne(t *testing.T) {
	// The shared key list was read before the key existed. Trusting it
	// would call a live key absent: a delete would be "verified" and the
	// key left in Coder.
	ctx := context.Background()
	f := newFixture(t)
	if _, err := f.keys.List(ctx, f.ext.scope, f.cl); err != nil {
		t.Fatal(err)
	}
	id := f.createKey(t, "imported-later")
	obs, err := f.ext.Observe(ctx, deletingKey(id.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !obs.ResourceExists {
		t.Error("Observe says the key is absent on a shared list older than the key")
	}
}

func TestObserveRejectsAnExternalNameThatIsNoKeyID(t *testing.T) {
	f := newFixture(t)
	before := f.srv.Requests(fakecoder.EndpointKeysList)
	if _, err := f.ext.Observe(context.Background(), deletingKey("gw")); err == nil {
		t.Error("Observe with external name \"gw\" succeeded, want an error")
	}
	if n := f.srv.Requests(fakecoder.EndpointKeysList) - before; n != 0 {
		t.Errorf("Observe listed keys %d times for an external name that names nothing", n)
	}
}
