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

package deletion

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/coder/coder/v2/codersdk"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// TestADeletingResourceIsGoneOnlyWhenWhatItsRecordsNameIs: the resource's
// external name and annotations are anyone's to write. Pointed at a
// sibling's key, an unknown id, or stripped with a forged refusal, they
// steered its own look away from its object, which it then called gone:
// the object stayed in Coder and its record was deleted.
func TestADeletingResourceIsGoneOnlyWhenWhatItsRecordsNameIs(t *testing.T) {
	const url = "https://coder.example"
	cases := map[string]struct {
		reason string
		// provider: the resource is an AIProvider, else an AIGatewayKey.
		provider bool
		// externalName is what the tenant set: "sibling" is another
		// resource's key, "unknown" an id nobody has.
		externalName string
		// recordID: the record holds the object's id; else only its name
		// and the attempt.
		recordID bool
		// otherPC: the resource reaches its Coder through another
		// ProviderConfig than the one that made the object.
		otherPC bool
		// recordNamesSibling: the record's id is a key the sibling now
		// holds by a record of its own (it imported it).
		recordNamesSibling bool
		mode               providerconfig.Mode
		// deleteKeeps: Coder answers the delete and keeps the object.
		deleteKeeps bool
		// wantGone: the object is deleted in Coder; wantErr: the normal
		// path retries; wantReleased: the bounded pass counts a release.
		wantGone, wantErr, wantReleased bool
	}{
		"KeyNamingASibling": {
			reason:       "a key whose external name is a sibling's id deletes its own key, not the sibling's",
			externalName: "sibling", recordID: true, mode: providerconfig.ModeNormal, wantGone: true,
		},
		"KeyNamingNothingRecordedByName": {
			reason:       "a key whose record lacks the id is found by its UID-derived name",
			externalName: "unknown", mode: providerconfig.ModeNormal, wantGone: true,
		},
		"ProviderNamingAnUnknownID": {
			reason:   "a provider whose external name is an unknown id deletes the provider its record names",
			provider: true, externalName: "unknown", recordID: true, mode: providerconfig.ModeNormal, wantGone: true,
		},
		"ProviderStrippedWithAForgedRefusal": {
			reason:   "a provider whose lost create the tenant marked refused is found by its recorded attempt",
			provider: true, mode: providerconfig.ModeNormal, wantGone: true,
		},
		"ProviderByNameThroughAnotherProviderConfig": {
			reason:   "a provider known by name only cannot be verified through credentials that did not make it: retry",
			provider: true, otherPC: true, mode: providerconfig.ModeNormal, wantErr: true,
		},
		"BoundedProviderByNameThroughAnotherProviderConfig": {
			reason:   "at the bound, the unverifiable provider is released without delete, counted, its record kept",
			provider: true, otherPC: true, mode: providerconfig.ModeBoundedPass, wantReleased: true,
		},
		"DeleteAnsweredButKept": {
			reason:       "a delete Coder answered while keeping the key is no absence: retry",
			externalName: "sibling", recordID: true, mode: providerconfig.ModeNormal, deleteKeeps: true, wantErr: true,
		},
		"BoundedDeleteAnsweredButKept": {
			reason:       "at the bound, the key Coder kept is released without delete",
			externalName: "sibling", recordID: true, mode: providerconfig.ModeBoundedPass, deleteKeeps: true, wantReleased: true,
		},
		"RecordNamingAKeyASiblingHolds": {
			reason:       "a key another live resource holds by its own record is left to it; the resource's own goes by name",
			externalName: "sibling", recordNamesSibling: true, mode: providerconfig.ModeNormal, wantGone: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			srv, cl := fixture.Coder(t)
			bi, err := cl.BuildInfo(ctx)
			if err != nil {
				t.Fatal(err)
			}
			made := origin(bi.DeploymentID, "ProviderConfig", "ns", "coder", url)
			now := made
			if tc.otherPC {
				now = origin(bi.DeploymentID, "ProviderConfig", "ns", "other", url)
			}
			kind := KindKey
			if tc.provider {
				kind = KindProvider
			}
			const uid = "u-1"
			// The sibling: a live key resource whose record and external
			// name hold its key.
			sibKey, err := cl.CreateKey(ctx, "sibling-key")
			if err != nil {
				t.Fatal(err)
			}
			sib := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sibling", UID: "u-sib"}}
			meta.SetExternalName(sib, sibKey.ID.String())
			sibRec := ownRecord(KindKey, "u-sib", sibKey.ID.String(), "sibling-key", made, nil)

			var id, coderName string
			attempt := metav1.NewTime(time.Now().Add(-time.Second))
			if tc.provider {
				coderName = "openai-of-u-1"
				id = createProviderIn(t, cl, coderName).ID.String()
			} else {
				coderName = "gw-of-u-1"
				k, err := cl.CreateKey(ctx, coderName)
				if err != nil {
					t.Fatal(err)
				}
				id = k.ID.String()
			}
			recID := ""
			switch {
			case tc.recordID:
				recID = id
			case tc.recordNamesSibling:
				recID = sibKey.ID.String()
			}
			own := ownRecord(kind, uid, recID, coderName, made, &attempt)

			deleting := metav1.Now()
			var mg resource.Managed
			if tc.provider {
				mg = &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: uid, DeletionTimestamp: &deleting, Finalizers: []string{"f"}}}
			} else {
				mg = &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "k", UID: uid, DeletionTimestamp: &deleting, Finalizers: []string{"f"}}}
			}
			switch tc.externalName {
			case "sibling":
				meta.SetExternalName(mg, sibKey.ID.String())
			case "unknown":
				meta.SetExternalName(mg, uuid.NewString())
			}
			b, s := fixture.Kube(t), fixture.Scheme(t)
			kube := b.WithObjects(sib, sibRec, own).Build()
			if tc.deleteKeeps {
				if err := srv.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: 204}); err != nil {
					t.Fatal(err)
				}
			}
			rel := NewReleases()
			calls := 0
			pass := Pass{
				Kind: kind, Mode: tc.mode, Releases: rel, Records: NewStore(kube, s, nil), Origin: now,
				Deployment: func(ctx context.Context) (string, error) { return bi.DeploymentID, nil },
				Coder:      cl,
			}
			// Observe only reads: whatever it finds, the deletes are
			// Delete's.
			if _, err := Wrap(pass, coderAnswers(&calls)).Observe(ctx, mg); err != nil && !tc.wantErr {
				t.Fatalf("%s: Observe: %v", tc.reason, err)
			}
			if n := srv.Requests(fakecoder.EndpointKeysDelete) + srv.Requests(fakecoder.EndpointProviderDelete); n != 0 {
				t.Errorf("%s: Observe sent %d deletes to Coder, want none", tc.reason, n)
			}
			// The resource's own look, steered by its external name, finds
			// nothing.
			gone, n, err := reconcileDeleting(ctx, pass, coderAnswers(&calls), mg, 3)
			if gone == tc.wantErr {
				t.Errorf("%s: after %d reconciles the reconciler would let the finalizer go: %t, want %t", tc.reason, n, gone, !tc.wantErr)
			}
			if (err != nil) != tc.wantErr {
				t.Errorf("%s: the last reconcile's error = %v, want an error: %t", tc.reason, err, tc.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), srv.Token()) || strings.Contains(err.Error(), sibKey.Key)) {
				t.Errorf("%s: the error carries a secret: %v", tc.reason, err)
			}
			_, released := rel.peek(types.UID(uid))
			if released != tc.wantReleased {
				t.Errorf("%s: released without delete = %t, want %t", tc.reason, released, tc.wantReleased)
			}
			srv.ClearFaults()
			if live := liveIn(srv, tc.provider, id); live == tc.wantGone {
				t.Errorf("%s: the resource's own object %s still in Coder: %t, want %t", tc.reason, id, live, !tc.wantGone)
			}
			if !liveIn(srv, false, sibKey.ID.String()) {
				t.Errorf("%s: the sibling's key was deleted", tc.reason)
			}
		})
	}
}

// ownRecord is an Active record of the resource uid, written before its
// create at o, that names the object id (once known) and coderName.
func ownRecord(kind, uid, id, coderName string, o Origin, attempt *metav1.Time) *clusterv1alpha1.CleanupRecord {
	return &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{
			Name: Name(kind, types.UID(uid)), Labels: map[string]string{ManagedResourceUIDLabel: uid},
			CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Minute)),
		},
		Spec: clusterv1alpha1.CleanupRecordSpec{
			Kind: kind, DeploymentID: o.DeploymentID, ProviderConfig: o.Spec(),
			ManagedResource: clusterv1alpha1.ManagedResourceReference{Kind: kind, Namespace: "ns", UID: uid},
		},
		Status: clusterv1alpha1.CleanupRecordStatus{
			Phase: clusterv1alpha1.CleanupPhaseActive, ExternalID: id, CoderName: coderName, CreateAttemptedAt: attempt,
		},
	}
}

// createProviderIn makes a provider named name through cl.
func createProviderIn(t *testing.T, cl *coder.Client, name string) codersdk.AIProvider {
	t.Helper()
	p, err := cl.CreateProvider(context.Background(), codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeOpenAI, Name: name, Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: []string{"sk-test-not-a-secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// liveIn reports whether srv still serves the provider (or key) id.
func liveIn(srv *fakecoder.Server, provider bool, id string) bool {
	if provider {
		return slices.ContainsFunc(srv.Providers(false), func(p fakecoder.ProviderRow) bool { return p.ID.String() == id })
	}
	return slices.ContainsFunc(srv.Keys(), func(k fakecoder.KeyRow) bool { return k.ID.String() == id })
}

// TestADeletingKeyRevokesEveryKeyItsRecordsNameAndOnlyThen: deleting
// revokes now, whatever a rotation was doing. Every key the resource's
// records name goes (the retiring one of a rotation too, and one a lost
// create made, found by its UID-derived name), an import deleted before a
// live look recorded it goes by its external name, and only a look that
// finds none lets the finalizer go.
func TestADeletingKeyRevokesEveryKeyItsRecordsNameAndOnlyThen(t *testing.T) {
	const uid = "u-1"
	rotated := func(r *clusterv1alpha1.CleanupRecord, n int) *clusterv1alpha1.CleanupRecord {
		r.Name = rotatedName(KindKey, uid, n)
		return r
	}
	cases := map[string]struct {
		reason string
		// setup makes keys in Coder and returns the resource's records,
		// its external name and the keys that must go.
		setup func(t *testing.T, cl *coder.Client) (recs []client.Object, externalName string, revoked []string)
		// cacheLags: the cache has none of the records yet; the API
		// server has them.
		cacheLags bool
	}{
		"CurrentAndRetiringKeys": {
			reason: "a delete during a rotation's settle window revokes the retiring key with the current one",
			setup: func(t *testing.T, cl *coder.Client) ([]client.Object, string, []string) {
				old, cur := createKeyIn(t, cl, "gw-0"), createKeyIn(t, cl, "gw-1")
				return []client.Object{ownRecord(KindKey, uid, old, "gw-0", Origin{}, nil), rotated(ownRecord(KindKey, uid, cur, "gw-1", Origin{}, nil), 1)}, cur, []string{old, cur}
			},
		},
		"KeyOfALostCreateAnswer": {
			reason: "a key whose create answer was lost (no id recorded, no external name) is found by its UID-derived name",
			setup: func(t *testing.T, cl *coder.Client) ([]client.Object, string, []string) {
				id := createKeyIn(t, cl, "gw-0")
				return []client.Object{ownRecord(KindKey, uid, "", "gw-0", Origin{}, nil)}, "", []string{id}
			},
		},
		"RecordMissingFromTheCache": {
			reason:    "a key created a moment ago, whose record the cache does not show yet, is found on the records as the API server has them",
			cacheLags: true,
			setup: func(t *testing.T, cl *coder.Client) ([]client.Object, string, []string) {
				id := createKeyIn(t, cl, "gw-0")
				return []client.Object{ownRecord(KindKey, uid, id, "gw-0", Origin{}, nil)}, id, []string{id}
			},
		},
		"ImportDeletedBeforeItsFirstLook": {
			reason: "a key imported by external name and deleted before any live look is adopted by its record and revoked",
			setup: func(t *testing.T, cl *coder.Client) ([]client.Object, string, []string) {
				id := createKeyIn(t, cl, "made-by-hand")
				return nil, id, []string{id}
			},
		},
		"KeyAlreadyGoneInCoder": {
			reason: "a key deleted in Coder already is absent: the first look lets go",
			setup: func(t *testing.T, cl *coder.Client) ([]client.Object, string, []string) {
				id := createKeyIn(t, cl, "gw-0")
				u, _ := uuid.Parse(id)
				if err := cl.DeleteKey(context.Background(), u); err != nil {
					t.Fatal(err)
				}
				return []client.Object{ownRecord(KindKey, uid, id, "gw-0", Origin{}, nil)}, id, nil
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			srv, cl := fixture.Coder(t)
			other := createKeyIn(t, cl, "someone-elses")
			recs, externalName, revoked := tc.setup(t, cl)
			now := metav1.Now()
			k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "k", UID: uid, DeletionTimestamp: &now, Finalizers: []string{"f"}}}
			if externalName != "" {
				meta.SetExternalName(k, externalName)
			}
			api := fixture.Kube(t).WithObjects(recs...).Build()
			store := NewStore(api, fixture.Scheme(t), nil)
			if tc.cacheLags {
				store = NewStore(fixture.Kube(t).Build(), fixture.Scheme(t), nil).WithReader(api)
			}
			// The ProviderConfig's shared key list, as a poll cached it
			// before the deletion.
			keys := coder.NewKeyLister(time.Minute)
			if _, err := keys.List(ctx, "pc", cl); err != nil {
				t.Fatal(err)
			}
			pass := Pass{Kind: KindKey, Mode: providerconfig.ModeNormal, Releases: NewReleases(), Records: store, Coder: cl, Keys: keys, Scope: "pc"}
			gone, n, err := reconcileDeleting(ctx, pass, coderDown(), k, 3)
			if err != nil || !gone {
				t.Fatalf("%s: after %d reconciles gone %t, error %v; want gone", tc.reason, n, gone, err)
			}
			if want := 1 + min(len(revoked), 1); n != want && !tc.cacheLags {
				t.Errorf("%s: gone after %d reconciles, want %d", tc.reason, n, want)
			}
			for _, id := range revoked {
				if liveIn(srv, false, id) {
					t.Errorf("%s: key %s is still in Coder", tc.reason, id)
				}
			}
			if !liveIn(srv, false, other) {
				t.Errorf("%s: another resource's key was deleted", tc.reason)
			}
		})
	}
}

// createKeyIn makes a key named name through cl and returns its id.
func createKeyIn(t *testing.T, cl *coder.Client, name string) string {
	t.Helper()
	k, err := cl.CreateKey(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return k.ID.String()
}
