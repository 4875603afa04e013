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
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// liveKey is a key resource that is not being deleted, writing its
// connection Secret to gw-conn, with the given annotations.
func liveKey(annotations map[string]string) *aiv1alpha1.AIGatewayKey {
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{
		Namespace: "team-a", Name: "gw", UID: testUID, Annotations: annotations,
	}}
	k.SetWriteConnectionSecretToReference(&xpv2.LocalSecretReference{Name: "gw-conn"})
	return k
}

// assertNoPlaintext fails when plaintext appears anywhere in k: status,
// spec or metadata. Only the connection Secret may hold it.
func assertNoPlaintext(t *testing.T, reason string, k *aiv1alpha1.AIGatewayKey, plaintext string) {
	t.Helper()
	b, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if plaintext == "" || strings.Contains(string(b), plaintext) {
		t.Errorf("%s\nthe key's plaintext is empty or appears in the resource: %s", reason, b)
	}
}

func TestCreateKeyPublishesPlaintextOnlyInConnectionDetails(t *testing.T) {
	cases := map[string]struct {
		reason      string
		annotations map[string]string
		// wantRotated is the rotated annotation Create leaves.
		wantRotated string
	}{
		"FirstKey": {
			reason: "A new key's plaintext goes to the connection details, its id to the external name, and nowhere else.",
		},
		"RotateRequestAlreadyThere": {
			reason:      "A rotate request made before the first key exists is answered by that key.",
			annotations: map[string]string{RotateAnnotation: "r1"},
			wantRotated: "r1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			k := liveKey(tc.annotations)
			c, err := f.ext.Create(context.Background(), k)
			if err != nil {
				t.Fatalf("%s\nCreate: %v", tc.reason, err)
			}
			plaintext := string(c.ConnectionDetails[ConnectionKey])
			row, ok := f.srv.ValidKey(plaintext)
			if !ok {
				t.Fatalf("%s\nthe published key %q is not a key of Coder", tc.reason, plaintext)
			}
			want := managed.ConnectionDetails{
				ConnectionKey:       []byte(plaintext),
				ConnectionKeyPrefix: []byte(row.KeyPrefix),
				ConnectionID:        []byte(row.ID.String()),
				ConnectionName:      []byte(DerivedName(k)),
				ConnectionURL:       []byte(f.srv.URL()),
			}
			if diff := cmp.Diff(want, c.ConnectionDetails); diff != "" {
				t.Errorf("%s\nconnection details: -want, +got:\n%s", tc.reason, diff)
			}
			if got := meta.GetExternalName(k); got != row.ID.String() {
				t.Errorf("%s\nexternal name = %q, want the new key's id %q", tc.reason, got, row.ID)
			}
			if got := k.GetAnnotations()[RotatedAnnotation]; got != tc.wantRotated {
				t.Errorf("%s\nrotated annotation = %q, want %q", tc.reason, got, tc.wantRotated)
			}
			assertNoPlaintext(t, tc.reason, k, plaintext)
		})
	}
}

func TestFailedCreateMakesTheNextObserveListCoderAgain(t *testing.T) {
	cases := map[string]struct {
		reason string
		fault  fakecoder.Fault
		// wantKeys is how many keys a list after the failure finds.
		wantKeys int
	}{
		"CommittedThenFailed": {
			reason:   "Coder wrote the key but the answer was an error: the next list must show it, not the list from before.",
			fault:    fakecoder.Fault{Status: 500, Commit: true, Times: 1},
			wantKeys: 1,
		},
		"Refused": {
			reason: "Coder refused the create: the list is read again all the same, since the client cannot know.",
			fault:  fakecoder.Fault{Status: 400, Times: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			// The shared list is read, empty, before the create.
			if _, err := f.keys.List(ctx, f.ext.scope, f.cl); err != nil {
				t.Fatal(err)
			}
			if err := f.srv.SetFault(fakecoder.EndpointKeysCreate, tc.fault); err != nil {
				t.Fatal(err)
			}
			k := liveKey(nil)
			c, err := f.ext.Create(ctx, k)
			if err == nil {
				t.Fatalf("%s\nCreate succeeded, want an error", tc.reason)
			}
			if len(c.ConnectionDetails) != 0 || meta.GetExternalName(k) != "" {
				t.Errorf("%s\na failed Create returned details %v and external name %q, want none", tc.reason, c.ConnectionDetails, meta.GetExternalName(k))
			}
			before := f.srv.Requests(fakecoder.EndpointKeysList)
			list, err := f.keys.List(ctx, f.ext.scope, f.cl)
			if err != nil {
				t.Fatal(err)
			}
			if n := f.srv.Requests(fakecoder.EndpointKeysList) - before; n != 1 {
				t.Errorf("%s\nthe list after a failed create took %d requests to Coder, want 1: the shared list was not invalidated", tc.reason, n)
			}
			if list.Len() != tc.wantKeys {
				t.Errorf("%s\nthe list after the failed create has %d keys, want %d", tc.reason, list.Len(), tc.wantKeys)
			}
		})
	}
}

// rotation is what an Update case starts from: the resource, in
// Kubernetes, and its keys in Coder.
type rotation struct {
	k        *aiv1alpha1.AIGatewayKey
	old, cur uuid.UUID
	oldName  string
}

// setUpRotation makes keys 0 (old) and 1 (cur) of the resource in Coder,
// stores the resource, and its Secret when secret is not nil.
func setUpRotation(t *testing.T, f *fixture, annotations map[string]string, secret map[string][]byte) rotation {
	t.Helper()
	ctx := context.Background()
	r := rotation{k: liveKey(annotations), oldName: RotatedKeyName("", "team-a", "gw", testUID, 0)}
	r.old, r.cur = f.createKey(t, r.oldName), f.createKey(t, RotatedKeyName("", "team-a", "gw", testUID, 1))
	meta.SetExternalName(r.k, r.old.String())
	if err := f.ext.kube.Create(ctx, r.k); err != nil {
		t.Fatal(err)
	}
	if secret != nil {
		s, err := f.ext.newSecret(r.k)
		if err != nil {
			t.Fatal(err)
		}
		s.Data = secret
		if err := f.ext.kube.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (f *fixture) secretData(t *testing.T) map[string][]byte {
	t.Helper()
	s := &corev1.Secret{}
	if err := f.ext.kube.Get(context.Background(), client.ObjectKey{Namespace: "team-a", Name: "gw-conn"}, s); err != nil {
		t.Fatal(err)
	}
	return s.Data
}

// rotationNow is the clock of the Update tests.
var rotationNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// update runs Update with plan on the resource of r.
func (f *fixture) update(t *testing.T, r rotation, plan *RotationPlan) managed.ExternalUpdate {
	t.Helper()
	f.ext.now = func() time.Time { return rotationNow }
	f.ext.plan = plan
	u, err := f.ext.Update(context.Background(), r.k)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return u
}

// stored is the resource of r as Kubernetes holds it.
func (f *fixture) stored(t *testing.T, r rotation) *aiv1alpha1.AIGatewayKey {
	t.Helper()
	o := &aiv1alpha1.AIGatewayKey{}
	if err := f.ext.kube.Get(context.Background(), client.ObjectKeyFromObject(r.k), o); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestUpdateDeletesInCoderOnlyTheKeysTheStepRetires(t *testing.T) {
	cases := map[string]struct {
		reason string
		plan   func(r rotation) *RotationPlan
		// wantLive are the keys left in Coder: old, cur or both.
		wantLive func(r rotation) []uuid.UUID
	}{
		"NothingObserved": {
			reason:   "Without a plan from Observe, Update does nothing.",
			plan:     func(rotation) *RotationPlan { return nil },
			wantLive: func(r rotation) []uuid.UUID { return []uuid.UUID{r.old, r.cur} },
		},
		"None": {
			reason: "No step is due: nothing in Coder changes.",
			plan: func(r rotation) *RotationPlan {
				return &RotationPlan{Action: ActionNone, Current: &Key{ID: r.old.String()}}
			},
			wantLive: func(r rotation) []uuid.UUID { return []uuid.UUID{r.old, r.cur} },
		},
		"Discard": {
			reason: "A key whose plaintext nobody holds is deleted in Coder.",
			plan: func(r rotation) *RotationPlan {
				return &RotationPlan{Action: ActionDiscard, Discard: []Key{{Counter: 1, ID: r.cur.String(), Prefix: "x"}}}
			},
			wantLive: func(r rotation) []uuid.UUID { return []uuid.UUID{r.old} },
		},
		"Retire": {
			reason: "After the settle window the retiring key is deleted in Coder, the current one kept.",
			plan: func(r rotation) *RotationPlan {
				return &RotationPlan{
					Action: ActionRetire, Current: &Key{Counter: 1, ID: r.cur.String()},
					Retiring:  []Key{{Counter: 0, ID: r.old.String(), Prefix: "oldp"}},
					StartedAt: rotationNow.Add(-time.Hour), RetiresAt: rotationNow,
				}
			},
			wantLive: func(r rotation) []uuid.UUID { return []uuid.UUID{r.cur} },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			r := setUpRotation(t, f, nil, nil)
			f.update(t, r, tc.plan(r))
			if diff := cmp.Diff(tc.wantLive(r), f.liveIDs()); diff != "" {
				t.Errorf("%s\nkeys in Coder: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// A rotation creates the next key, publishes its plaintext to the Secret
// (and nowhere else on the resource), then commits the external name to it.
func TestRotationStartPublishesTheNewPlaintextToTheSecretThenCommits(t *testing.T) {
	f := newFixture(t)
	r := setUpRotation(t, f, map[string]string{RotateAnnotation: "r2"}, map[string][]byte{ConnectionKey: []byte("old-plaintext")})
	u := f.update(t, r, &RotationPlan{Action: ActionStart, Next: 2, Trigger: "requested", Current: &Key{Counter: 0, ID: r.old.String(), Prefix: "oldp"}})

	plaintext := string(u.ConnectionDetails[ConnectionKey])
	row, ok := f.srv.ValidKey(plaintext)
	if !ok {
		t.Fatalf("the returned key %q is not a key of Coder", plaintext)
	}
	if row.Name != RotatedKeyName("", "team-a", "gw", testUID, 2) {
		t.Errorf("new key name %q, want rotation 2's", row.Name)
	}
	if diff := cmp.Diff(map[string]string{
		ConnectionKey: plaintext, ConnectionID: row.ID.String(), ConnectionKeyPrefix: row.KeyPrefix,
		ConnectionName: row.Name, ConnectionURL: f.srv.URL(), ConnectionPreviousKeyPrefix: "oldp",
	}, stringsOf(f.secretData(t))); diff != "" {
		t.Errorf("connection Secret: -want, +got:\n%s", diff)
	}
	for _, o := range []*aiv1alpha1.AIGatewayKey{r.k, f.stored(t, r)} {
		if got := meta.GetExternalName(o); got != row.ID.String() {
			t.Errorf("external name %q, want the new key %s", got, row.ID)
		}
		if got := o.GetAnnotations()[RotatedAnnotation]; got != "r2" {
			t.Errorf("rotated annotation %q, want the request r2 answered", got)
		}
	}
	if got := r.k.Status.AtProvider.Rotation; got == nil || got.RetiringKeyPrefix != "oldp" || got.Counter != 2 {
		t.Errorf("status rotation %+v, want counter 2 retiring oldp", got)
	}
	assertNoPlaintext(t, "a rotation's new plaintext is in the Secret only", r.k, plaintext)
}

// A published key becomes the external name, persisted at once (the
// reconciler persists no metadata after an update), with the rotate
// request answered and the resource version carried over.
func TestRotationCommitPersistsTheExternalNameAndAnswersTheRequest(t *testing.T) {
	f := newFixture(t)
	r := setUpRotation(t, f, map[string]string{RotateAnnotation: "r1"}, nil)
	f.update(t, r, &RotationPlan{Action: ActionCommit, Current: &Key{Counter: 1, ID: r.cur.String()}})

	stored := f.stored(t, r)
	want := map[string]string{meta.AnnotationKeyExternalName: r.cur.String(), RotateAnnotation: "r1", RotatedAnnotation: "r1"}
	for _, o := range []*aiv1alpha1.AIGatewayKey{r.k, stored} {
		if diff := cmp.Diff(want, o.GetAnnotations()); diff != "" {
			t.Errorf("annotations: -want, +got:\n%s", diff)
		}
	}
	if r.k.GetResourceVersion() != stored.GetResourceVersion() {
		t.Errorf("resource version %q, want the stored %q: the status update after would conflict", r.k.GetResourceVersion(), stored.GetResourceVersion())
	}
}

// Once the retired key is verified gone, the Secret stops naming it, its
// cleanup record goes, and status says when the rotation ended.
func TestRotationFinishForgetsTheRetiredKey(t *testing.T) {
	f := newFixture(t)
	r := setUpRotation(t, f, nil, map[string][]byte{ConnectionKey: []byte("cur-plaintext"), ConnectionPreviousKeyPrefix: []byte("oldp")})
	if err := f.ext.records.EnsureRotated(context.Background(), r.k, f.ext.kind, 1, deletion.Origin{}, "n"); err != nil {
		t.Fatal(err)
	}
	f.update(t, r, &RotationPlan{Action: ActionFinish, Current: &Key{Counter: 1, ID: r.cur.String(), Prefix: "curp"}, Finished: []int{1}})

	if diff := cmp.Diff(map[string]string{ConnectionKey: "cur-plaintext"}, stringsOf(f.secretData(t))); diff != "" {
		t.Errorf("connection Secret: -want, +got:\n%s", diff)
	}
	recs, err := f.ext.records.Of(context.Background(), r.k)
	if err != nil {
		t.Fatal(err)
	}
	if got := recs.Rotations(f.ext.kind); slices.Contains(got, 1) {
		t.Errorf("rotation records %v after finish, want rotation 1's gone", got)
	}
	want := metav1.NewTime(rotationNow)
	if got := r.k.Status.AtProvider.Rotation; got == nil || !cmp.Equal(got.LastRotatedAt, &want, cmpopts.EquateEmpty()) {
		t.Errorf("status rotation %+v, want lastRotatedAt %s", got, rotationNow)
	}
}

// stringsOf is a Secret's data as strings, for readable diffs.
func stringsOf(data map[string][]byte) map[string]string {
	out := make(map[string]string, len(data))
	for k, v := range data {
		out[k] = string(v)
	}
	return out
}

func TestACreateAnswerNamingAnotherKeyIsNotTakenForIt(t *testing.T) {
	victim := uuid.New()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// A server that answers the create with someone else's key.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(codersdk.CreateAIGatewayKeyResponse{ID: victim, Name: "someone-elses-key", Key: "ak-not-ours", KeyPrefix: "ak-not"})
	}))
	defer srv.Close()
	f := newFixture(t)
	cl, err := coder.New(coder.Config{URL: srv.URL, Token: "t", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f.ext.coder = cl
	k := liveKey(nil)
	c, err := f.ext.Create(context.Background(), k)
	if err == nil || !coder.Timeout(err) {
		t.Fatalf("Create() = %v, want an error whose outcome is unknown", err)
	}
	if id := meta.GetExternalName(k); id != "" {
		t.Errorf("the key's external name is %q after an answer naming another key, want none", id)
	}
	if len(c.ConnectionDetails) != 0 {
		t.Errorf("the answer's key was published: %v", slices.Collect(maps.Keys(c.ConnectionDetails)))
	}
	assertNoPlaintext(t, "an unconfirmed answer", k, "ak-not-ours")
}

// TestACreateAnswerWithAnotherKeysIDIsNotTakenForIt: the answer names the
// key asked for, but with another key's id; a list after it shows that id
// under the other key's name.
func TestACreateAnswerWithAnotherKeysIDIsNotTakenForIt(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	victim, err := f.cl.CreateKey(ctx, "someone-elses-key")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.SetFault(fakecoder.EndpointKeysCreate, fakecoder.Fault{AnswerOtherID: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	k := liveKey(nil)
	c, err := f.ext.Create(ctx, k)
	if err == nil || !coder.Timeout(err) {
		t.Fatalf("Create() = %v, want an error whose outcome is unknown", err)
	}
	if id := meta.GetExternalName(k); id != "" {
		t.Errorf("the key's external name is %q after an answer with key %s's id, want none", id, victim.ID)
	}
	if len(c.ConnectionDetails) != 0 {
		t.Errorf("the answer's key was published: %v", slices.Collect(maps.Keys(c.ConnectionDetails)))
	}
	if strings.Contains(err.Error(), victim.Key) {
		t.Errorf("the error carries a plaintext: %v", err)
	}
}

// TestALostCreatesKeyIsDeletedByCreateNotObserve holds crossplane-runtime's
// contract: Observe does not change Coder. A key of the resource's derived
// name whose create answer was lost has a plaintext nobody holds; Observe
// finds it and reports the key absent, and Create deletes it before it
// makes the new one under the same name.
func TestALostCreatesKeyIsDeletedByCreateNotObserve(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	k := liveKey(nil)
	lost := f.createKey(t, DerivedName(k))
	o, err := f.ext.Observe(ctx, k)
	if err != nil || o.ResourceExists {
		t.Fatalf("Observe = %+v, %v; want the key absent, so the reconciler creates it", o, err)
	}
	if n := f.srv.Requests(fakecoder.EndpointKeysDelete); n != 0 {
		t.Fatalf("Observe sent %d deletes to Coder; want none: Observe only reads", n)
	}
	if !slices.Contains(f.liveIDs(), lost) {
		t.Fatal("the lost create's key is gone before Create ran")
	}
	if _, err := f.ext.Create(ctx, k); err != nil {
		t.Fatalf("Create: %v", err)
	}
	live := f.liveIDs()
	if slices.Contains(live, lost) || len(live) != 1 || meta.GetExternalName(k) != live[0].String() {
		t.Errorf("after Create Coder holds %v and the external name is %q; want only the new key, not the lost %s", live, meta.GetExternalName(k), lost)
	}
}
