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
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// deletingKey is a key being deleted; mut may give it an external name or
// a pending create.
func deletingKey(mut func(*aiv1alpha1.AIGatewayKey)) *aiv1alpha1.AIGatewayKey {
	now := metav1.Now()
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "k", UID: "u-1", DeletionTimestamp: &now}}
	if mut != nil {
		mut(k)
	}
	return k
}

// reconcileDeleting drives the deleting mg through the pass as
// crossplane-runtime's managed reconciler does (its deletion step, in
// reconciler.go), one reconcile at a time, for at most max reconciles: a
// client wrapped afresh, as Connect does; Observe; Delete while Observe
// reports the object; a reconcile ends at its first error. It returns
// whether Observe reported the object gone, when the reconciler lets the
// finalizer go, after how many reconciles, and the last reconcile's error.
func reconcileDeleting(ctx context.Context, pass Pass, inner managed.ExternalClient, mg resource.Managed, maxReconciles int) (bool, int, error) {
	var err error
	for n := 1; n <= maxReconciles; n++ {
		c := Wrap(pass, inner)
		var o managed.ExternalObservation
		if o, err = c.Observe(ctx, mg); err != nil {
			continue
		}
		if !o.ResourceExists {
			return true, n, nil
		}
		_, err = c.Delete(ctx, mg)
	}
	return false, maxReconciles, err
}

// origin is where a create through a ProviderConfig goes.
// coderDown is an external client whose every call fails as a timeout does.
func coderDown() managed.ExternalClient {
	return &managed.ExternalClientFns{
		ObserveFn: func(context.Context, resource.Managed) (managed.ExternalObservation, error) {
			return managed.ExternalObservation{}, context.DeadlineExceeded
		},
		DisconnectFn: func(context.Context) error { return nil },
	}
}

func TestBoundedPassReleasesWithoutDeleteOnlyWhatMayExistInCoder(t *testing.T) {
	attempt := metav1.Now()
	cases := map[string]struct {
		mut    func(*aiv1alpha1.AIGatewayKey)
		record *metav1.Time
		noRec  bool
		want   bool
	}{
		// The reconciler noted a create whose answer was lost: no id, and
		// the record written before it holds the attempt.
		"LostCreate":    {mut: pending, record: &attempt, want: true},
		"NamesAnObject": {mut: func(k *aiv1alpha1.AIGatewayKey) { meta.SetExternalName(k, "id") }, noRec: true, want: true},
		// Refused before anything was sent (its ProviderConfig was being
		// deleted): no record, only the reconciler's annotation.
		"RefusedUnsent": {mut: pending, noRec: true},
		// Coder answered the last create with an error, but an earlier
		// attempt's answer may have been lost: its record stays.
		"AnsweredWithAnError": {mut: pending, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rel := NewReleases()
			k := deletingKey(tc.mut)
			pass := Pass{Kind: "AIGatewayKey", Mode: providerconfig.ModeBoundedPass, Releases: rel, Records: recordsWith(t, k, tc.noRec, tc.record)}
			obs, err := Wrap(pass, coderDown()).Observe(context.Background(), k)
			if err != nil || obs.ResourceExists {
				t.Fatalf("Observe = %+v, %v; want gone, nil so the finalizer goes", obs, err)
			}
			if _, ok := rel.peek(k.GetUID()); ok != tc.want {
				t.Errorf("released without delete: %v, want %v", ok, tc.want)
			}
		})
	}
}

func pending(k *aiv1alpha1.AIGatewayKey) { meta.SetExternalCreatePending(k, time.Now()) }

// recordsWith is a Records holding k's first record with the attempt, or
// none.
func recordsWith(t *testing.T, k *aiv1alpha1.AIGatewayKey, none bool, attempt *metav1.Time) *Store {
	t.Helper()
	b, s := fixture.Kube(t), fixture.Scheme(t)
	if !none {
		b = b.WithObjects(&clusterv1alpha1.CleanupRecord{
			ObjectMeta: metav1.ObjectMeta{Name: Name("AIGatewayKey", k.UID), Labels: map[string]string{ManagedResourceUIDLabel: string(k.UID)}},
			Spec:       clusterv1alpha1.CleanupRecordSpec{Kind: "AIGatewayKey", ManagedResource: clusterv1alpha1.ManagedResourceReference{UID: string(k.UID)}},
			Status:     clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, CreateAttemptedAt: attempt},
		})
	}
	return NewStore(b.Build(), s, nil)
}

func TestBoundedPassThatDeletesForgetsAnEarlierPassesMark(t *testing.T) {
	rel := NewReleases()
	k := deletingKey(func(k *aiv1alpha1.AIGatewayKey) { meta.SetExternalName(k, "id") })
	pass := Pass{Kind: "AIGatewayKey", Mode: providerconfig.ModeBoundedPass, Releases: rel, Records: recordsWith(t, k, true, nil)}
	// An earlier pass gave up, then the finalizer's removal failed.
	if _, err := Wrap(pass, coderDown()).Observe(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	if _, ok := rel.peek(k.GetUID()); !ok {
		t.Fatal("the failed pass did not mark the resource")
	}
	// The next pass has a client, and nothing is recorded: nothing of
	// the resource's is in Coder.
	_, pass.Coder = fixture.Coder(t)
	if _, err := Wrap(pass, coderDown()).Observe(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	if why, ok := rel.peek(k.GetUID()); ok {
		t.Errorf("a retry that verified the absence is still marked released without delete (%s): it would be counted", why)
	}
}

// A delete Coder answered (204, or 404 for "not there") proves nothing
// while Coder still shows the object: only the look after it decides.
func TestBoundedPassWhoseDeleteCoderAnsweredButStillShowsReleasesWithoutDelete(t *testing.T) {
	ctx := context.Background()
	srv, cl := fixture.Coder(t)
	key, err := cl.CreateKey(ctx, "gw-of-u-1")
	if err != nil {
		t.Fatal(err)
	}
	rel := NewReleases()
	k := deletingKey(func(k *aiv1alpha1.AIGatewayKey) { meta.SetExternalName(k, key.ID.String()) })
	kube := fixture.Kube(t).WithObjects(ownRecord(KindKey, string(k.UID), key.ID.String(), "gw-of-u-1", Origin{}, nil)).Build()
	pass := Pass{Kind: KindKey, Mode: providerconfig.ModeBoundedPass, Releases: rel, Records: NewStore(kube, fixture.Scheme(t), nil), Coder: cl}
	if err := srv.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: 204}); err != nil {
		t.Fatal(err)
	}
	gone, n, err := reconcileDeleting(ctx, pass, coderDown(), k, 3)
	if err != nil || !gone || n != 2 {
		t.Fatalf("after %d reconciles: gone %t, error %v; want gone after 2 (look and delete, look again), nil so the finalizer goes", n, gone, err)
	}
	if deletes := srv.Requests(fakecoder.EndpointKeysDelete); deletes != 1 {
		t.Errorf("the pass asked %d deletes, want its one attempt", deletes)
	}
	if why, ok := rel.peek(k.GetUID()); !ok || why != reasonStillPresent {
		t.Errorf("released without delete: %v (%q), want true (%q)", ok, why, reasonStillPresent)
	}
}

func TestRefusedCreateSendsNothingToCoderAndWritesNoRecord(t *testing.T) {
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "k", UID: "u-1"}}
	b, s := fixture.Kube(t), fixture.Scheme(t)
	kube := b.Build()
	pass := Pass{
		Kind: "AIGatewayKey", Mode: providerconfig.ModeNormal, Releases: NewReleases(), Records: NewStore(kube, s, nil),
		CreateRefused: "ProviderConfig team-a/coder is not Ready (MissingPermissions)",
		CoderName:     func(resource.Managed) string { return "ns-k" },
	}
	created := false
	inner := &managed.ExternalClientFns{
		CreateFn: func(context.Context, resource.Managed) (managed.ExternalCreation, error) {
			created = true
			return managed.ExternalCreation{}, nil
		},
	}
	_, err := Wrap(pass, inner).Create(context.Background(), k)
	if err == nil || !strings.Contains(err.Error(), "MissingPermissions") {
		t.Errorf("Create error = %v; want the refusal, naming why", err)
	}
	if created {
		t.Error("the create reached Coder through a ProviderConfig that refuses creates")
	}
	recs := &clusterv1alpha1.CleanupRecordList{}
	if err := kube.List(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if len(recs.Items) != 0 {
		t.Errorf("a refused create wrote %d cleanup records; want none", len(recs.Items))
	}
}

func TestDeletingResourceThatNeverCreatedGoesWithoutAskingCoder(t *testing.T) {
	attempt := metav1.Now()
	cases := map[string]struct {
		reason string
		mut    func(*aiv1alpha1.AIGatewayKey)
		noRec  bool
		record *metav1.Time
		// gone: Observe reports the object gone without calling Coder.
		gone bool
	}{
		"NoRecordNoName": {
			reason: "a key Coder refused before any create was sent (no licence) has nothing in Coder",
			mut:    pending, noRec: true, gone: true,
		},
		"RecordOfAnAnsweredCreate": {
			reason: "a record means a create was sent, and an earlier one's answer may have been lost: ask Coder",
			mut:    pending,
		},
		"RecordOfALostCreate": {
			reason: "a create whose answer was lost may have made the key: ask Coder",
			mut:    pending, record: &attempt,
		},
		"NamesAnObjectWithoutARecord": {
			reason: "an import deleted before a live look recorded it: its record is written, and Coder asked",
			mut:    func(k *aiv1alpha1.AIGatewayKey) { meta.SetExternalName(k, "7a1c0e52-0000-4000-8000-000000000001") }, noRec: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := deletingKey(tc.mut)
			// A Coder without the licence keys need refuses every call.
			srv := fakecoder.New(fakecoder.Options{Unlicensed: true})
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			cl, err := coder.New(coder.Config{URL: srv.URL(), Token: srv.Token(), Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			pass := Pass{Kind: KindKey, Mode: providerconfig.ModeNormal, Releases: NewReleases(), Records: recordsWith(t, k, tc.noRec, tc.record), Coder: cl}
			obs, err := Wrap(pass, coderDown()).Observe(context.Background(), k)
			calls := srv.Requests(fakecoder.EndpointKeysList)
			if tc.gone {
				if err != nil || obs.ResourceExists || calls != 0 {
					t.Errorf("%s: Observe = %+v, %v after %d Coder calls; want gone, nil, 0 calls", tc.reason, obs, err, calls)
				}
				return
			}
			if !coder.IsForbidden(err) || calls == 0 {
				t.Errorf("%s: Observe = %v after %d Coder calls; want Coder's refusal", tc.reason, err, calls)
			}
		})
	}
}

// coderAnswers is an external client that finds nothing: the answer of a
// Coder that never held the object. It counts the calls.
func coderAnswers(calls *int) managed.ExternalClient {
	return &managed.ExternalClientFns{
		ObserveFn: func(context.Context, resource.Managed) (managed.ExternalObservation, error) {
			*calls++
			return managed.ExternalObservation{ResourceExists: false}, nil
		},
		DisconnectFn: func(context.Context) error { return nil },
	}
}

func TestAbsenceCountsOnlyInTheDeploymentThatMadeTheObject(t *testing.T) {
	cases := map[string]struct {
		reason string
		mode   providerconfig.Mode
		// now is the deployment the client reaches; the record names "A".
		now string
		// url is the URL the ProviderConfig names now; the record names
		// https://a.example; empty: a record of an earlier release, which
		// names no URL.
		url string
		// wantErr: Observe fails naming both deployments (normal path).
		wantErr bool
		// wantReleased: the bounded pass releases without delete.
		wantReleased bool
		// wantAsked: Coder's key list was asked.
		wantAsked bool
	}{
		"NormalSameDeployment": {
			reason: "the Coder that made the key says it is gone: a verified delete",
			mode:   providerconfig.ModeNormal, now: "A", wantAsked: true,
		},
		"NormalOtherDeployment": {
			reason: "another Coder not listing the key proves nothing: retry, naming both deployments",
			mode:   providerconfig.ModeNormal, now: "B", wantErr: true,
		},
		"BoundedOtherDeployment": {
			reason: "at the bound, a key another deployment holds is released without delete and counted",
			mode:   providerconfig.ModeBoundedPass, now: "B", wantReleased: true,
		},
		"BoundedSameDeployment": {
			reason: "at the bound, the deployment that made it says gone: a normal release",
			mode:   providerconfig.ModeBoundedPass, now: "A", wantAsked: true,
		},
		"NormalSameURL": {
			reason: "the URL that made the key, reporting its deployment, says it is gone: a verified delete",
			mode:   providerconfig.ModeNormal, now: "A", url: "https://a.example", wantAsked: true,
		},
		"NormalOtherURLClaimingTheDeployment": {
			reason: "a server at another URL claiming deployment A is another Coder: retry",
			mode:   providerconfig.ModeNormal, now: "A", url: "https://b.example", wantErr: true,
		},
		"BoundedOtherURLClaimingTheDeployment": {
			reason: "at the bound, a key made at another URL is released without delete and counted",
			mode:   providerconfig.ModeBoundedPass, now: "A", url: "https://b.example", wantReleased: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := deletingKey(func(k *aiv1alpha1.AIGatewayKey) { meta.SetExternalName(k, "id") })
			b, s := fixture.Kube(t), fixture.Scheme(t)
			made := origin("A", "ProviderConfig", "ns", "coder", "https://a.example")
			spec := clusterv1alpha1.CleanupRecordSpec{Kind: "AIGatewayKey", DeploymentID: "A", ManagedResource: clusterv1alpha1.ManagedResourceReference{UID: string(k.UID)}}
			if tc.url != "" {
				spec.ProviderConfig = made.Spec()
			}
			b = b.WithObjects(&clusterv1alpha1.CleanupRecord{
				ObjectMeta: metav1.ObjectMeta{Name: Name("AIGatewayKey", k.UID), Labels: map[string]string{ManagedResourceUIDLabel: string(k.UID)}},
				Spec:       spec,
				Status:     clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, ExternalID: "id"},
			})
			rel := NewReleases()
			// A Coder that holds nothing: what the record names is gone
			// there too.
			srv, cl := fixture.Coder(t)
			pass := Pass{
				Kind: "AIGatewayKey", Mode: tc.mode, Releases: rel, Records: NewStore(b.Build(), s, nil),
				Origin:     origin("stale", "ProviderConfig", "ns", "coder", tc.url),
				Deployment: func(context.Context) (string, error) { return tc.now, nil },
				Coder:      cl,
			}
			obs, err := Wrap(pass, coderDown()).Observe(context.Background(), k)
			var other *otherDeploymentError
			if got := errors.As(err, &other); got != tc.wantErr || (!tc.wantErr && err != nil) {
				t.Fatalf("%s: Observe error = %v, want an otherDeploymentError: %t", tc.reason, err, tc.wantErr)
			}
			if tc.wantErr && (!strings.Contains(err.Error(), "deployment A") || !strings.Contains(err.Error(), "deployment "+tc.now) ||
				(tc.url != "" && (!strings.Contains(err.Error(), "https://a.example") || !strings.Contains(err.Error(), tc.url)))) {
				t.Errorf("%s: the error %q does not name both Coders", tc.reason, err)
			}
			if obs.ResourceExists {
				t.Errorf("%s: Observe says the object exists", tc.reason)
			}
			why, released := rel.peek(k.GetUID())
			if released != tc.wantReleased || (released && why != ReasonOtherDeployment) {
				t.Errorf("%s: released without delete = %t (%q), want %t (%s)", tc.reason, released, why, tc.wantReleased, ReasonOtherDeployment)
			}
			if asked := srv.Requests(fakecoder.EndpointKeysList) > 0; asked != tc.wantAsked {
				t.Errorf("%s: Coder's key list asked: %t, want %t", tc.reason, asked, tc.wantAsked)
			}
		})
	}
}

func TestAnAdoptedObjectsIDReachesTheRecordOfTheCreateThatMadeIt(t *testing.T) {
	base := func(id string) clusterv1alpha1.CleanupRecord {
		return clusterv1alpha1.CleanupRecord{
			ObjectMeta: metav1.ObjectMeta{Name: Name("AIGatewayKey", "u-1"), Labels: map[string]string{ManagedResourceUIDLabel: "u-1"}},
			Spec:       clusterv1alpha1.CleanupRecordSpec{Kind: "AIGatewayKey", ManagedResource: clusterv1alpha1.ManagedResourceReference{UID: "u-1"}},
			Status:     clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, CoderName: "gw-u-1", ExternalID: id},
		}
	}
	rotation := base("rotated-id")
	rotation.Name = rotatedName("AIGatewayKey", "u-1", 1)
	cases := map[string]struct {
		reason  string
		records []clusterv1alpha1.CleanupRecord
		// want is the id each record holds afterwards, by name.
		want map[string]string
	}{
		"AdoptedAfterALostAnswer": {
			reason:  "The create's record, written before the create, gets the id of the object Observe adopted by name.",
			records: []clusterv1alpha1.CleanupRecord{base("")},
			want:    map[string]string{base("").Name: "adopted-id"},
		},
		"AlreadyRecorded": {
			reason:  "A record that holds the id is left as it is.",
			records: []clusterv1alpha1.CleanupRecord{base("adopted-id")},
			want:    map[string]string{base("").Name: "adopted-id"},
		},
		"RecordOfAnotherID": {
			reason:  "A record that holds another id is not overwritten: that object may still exist.",
			records: []clusterv1alpha1.CleanupRecord{base("first-id")},
			want:    map[string]string{base("").Name: "first-id"},
		},
		"Rotations": {
			reason:  "A resource with rotation records is left alone: its external name is a rotation's key.",
			records: []clusterv1alpha1.CleanupRecord{base(""), rotation},
			want:    map[string]string{base("").Name: "", rotation.Name: "rotated-id"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, s := fixture.Kube(t), fixture.Scheme(t)
			for i := range tc.records {
				b = b.WithObjects(&tc.records[i])
			}
			kube := b.Build()
			k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "k", UID: "u-1"}}
			adopts := &managed.ExternalClientFns{
				ObserveFn: func(_ context.Context, mg resource.Managed) (managed.ExternalObservation, error) {
					meta.SetExternalName(mg, "adopted-id")
					return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
				},
				DisconnectFn: func(context.Context) error { return nil },
			}
			pass := Pass{Kind: "AIGatewayKey", Mode: providerconfig.ModeNormal, Releases: NewReleases(), Records: NewStore(kube, s, nil)}
			if _, err := Wrap(pass, adopts).Observe(context.Background(), k); err != nil {
				t.Fatalf("%s: Observe: %v", tc.reason, err)
			}
			for n, want := range tc.want {
				got := &clusterv1alpha1.CleanupRecord{}
				if err := kube.Get(context.Background(), client.ObjectKey{Name: n}, got); err != nil {
					t.Fatal(err)
				}
				if got.Status.ExternalID != want {
					t.Errorf("%s: record %s holds id %q, want %q", tc.reason, n, got.Status.ExternalID, want)
				}
			}
		})
	}
}

// A live resource acts only in the Coder its records were made through.
// Its ProviderConfig pointed at another Coder, whose server answered its
// create with an id, and then back: that id names another object here,
// which the kind's client would find and take for the resource's own
// (Ready, drift put back, a key rotated), whatever it is. So the resource
// reads nothing there and is not Ready until its ProviderConfig reaches the
// Coder of its records again (soak seeds 540571992116, 849976942575).
func TestALiveResourceActsOnlyInTheCoderItsRecordsWereMadeThrough(t *testing.T) {
	made := origin("A", "ProviderConfig", "ns", "coder", "https://a.example")
	cases := map[string]struct {
		reason string
		// recorded is where the resource's record was made; zero: no record.
		recorded Origin
		now      Origin
		want     bool
	}{
		"SameCoder": {
			reason:   "The Coder that made the object: its client looks.",
			recorded: made, now: made, want: true,
		},
		"OtherDeployment": {
			reason:   "Another deployment at the same URL (restored, reinstalled): nothing is read there.",
			recorded: made, now: origin("B", "ProviderConfig", "ns", "coder", "https://a.example"),
		},
		"OtherURL": {
			reason:   "The ProviderConfig repointed to another URL, whatever deployment id it reports: nothing is read there.",
			recorded: made, now: origin("A", "ProviderConfig", "ns", "coder", "https://b.example"),
		},
		"NoRecord": {
			reason: "An import before its first look names no Coder yet: its client looks.",
			now:    made, want: true,
		},
		"LegacyRecordSameDeployment": {
			reason:   "A record of an earlier release names a deployment only: the same deployment looks.",
			recorded: Origin{DeploymentID: "A"}, now: origin("A", "ProviderConfig", "ns", "coder", "https://b.example"), want: true,
		},
		"LegacyRecordOtherDeployment": {
			reason:   "A record of an earlier release, of another deployment: nothing is read.",
			recorded: Origin{DeploymentID: "A"}, now: origin("B", "ProviderConfig", "ns", "coder", "https://a.example"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "k", UID: "u-1"}}
			meta.SetExternalName(k, "the-other-coders-answer")
			b, s := fixture.Kube(t), fixture.Scheme(t)
			if tc.recorded.DeploymentID != "" {
				b = b.WithObjects(&clusterv1alpha1.CleanupRecord{
					ObjectMeta: metav1.ObjectMeta{Name: Name("AIGatewayKey", k.UID), Labels: map[string]string{ManagedResourceUIDLabel: string(k.UID)}},
					Spec: clusterv1alpha1.CleanupRecordSpec{Kind: "AIGatewayKey", DeploymentID: tc.recorded.DeploymentID, ProviderConfig: tc.recorded.Spec(),
						ManagedResource: clusterv1alpha1.ManagedResourceReference{UID: string(k.UID)}},
					Status: clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, ExternalID: "the-other-coders-answer"},
				})
			}
			looked := 0
			// A Coder holding an object of that id, as the kind's client
			// would find it.
			finds := &managed.ExternalClientFns{
				ObserveFn: func(context.Context, resource.Managed) (managed.ExternalObservation, error) {
					looked++
					return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
				},
				DisconnectFn: func(context.Context) error { return nil },
			}
			pass := Pass{Kind: "AIGatewayKey", Mode: providerconfig.ModeNormal, Releases: NewReleases(), Records: NewStore(b.Build(), s, nil), Origin: tc.now}
			obs, err := Wrap(pass, finds).Observe(context.Background(), k)
			if tc.want {
				if err != nil || !obs.ResourceExists || looked != 1 {
					t.Errorf("%s\nObserve = %+v, %v after %d looks; want the kind's client to look once", tc.reason, obs, err, looked)
				}
				return
			}
			var other *otherDeploymentError
			if !errors.As(err, &other) || obs.ResourceExists || looked != 0 {
				t.Errorf("%s\nObserve = %+v, %v after %d looks; want an otherDeploymentError and no look", tc.reason, obs, err, looked)
			}
			if c := k.GetCondition(xpv2.TypeReady); c.Status != corev1.ConditionFalse || !strings.Contains(c.Message, "the cleanup record names") {
				t.Errorf("%s\nReady = %+v, want False naming the record's Coder", tc.reason, c)
			}
		})
	}
}

// The record is the only memory of a create attempt whose outcome is
// unknown, which a later look by name may adopt: an attempt Coder answered
// with a refusal wrote nothing and leaves none, so a provider someone else
// makes under the name later is never taken for its result; one whose
// answer was lost keeps it.
func TestOnlyACreateWhoseOutcomeIsUnknownLeavesItsAttemptOnTheRecord(t *testing.T) {
	cases := map[string]struct {
		reason   string
		err      error
		wantKept bool
	}{
		"CoderRefused": {
			reason: "Coder answered the create with an error: nothing was written.",
			err:    errors.New("400 Bad Request"),
		},
		"AnswerNotConfirmed": {
			reason: "Coder's answer named another object, or its read failed: the outcome is unknown.",
			err:    &coder.UnconfirmedError{Kind: "AI provider", Asked: "p", Got: "q", ID: "id"}, wantKept: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u-1"}}
			kube := fixture.Kube(t).Build()
			pass := Pass{
				Kind: KindProvider, Mode: providerconfig.ModeNormal, Releases: NewReleases(), Records: NewStore(kube, fixture.Scheme(t), nil),
				Origin: origin("A", "ProviderConfig", "ns", "coder", "https://a.example"), CoderName: func(resource.Managed) string { return "p" },
			}
			inner := &managed.ExternalClientFns{
				CreateFn: func(context.Context, resource.Managed) (managed.ExternalCreation, error) {
					return managed.ExternalCreation{}, tc.err
				},
			}
			if _, err := Wrap(pass, inner).Create(context.Background(), p); err == nil {
				t.Fatalf("%s\nCreate succeeded, want the inner error", tc.reason)
			}
			rec := &clusterv1alpha1.CleanupRecord{}
			if err := kube.Get(context.Background(), client.ObjectKey{Name: Name(KindProvider, p.UID)}, rec); err != nil {
				t.Fatal(err)
			}
			if kept := rec.Status.CreateAttemptedAt != nil; kept != tc.wantKept {
				t.Errorf("%s\nthe record keeps the attempt: %t, want %t", tc.reason, kept, tc.wantKept)
			}
		})
	}
}
