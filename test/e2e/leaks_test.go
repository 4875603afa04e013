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
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The scenarios of this file are the silent leaks and wrong sweeps of
// issue 11: every release without a verified delete of something a record
// names leaves that record Abandoned, counted and evented, and the sweep
// deletes exactly what is ours. Each uses a Coder of its own, so taking it
// down disturbs no other scenario.

// recordOf returns the first cleanup record of a managed resource, nil if
// there is none.
func recordOf(t *testing.T, kind string, uid types.UID) *clusterv1alpha1.CleanupRecord {
	t.Helper()
	r := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: deletion.Name(kind, uid)}}
	if !env.Get(t, r) {
		return nil
	}
	return r
}

// sweepThrough makes a Ready ClusterProviderConfig of c appear, which is
// what lets the sweep reach c's deployment for records of any namespace: a
// namespaced ProviderConfig sweeps only its own namespace's records.
func sweepThrough(t *testing.T, c testenv.Coder) *namespacedv1alpha1.ClusterProviderConfig {
	t.Helper()
	ns := env.Namespace(t)
	env.TokenSecret(t, ns, "coder-token", c.Token())
	cpc := &namespacedv1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "sweep-" + ns},
		Spec: common.ProviderConfigSpec{
			URL: c.URL(),
			Credentials: common.Credentials{
				Source: common.CredentialsSourceSecret,
				SecretRef: &common.SecretKeySelector{
					LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "coder-token", Key: testenv.TokenKey},
					Namespace:              ns,
				},
			},
		},
	}
	env.Create(t, cpc)
	t.Cleanup(func() { env.Delete(t, cpc) })
	env.WaitCondition(t, cpc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return cpc
}

// releaseWhileCoderIsDownThenSweep deletes namespace ns while Coder c is
// down, so its key is released without delete and its record turns
// Abandoned; then brings c back and sweeps through a ClusterProviderConfig
// of it until the record is gone.
func releaseWhileCoderIsDownThenSweep(t *testing.T, c testenv.Coder, ns string, uid types.UID) {
	t.Helper()
	if err := c.SetDown(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SetDown(false) })
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	env.Delete(t, nsObj)
	env.WaitGone(t, nsObj, 2*time.Minute)
	waitAbandoned(t, "AIGatewayKey", uid)
	if err := c.SetDown(false); err != nil {
		t.Fatal(err)
	}
	sweepThrough(t, c)
	waitRecordGone(t, "AIGatewayKey", uid)
}

// waitAbandoned waits for a record to turn Abandoned.
func waitAbandoned(t *testing.T, kind string, uid types.UID) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, "the cleanup record to turn Abandoned", func() (bool, string) {
		r := recordOf(t, kind, uid)
		if r == nil {
			return false, "no record"
		}
		return r.Status.Phase == clusterv1alpha1.CleanupPhaseAbandoned, "phase " + r.Status.Phase
	})
}

// waitRecordGone waits for the sweep to settle a record.
func waitRecordGone(t *testing.T, kind string, uid types.UID) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, "the sweep to settle the cleanup record", func() (bool, string) {
		r := recordOf(t, kind, uid)
		if r == nil {
			return true, ""
		}
		return false, fmt.Sprintf("record %s, attempts %d, last error %q", r.Status.Phase, r.Status.Attempts, r.Status.LastError)
	})
}

// TestLostCreateReleasedWithCoderDownIsAbandonedCountedAndSwept: a create
// that committed in Coder but whose answer was lost leaves no external
// name; releasing the resource with Coder down must still abandon its
// record, count and event the release, and the sweep must find the key by
// its UID-derived name.
func TestLostCreateReleasedWithCoderDownIsAbandonedCountedAndSwept(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	if err := c.SetFault(fakecoder.EndpointKeysCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	k := newKey(ns, "leaky")
	env.Create(t, k)
	name := aigatewaykey.DerivedName(k)
	testenv.Eventually(t, testenv.WaitLong, "the lost create to commit in Coder", func() (bool, string) {
		return len(testenv.KeysNamed(c, name)) == 1, "no key yet"
	})
	// Coder goes down before the provider can look again.
	if err := c.SetDown(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SetDown(false) })
	before := releasedWithoutDelete(t, "AIGatewayKey")

	env.Delete(t, k)
	env.Delete(t, pc)
	env.WaitGone(t, k, 2*time.Minute)
	if env.Get(t, k); meta.GetExternalName(k) != "" {
		t.Fatalf("the key has external name %q; this scenario needs a create whose answer was lost", meta.GetExternalName(k))
	}
	if r := recordOf(t, "AIGatewayKey", k.UID); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
		t.Fatalf("cleanup record after a release without delete = %+v, want Abandoned", r)
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 1 {
		t.Errorf("released_without_delete_total{kind=AIGatewayKey} grew by %v, want 1", got)
	}
	if !hasWarning(t, ns, k.Name, string(deletion.ReasonReleasedWithoutDelete)) {
		t.Errorf("no %s event on the key", deletion.ReasonReleasedWithoutDelete)
	}

	if err := c.SetDown(false); err != nil {
		t.Fatal(err)
	}
	sweepThrough(t, c)
	waitRecordGone(t, "AIGatewayKey", k.UID)
	if n := len(testenv.KeysNamed(c, name)); n != 0 {
		t.Errorf("Coder still holds %d key(s) named %s after the sweep", n, name)
	}
}

// hasWarning reports whether the object named name in ns has a Warning
// event of reason.
func hasWarning(t *testing.T, ns, name, reason string) bool {
	t.Helper()
	for _, e := range env.NamespaceEvents(t, ns) {
		if e.InvolvedObject.Name == name && e.Reason == reason && e.Type == corev1.EventTypeWarning {
			return true
		}
	}
	return false
}

// TestSweepDeletesTheLiveKeyWhenTheRecordedIDIsStale: the record names a
// key that is gone (the provider restarted between recording the id and
// updating the external name, then created a replacement); the sweep must
// still delete the live key, which carries the same UID-derived name.
func TestSweepDeletesTheLiveKeyWhenTheRecordedIDIsStale(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	k := newKey(ns, "stale")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	live := meta.GetExternalName(k)
	rec := recordOf(t, "AIGatewayKey", k.UID)
	if rec == nil {
		t.Fatal("a Ready key has no cleanup record")
	}
	if err := env.Update(t, rec, func() { rec.Status.ExternalID = uuid.NewString() }); err != nil {
		t.Fatal(err)
	}

	releaseWhileCoderIsDownThenSweep(t, c, ns, k.UID)
	if testenv.LiveKey(c, live) {
		t.Errorf("the live key %s leaked: its record named a stale id and was deleted", live)
	}
}

// TestAReleasedKeyIsNotReimportedByAnotherResource: a resource released
// without a delete (Coder down, its ProviderConfig gone) left an Abandoned
// record; a resource in another namespace names the same key by external
// name. The key is still the first resource's: the import is refused with a
// condition naming the owner, and the sweep deletes the key although a live
// resource names it. An external name alone must not keep a released key
// alive.
func TestAReleasedKeyIsNotReimportedByAnotherResource(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	old := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, old, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	a := newKey(old, "first")
	env.Create(t, a)
	env.WaitCondition(t, a, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	id := meta.GetExternalName(a)
	// Where the import lands, Ready before Coder goes down.
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)

	if err := c.SetDown(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SetDown(false) })
	env.Delete(t, a)
	env.Delete(t, pc)
	env.WaitGone(t, a, 2*time.Minute)
	waitAbandoned(t, "AIGatewayKey", a.UID)

	b := newKey(ns, "imported")
	meta.SetExternalName(b, id)
	env.Create(t, b)
	if err := c.SetDown(false); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the import to be refused, naming the owner", func() (bool, string) {
		env.Get(t, b)
		c := b.GetCondition(xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, string(a.UID)), c.Message
	})
	// The importer's namespace's ProviderConfig is not entitled to the
	// first namespace's record; the platform's ClusterProviderConfig is.
	sweepThrough(t, c)
	waitRecordGone(t, "AIGatewayKey", a.UID)
	if testenv.LiveKey(c, id) {
		t.Errorf("key %s of the released resource is still in Coder: another resource's external name kept it alive", id)
	}
}

// TestSweepLeavesAProviderSomeoneElseCreatedLater: a record of a provider
// without an id names a provider name; someone else created a provider of
// that name long after our create attempt. It is not ours: never swept.
func TestSweepLeavesAProviderSomeoneElseCreatedLater(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	bi, err := c.SDK(t).BuildInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	name := testenv.UniqueProviderName("theirs")
	p, err := c.SDK(t).CreateAIProvider(t.Context(), codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeOpenAI, Name: name, Enabled: true, BaseURL: "https://api.openai.com/v1/", APIKeys: []string{"sk-not-a-real-key"},
	})
	if err != nil {
		t.Fatal(err)
	}
	uid := types.UID(uuid.NewString())
	rec := &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{Name: deletion.Name("AIProvider", uid)},
		Spec: clusterv1alpha1.CleanupRecordSpec{
			Kind: "AIProvider",
			ManagedResource: clusterv1alpha1.ManagedResourceReference{
				APIVersion: "ai.coder.m.crossplane.io/v1alpha1", Kind: "AIProvider", Namespace: "gone", Name: "ours", UID: string(uid),
			},
			DeploymentID: bi.DeploymentID,
		},
		Status: clusterv1alpha1.CleanupRecordStatus{
			CoderName: name,
			// Our attempt, ten minutes before theirs, certainly did not
			// write the provider they made.
			CreateAttemptedAt: &metav1.Time{Time: p.CreatedAt.Add(-10 * time.Minute)},
			Phase:             clusterv1alpha1.CleanupPhaseAbandoned,
		},
	}
	env.CreateRecord(t, rec)
	sweepThrough(t, c)
	waitRecordGone(t, "AIProvider", uid)
	if _, err := c.SDK(t).AIProvider(t.Context(), p.ID.String()); err != nil {
		t.Errorf("the provider someone else created was swept: %v", err)
	}
}

// TestKeyWithoutDeleteNeverDeletesALostCreatesKey: with management
// policies that exclude Delete, a key left by a create whose answer was
// lost stays in Coder, and the resource says why it cannot go on.
func TestKeyWithoutDeleteNeverDeletesALostCreatesKey(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	if err := c.SetFault(fakecoder.EndpointKeysCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	k := newKey(ns, "kept")
	k.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}
	env.Create(t, k)
	if n := syncedSays(t, c, k, "plaintext is unknown"); n != 1 {
		t.Errorf("Coder holds %d keys of the resource, want the lost create's 1: policies without Delete never delete", n)
	}
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
}

// TestKeyNeverReadyWithoutItsPlaintext: a key whose plaintext did not reach
// the connection Secret is replaced, never reported Ready without it; and
// no key is created while the Secret's name is held by another object. A
// key whose plaintext was published once and then edited out of the Secret
// may still be in use: its replacement is a rotation, and it retires
// through the settle window (five minutes by default), not at once.
func TestKeyNeverReadyWithoutItsPlaintext(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)

	// The Secret's name is still held by another object (as by an earlier
	// incarnation of the same name, until garbage collection).
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "earlier"}}
	env.Create(t, owner)
	held := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gw-conn", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true),
	}}}}
	env.Create(t, held)
	k := newKey(ns, "gw")
	env.Create(t, k)
	if n := syncedSays(t, c, k, "controlled by another object"); n != 0 {
		t.Fatalf("Coder holds %d keys whose plaintext could not be published", n)
	}
	env.Delete(t, owner)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	first := published(t, c, k)

	// The plaintext is lost from the Secret: the key is replaced, and the
	// first one retires through the window.
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gw-conn"}}
	env.Get(t, sec)
	if err := env.Update(t, sec, func() { delete(sec.Data, aigatewaykey.ConnectionKey) }); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the key to be replaced by one whose plaintext is published, the first retiring", func() (bool, string) {
		env.Get(t, k)
		id := meta.GetExternalName(k)
		r := k.Status.AtProvider.Rotation
		if r == nil {
			return false, "external name " + id + ", no rotation"
		}
		return id != first && r.RetiringKeyID == first, fmt.Sprintf("external name %s, retiring %q", id, r.RetiringKeyID)
	})
	if cur := publishedOn(t, c, k, first); cur.ID.String() != meta.GetExternalName(k) {
		t.Errorf("the Secret holds key %s, the resource's external name is %s", cur.ID, meta.GetExternalName(k))
	}
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if !testenv.LiveKey(c, first) {
		t.Errorf("the key whose plaintext was edited out of the Secret was revoked at once, not retired through the settle window")
	}
}

// syncedSays waits for k's Synced condition to say msg, and returns how
// many keys Coder then holds for k.
func syncedSays(t *testing.T, c testenv.Coder, k *aiv1alpha1.AIGatewayKey, msg string) int {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, "the key's Synced condition to say "+msg, func() (bool, string) {
		env.Get(t, k)
		cond := k.GetCondition(xpv2.TypeSynced)
		return strings.Contains(cond.Message, msg), cond.Message
	})
	return len(testenv.KeysNamed(c, aigatewaykey.DerivedName(k)))
}

// published checks that k is Ready and its Secret holds the plaintext of
// the one key Coder has for it, and returns that key's id.
func published(t *testing.T, c testenv.Coder, k *aiv1alpha1.AIGatewayKey) string {
	t.Helper()
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	rows := testenv.KeysNamed(c, aigatewaykey.DerivedName(k))
	if len(rows) != 1 {
		t.Fatalf("Coder holds %d keys of the resource, want 1", len(rows))
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Spec.WriteConnectionSecretToReference.Name}}
	testenv.Eventually(t, testenv.WaitLong, "the Secret to hold the key's plaintext", func() (bool, string) {
		env.Get(t, s)
		return string(s.Data[aigatewaykey.ConnectionKey]) == rows[0].Key, "plaintext differs"
	})
	return rows[0].ID.String()
}

// TestImportedKeyReleasedWithoutDeleteIsSweptLater: a key made in Coder by
// hand and imported by external name, with Delete in its policies, is the
// resource's to delete. Released without a delete (its ProviderConfig went
// first), it must leave a record the sweep can act on, naming the key by
// id, and the sweep must delete it. Found by interleaving seed 6.
func TestImportedKeyReleasedWithoutDeleteIsSweptLater(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	made, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "made-by-hand-" + testenv.Sanitize(ns)})
	if err != nil {
		t.Fatal(err)
	}
	id := made.ID.String()
	k := newKey(ns, "imported")
	meta.SetExternalName(k, id)
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	testenv.Eventually(t, testenv.WaitLong, "a record naming the imported key", func() (bool, string) {
		r := recordOf(t, "AIGatewayKey", k.UID)
		if r == nil {
			return false, "no record"
		}
		return r.Status.ExternalID == id && r.Spec.DeploymentID != "", fmt.Sprintf("record %+v", r.Spec)
	})

	// The ProviderConfig goes first; its live dependent holds it only for
	// liveDependentTimeout. The key then has no credentials to delete with.
	env.Delete(t, pc)
	env.WaitGone(t, pc, testenv.WaitLong)
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	if !testenv.LiveKey(c, id) {
		t.Fatal("the key went with no credentials to delete it: the test no longer shows a release without delete")
	}
	sweepThrough(t, c)
	waitRecordGone(t, "AIGatewayKey", k.UID)
	if testenv.LiveKey(c, id) {
		t.Errorf("the imported key %s is still in Coder after the sweep", id)
	}
}

// TestRefusedCreateReleasesWithoutACount: a resource created after its
// ProviderConfig began deleting has every create refused before anything
// is sent to Coder. Deleted once the ProviderConfig is gone, it has
// nothing in Coder: its release is normal, neither counted nor evented,
// and it leaves no record. Found by a soak seed (615935311477).
func TestRefusedCreateReleasesWithoutACount(t *testing.T) {
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, env.Cluster.Coder(t), func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	live := newKey(ns, "live")
	env.Create(t, live)
	env.WaitCondition(t, live, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.Delete(t, pc)
	late := newKey(ns, "late")
	env.Create(t, late)
	testenv.Eventually(t, testenv.WaitLong, "the late key's create to be refused", func() (bool, string) {
		env.Get(t, late)
		c := late.GetCondition(xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "being deleted"), c.Message
	})
	env.WaitGone(t, pc, testenv.WaitLong)
	before := releasedWithoutDelete(t, "AIGatewayKey")
	env.Delete(t, late)
	env.WaitGone(t, late, testenv.WaitLong)
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 0 {
		t.Errorf("released_without_delete_total grew by %v for a key that never sent a create", got)
	}
	if r := recordOf(t, "AIGatewayKey", late.UID); r != nil {
		t.Errorf("a key that never sent a create left a %s record", r.Status.Phase)
	}
	if hasWarning(t, ns, late.Name, string(deletion.ReasonReleasedWithoutDelete)) {
		t.Errorf("a key that never sent a create has a %s event", deletion.ReasonReleasedWithoutDelete)
	}
}
