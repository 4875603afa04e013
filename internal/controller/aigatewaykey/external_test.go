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

// namedKey is a key resource with external name id.
func namedKey(id string) *aiv1alpha1.AIGatewayKey {
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gw", UID: testUID}}
	meta.SetExternalName(k, id)
	return k
}

func TestObserveConfirmsAbsenceOnAListNewerThanTheSharedOne(t *testing.T) {
	// The shared key list was read before the key existed. Trusting it
	// would call a live key absent and make another.
	ctx := context.Background()
	f := newFixture(t)
	if _, err := f.keys.List(ctx, f.ext.scope, f.cl); err != nil {
		t.Fatal(err)
	}
	id := f.createKey(t, "imported-later")
	obs, err := f.ext.Observe(ctx, namedKey(id.String()))
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
	if _, err := f.ext.Observe(context.Background(), namedKey("gw")); err == nil {
		t.Error("Observe with external name \"gw\" succeeded, want an error")
	}
	if n := f.srv.Requests(fakecoder.EndpointKeysList) - before; n != 0 {
		t.Errorf("Observe listed keys %d times for an external name that names nothing", n)
	}
}
