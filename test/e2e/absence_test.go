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

package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// DESIGN §4 invariant 2: an object is gone only when a read no longer
// finds it. A delete answered 204 (done) or 404 (not there) while Coder
// still lists the object proves nothing: a replica that lost the write, or
// a proxy in front of Coder, answers so. Each path that deletes (the sweep,
// the normal delete, the bounded pass) must look again before it forgets
// the object.

// deleteAnswers are the answers of a delete that keeps the object.
var deleteAnswers = []int{http.StatusNoContent, http.StatusNotFound}

// answerDeletesButKeep makes c answer every key and provider delete with
// status, keeping the object, until the returned function (also run at
// cleanup) lets the deletes delete again.
func answerDeletesButKeep(t *testing.T, c testenv.Coder, status int) (deleteAgain func()) {
	t.Helper()
	for _, e := range []string{fakecoder.EndpointKeysDelete, fakecoder.EndpointProviderDelete} {
		if err := c.SetFault(e, fakecoder.Fault{Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	deleteAgain = func() {
		c.ClearFault(fakecoder.EndpointKeysDelete)
		c.ClearFault(fakecoder.EndpointProviderDelete)
	}
	t.Cleanup(deleteAgain)
	return deleteAgain
}

// deletesAsked returns how many key and provider deletes c received.
func deletesAsked(c testenv.Coder) (keys, providers int) {
	return c.Requests(fakecoder.EndpointKeysDelete), c.Requests(fakecoder.EndpointProviderDelete)
}

func TestSweepKeepsARecordWhileCoderStillListsItsObjectAfterTheDelete(t *testing.T) {
	for _, status := range deleteAnswers {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			// A Coder of its own, so no other scenario's sweep or delete
			// meets its lying deletes; made before the namespace, so the
			// namespace's cleanup still reaches it.
			c := env.Cluster.SpareCoder(t)
			ns := env.Namespace(t)
			key, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "kept-" + ns})
			if err != nil {
				t.Fatal(err)
			}
			prov, err := c.SDK(t).CreateAIProvider(t.Context(), codersdk.CreateAIProviderRequest{
				Type: codersdk.AIProviderTypeOpenAI, Name: testenv.UniqueProviderName("kept"), Enabled: true,
				BaseURL: "https://api.openai.com/v1/", APIKeys: []string{"sk-not-a-real-key"},
			})
			if err != nil {
				t.Fatal(err)
			}
			deleteAgain := answerDeletesButKeep(t, c, status)
			deployment := deploymentOf(t, c)
			keyRec := abandonedKeyRecord("aigatewaykey-kept-"+ns, ns, deployment, key.Name, key.ID.String())
			provRec := abandonedProviderRecord("aiprovider-kept-"+ns, ns, deployment, prov.Name, prov.ID.String())
			env.CreateRecord(t, keyRec)
			env.CreateRecord(t, provRec)

			// Its turning Ready triggers the sweep; a sweep that leaves a
			// record retries after 2s, then 4s. A third attempt is claimed
			// only once the second has settled.
			env.ReadyProviderConfigOf(t, ns, c, nil)
			for _, rec := range []*clusterv1alpha1.CleanupRecord{keyRec, provRec} {
				testenv.Eventually(t, testenv.WaitLong, "two sweeps of "+rec.Name+" to keep it", func() (bool, string) {
					if !env.Get(t, rec) {
						t.Fatalf("record %s was swept while Coder still lists its object: the sweep took the delete's answer for absence", rec.Name)
					}
					return rec.Status.Attempts >= 3 && strings.Contains(rec.Status.LastError, deletion.ErrStillPresent.Error()),
						fmt.Sprintf("phase %s, attempts %d, last error %q", rec.Status.Phase, rec.Status.Attempts, rec.Status.LastError)
				})
				if rec.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
					t.Errorf("record %s is %s, want still Abandoned", rec.Name, rec.Status.Phase)
				}
			}
			if keys, provs := deletesAsked(c); keys < 2 || provs < 2 {
				t.Errorf("Coder was asked %d key and %d provider deletes, want at least 2 each: the sweep must try, and not believe the answer", keys, provs)
			}
			if !testenv.LiveKey(c, key.ID.String()) || !liveProvider(c, prov.ID.String()) {
				t.Fatalf("the fake lost the objects its deletes keep")
			}

			deleteAgain()
			for _, rec := range []*clusterv1alpha1.CleanupRecord{keyRec, provRec} {
				testenv.Eventually(t, testenv.WaitLong, "the next sweep to delete and remove "+rec.Name, func() (bool, string) {
					return !env.Get(t, rec), fmt.Sprintf("attempts %d, last error %q", rec.Status.Attempts, rec.Status.LastError)
				})
			}
			if testenv.LiveKey(c, key.ID.String()) || liveProvider(c, prov.ID.String()) {
				t.Errorf("records swept while Coder still holds the key (%v) or the provider (%v)", testenv.LiveKey(c, key.ID.String()), liveProvider(c, prov.ID.String()))
			}
		})
	}
}

func TestDeleteKeepsTheFinalizerWhileCoderStillListsTheObject(t *testing.T) {
	for _, status := range deleteAnswers {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			c := env.Cluster.SpareCoder(t)
			s := readyKeyAndProvider(t, c)
			keysBefore, provsBefore := releasedWithoutDelete(t, "AIGatewayKey"), releasedWithoutDelete(t, "AIProvider")
			deleteAgain := answerDeletesButKeep(t, c, status)
			askedKeys, askedProvs := deletesAsked(c)
			env.Delete(t, s.key)
			env.Delete(t, s.ai)

			// A second delete of each: the resource looked again after the
			// first was answered, found the object, and asked again.
			testenv.Eventually(t, testenv.WaitLong, "a second delete of the key and of the provider", func() (bool, string) {
				for _, mg := range []client.Object{s.key, s.ai} {
					if !env.Get(t, mg) || !meta.FinalizerExists(mg, providerconfig.ManagedFinalizer) {
						t.Fatalf("%T %s let go of its finalizer while Coder still lists its object", mg, mg.GetName())
					}
				}
				k, p := deletesAsked(c)
				return k-askedKeys >= 2 && p-askedProvs >= 2, fmt.Sprintf("%d key and %d provider deletes", k-askedKeys, p-askedProvs)
			})
			for kind, uid := range s.uids() {
				if r := s.record(t, kind, uid); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseActive {
					t.Errorf("the %s record = %+v, want Active while its object is in Coder", kind, r)
				}
			}
			if !s.keyInCoder() || !s.providerInCoder() {
				t.Fatalf("the fake lost the objects its deletes keep")
			}

			deleteAgain()
			env.WaitGone(t, s.key, testenv.WaitLong)
			env.WaitGone(t, s.ai, testenv.WaitLong)
			if s.keyInCoder() || s.providerInCoder() {
				t.Errorf("gone from Kubernetes while Coder holds the key (%v) or the provider (%v)", s.keyInCoder(), s.providerInCoder())
			}
			if s.record(t, "AIGatewayKey", s.key.UID) != nil || s.record(t, "AIProvider", s.ai.UID) != nil {
				t.Errorf("a record outlived the verified delete of its object")
			}
			if d := releasedWithoutDelete(t, "AIGatewayKey") - keysBefore + releasedWithoutDelete(t, "AIProvider") - provsBefore; d != 0 {
				t.Errorf("releases without delete grew by %v, want 0: the retry deleted", d)
			}
		})
	}
}

func TestBoundedPassCountsADeleteCoderDidNotCarryOutAsAReleaseWithoutDelete(t *testing.T) {
	for _, status := range deleteAnswers {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			c := env.Cluster.SpareCoder(t)
			s := newHoldSetupOf(t, c)
			keysBefore, provsBefore := releasedWithoutDelete(t, "AIGatewayKey"), releasedWithoutDelete(t, "AIProvider")
			deleteAgain := answerDeletesButKeep(t, c, status)
			// The hold keeps the ProviderConfig for its deleting dependents
			// until dependentTimeout; then each makes its bounded pass.
			env.Delete(t, s.key)
			env.Delete(t, s.ai)
			env.Delete(t, s.pc)
			env.WaitGone(t, s.key, testenv.WaitLong)
			env.WaitGone(t, s.ai, testenv.WaitLong)
			// Counted just after the finalizer's removal persisted.
			testenv.Eventually(t, 5*time.Second, "each release to be counted once", func() (bool, string) {
				k, p := releasedWithoutDelete(t, "AIGatewayKey")-keysBefore, releasedWithoutDelete(t, "AIProvider")-provsBefore
				return k == 1 && p == 1, fmt.Sprintf("released_without_delete grew by %v for the key, %v for the provider; want 1 each", k, p)
			})
			// The change log says each let go of its object in Coder
			// without a verified delete, and why.
			released := change{op: opDelete, failed: true, details: map[string]string{
				deletion.ChangeLogOutcome: deletion.ChangeLogReleasedWithoutDelete, deletion.ChangeLogReason: "StillPresent"}}
			wantChanges(t, s.key, released)
			wantChanges(t, s.ai, released)
			for kind, uid := range s.uids() {
				r := s.record(t, kind, uid)
				if r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned || r.Status.Reason != "StillPresent" {
					t.Errorf("the %s record = %+v, want Abandoned for StillPresent", kind, r)
				}
			}
			if !s.keyInCoder() || !s.providerInCoder() {
				t.Fatalf("the fake lost the objects its deletes keep")
			}
			testenv.Eventually(t, testenv.WaitLong, "a ReleasedWithoutDelete event for the key and the provider", func() (bool, string) {
				evented := map[string]bool{}
				for _, e := range env.Events(t) {
					if e.Reason == string(deletion.ReasonReleasedWithoutDelete) {
						evented[string(e.InvolvedObject.UID)] = true
					}
				}
				return evented[string(s.key.UID)] && evented[string(s.ai.UID)], fmt.Sprintf("evented %v", evented)
			})

			// Not a leak but a delay: the records stay for the sweep.
			deleteAgain()
			sweepThrough(t, c)
			waitRecordGone(t, "AIGatewayKey", s.key.UID)
			waitRecordGone(t, "AIProvider", s.ai.UID)
			if s.keyInCoder() || s.providerInCoder() {
				t.Errorf("swept while Coder holds the key (%v) or the provider (%v)", s.keyInCoder(), s.providerInCoder())
			}
		})
	}
}

// readyKeyAndProvider is a Ready key and a Ready provider of Coder c,
// through a ProviderConfig with the production defaults.
func readyKeyAndProvider(t *testing.T, c testenv.Coder) holdSetup {
	t.Helper()
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, c, nil)
	k := newKey(ns, "gateway")
	env.Create(t, k)
	name := testenv.UniqueProviderName("openai")
	p := aiProvider(ns, "openai", func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Name = ptr.To(name) })
	env.Create(t, p)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return holdSetup{ns: ns, coder: c, pc: pc, key: k, ai: p}
}

// abandonedProviderRecord is an Abandoned cleanup record, as a bounded pass
// in ns would leave it, naming the provider id of deployment.
func abandonedProviderRecord(name, ns, deployment, coderName, id string) *clusterv1alpha1.CleanupRecord {
	return &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1alpha1.CleanupRecordSpec{
			Kind: "AIProvider",
			ManagedResource: clusterv1alpha1.ManagedResourceReference{
				APIVersion: "ai.coder.m.crossplane.io/v1alpha1", Kind: "AIProvider", Namespace: ns, Name: "gone", UID: name,
			},
			DeploymentID: deployment,
		},
		Status: clusterv1alpha1.CleanupRecordStatus{CoderName: coderName, ExternalID: id, Phase: clusterv1alpha1.CleanupPhaseAbandoned},
	}
}

// liveProvider reports whether Coder holds a live provider with the id.
func liveProvider(c testenv.Coder, id string) bool {
	for _, p := range c.Providers(false) {
		if p.ID.String() == id {
			return true
		}
	}
	return false
}

// uids are the UIDs of the setup's key and provider, by kind.
func (s holdSetup) uids() map[string]types.UID {
	return map[string]types.UID{"AIGatewayKey": s.key.UID, "AIProvider": s.ai.UID}
}
