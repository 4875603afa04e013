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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// readyConfig is a Ready namespaced ProviderConfig of the fake Coder srv in
// ns, and the Secret holding its token.
func readyConfig(srv *fakecoder.Server, ns, deployment string) []client.Object {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "coder-token"}, Data: map[string][]byte{"token": []byte(srv.Token())}}
	pc := &namespacedv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"},
		Spec: common.LocalProviderConfigSpec{URL: srv.URL(), Credentials: common.LocalCredentials{
			Source: common.CredentialsSourceSecret, SecretRef: &common.LocalSecretKeySelector{Name: "coder-token", Key: "token"},
		}},
	}
	pc.Status.DeploymentID = deployment
	pc.SetConditions(xpv2.Available())
	return []client.Object{s, pc}
}

// keyRecord is a cleanup record, created at created, of the key resource
// team-a/gw of UID uid, naming the key id in phase.
func keyRecord(uid, deployment, id, phase string, created time.Time) *clusterv1alpha1.CleanupRecord {
	return &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{
			Name: Name(KindKey, types.UID(uid)), CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{ManagedResourceUIDLabel: uid},
		},
		Spec: clusterv1alpha1.CleanupRecordSpec{
			Kind: KindKey,
			ManagedResource: clusterv1alpha1.ManagedResourceReference{
				APIVersion: aiv1alpha1.SchemeGroupVersion.String(), Kind: KindKey, Namespace: "team-a", Name: "gw", UID: uid,
			},
			DeploymentID: deployment,
		},
		Status: clusterv1alpha1.CleanupRecordStatus{ExternalID: id, Phase: phase},
	}
}

func TestASweepDeletesInCoderOnlyWhatItMayAndRemovesOnlyVerifiedRecords(t *testing.T) {
	const grace = time.Minute
	const uid = "0b1c2d3e-0000-4000-8000-000000000001"
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old, fresh := now.Add(-time.Hour), now
	// liveKey is the key resource the record names, alive.
	liveKey := func() client.Object {
		return &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gw", UID: uid}}
	}
	cases := map[string]struct {
		reason string
		// phase and created are the record's.
		phase   string
		created time.Time
		// configNS is the namespace of the Ready ProviderConfig.
		configNS string
		// resourceLive: the key resource still exists.
		resourceLive bool
		wantKeyGone  bool
		// wantRecord is the record's phase after the sweep; empty: removed.
		wantRecord string
		wantResult Result
	}{
		"AbandonedRecordIsSweptThroughItsNamespacesConfig": {
			reason:   "An Abandoned record's key is deleted in Coder, and the record goes once the key's absence is verified.",
			phase:    clusterv1alpha1.CleanupPhaseAbandoned,
			created:  old,
			configNS: "team-a", wantKeyGone: true,
			wantResult: Result{Swept: 1},
		},
		"AnotherTenantsConfigMaySweepNothing": {
			reason:   "A ProviderConfig in another namespace of the same deployment is not entitled: the key and the record stay.",
			phase:    clusterv1alpha1.CleanupPhaseAbandoned,
			created:  old,
			configNS: "team-b", wantRecord: clusterv1alpha1.CleanupPhaseAbandoned,
			wantResult: Result{Left: 1},
		},
		"ActiveRecordOfAVanishedResourceIsAbandonedAndSwept": {
			reason:   "Past the grace, an Active record whose resource is gone (finalizers stripped) is abandoned and swept.",
			phase:    clusterv1alpha1.CleanupPhaseActive,
			created:  old,
			configNS: "team-a", wantKeyGone: true,
			wantResult: Result{Swept: 1},
		},
		"ActiveRecordWithinTheGraceStays": {
			reason:   "A fresh Active record is never raced: its resource may be being created.",
			phase:    clusterv1alpha1.CleanupPhaseActive,
			created:  fresh,
			configNS: "team-a", wantRecord: clusterv1alpha1.CleanupPhaseActive,
		},
		"ActiveRecordAtTheEndOfTheGraceIsAbandoned": {
			reason:   "The grace ends exactly Grace after the record was created.",
			phase:    clusterv1alpha1.CleanupPhaseActive,
			created:  now.Add(-grace),
			configNS: "team-a", wantKeyGone: true,
			wantResult: Result{Swept: 1},
		},
		"ActiveRecordJustInsideTheGraceStays": {
			reason:   "One second before the grace ends (the API server keeps creation times to the second), the record's resource may still be being created.",
			phase:    clusterv1alpha1.CleanupPhaseActive,
			created:  now.Add(-grace + time.Second),
			configNS: "team-a", wantRecord: clusterv1alpha1.CleanupPhaseActive,
		},
		"ActiveRecordOfALiveResourceStays": {
			reason:   "An Active record whose resource exists is its resource's business.",
			phase:    clusterv1alpha1.CleanupPhaseActive,
			created:  old,
			configNS: "team-a", resourceLive: true, wantRecord: clusterv1alpha1.CleanupPhaseActive,
		},
		"UnwrittenRecordGoesAndDeletesNothing": {
			reason:   "A record without a status names nothing in Coder: past the grace, with its resource gone, it goes and the key stays.",
			created:  old,
			configNS: "team-a",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			srv := fakecoder.New(fakecoder.Options{})
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			cl, err := coder.New(coder.Config{URL: srv.URL(), Token: srv.Token(), Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			bi, err := cl.BuildInfo(ctx)
			if err != nil {
				t.Fatal(err)
			}
			key, err := cl.CreateKey(ctx, "some-key")
			if err != nil {
				t.Fatal(err)
			}
			rec := keyRecord(uid, bi.DeploymentID, key.ID.String(), tc.phase, tc.created)
			objs := append(readyConfig(srv, tc.configNS, bi.DeploymentID), rec)
			if tc.resourceLive {
				objs = append(objs, liveKey())
			}
			kube := fixture.Kube(t, objs...).
				WithStatusSubresource(&clusterv1alpha1.CleanupRecord{}, &namespacedv1alpha1.ProviderConfig{}).Build()
			sw := NewSweeper()
			sw.Kube, sw.Reader, sw.Log = kube, kube, logging.NewNopLogger()
			sw.Clients, sw.Timeout, sw.Grace = coder.NewCache(4, time.Hour), 5*time.Second, grace
			sw.Now = func() time.Time { return now }

			res, err := sw.Sweep(ctx)
			if err != nil {
				t.Fatalf("%s\nSweep: %v", tc.reason, err)
			}
			if res != tc.wantResult {
				t.Errorf("%s\nSweep result %+v, want %+v", tc.reason, res, tc.wantResult)
			}
			gone := !slices.ContainsFunc(srv.Keys(), func(k fakecoder.KeyRow) bool { return k.ID == key.ID })
			if gone != tc.wantKeyGone {
				t.Errorf("%s\nkey gone from Coder = %v, want %v", tc.reason, gone, tc.wantKeyGone)
			}
			got := &clusterv1alpha1.CleanupRecord{}
			err = kube.Get(ctx, client.ObjectKeyFromObject(rec), got)
			switch {
			case kerrors.IsNotFound(err):
				if tc.wantRecord != "" {
					t.Errorf("%s\nthe record was removed, want it %s", tc.reason, tc.wantRecord)
				}
			case err != nil:
				t.Fatal(err)
			case got.Status.Phase != tc.wantRecord || tc.wantRecord == "":
				t.Errorf("%s\nthe record is there in phase %q, want %q (empty: removed)", tc.reason, got.Status.Phase, tc.wantRecord)
			}
		})
	}
}
