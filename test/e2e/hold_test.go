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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// shortBounds compress the hold's minutes into seconds through the
// ProviderConfig's own knobs.
func shortBounds() *common.DeletionSpec {
	d := func(s time.Duration) *metav1.Duration { return &metav1.Duration{Duration: s} }
	return &common.DeletionSpec{
		DependentTimeout:     d(8 * time.Second),
		LiveDependentTimeout: d(3 * time.Second),
		UnreachableTimeout:   d(3 * time.Second),
		Grace:                &common.GraceSpec{Base: d(2 * time.Second), PerDependent: d(time.Second), Max: d(10 * time.Second)},
	}
}

// holdSetup is a Ready ProviderConfig with short bounds, a Ready key and a
// Ready provider that use it.
type holdSetup struct {
	ns    string
	coder testenv.Coder
	pc    *namespacedv1alpha1.ProviderConfig
	key   *aiv1alpha1.AIGatewayKey
	ai    *aiv1alpha1.AIProvider
}

func newHoldSetup(t *testing.T) holdSetup {
	t.Helper()
	return newHoldSetupOf(t, env.Cluster.Coder(t))
}

// newHoldSetupOf is a holdSetup of the Coder deployment coder.
func newHoldSetupOf(t *testing.T, coder testenv.Coder) holdSetup {
	t.Helper()
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, coder, func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.Deletion = shortBounds()
	})
	// Credential protection is in place before the ProviderConfig is
	// Ready, so before any dependent can create anything in Coder.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "coder-token"}}
	if !env.Get(t, secret) || !meta.FinalizerExists(secret, providerconfig.CredentialsFinalizer) {
		t.Fatalf("the token Secret lacks %s although the ProviderConfig is Ready: %v", providerconfig.CredentialsFinalizer, secret.Finalizers)
	}
	if !meta.FinalizerExists(pc, providerconfig.HoldFinalizer) {
		env.Get(t, pc)
		if !meta.FinalizerExists(pc, providerconfig.HoldFinalizer) {
			t.Fatalf("the ProviderConfig lacks %s: %v", providerconfig.HoldFinalizer, pc.Finalizers)
		}
	}
	k := newKey(ns, "gateway")
	env.Create(t, k)
	p := aiProvider(ns, "openai-"+ns, func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Name = ptr.To("openai-" + ns) })
	env.Create(t, p)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return holdSetup{ns: ns, coder: coder, pc: pc, key: k, ai: p}
}

func (s holdSetup) keyInCoder() bool { return testenv.LiveKey(s.coder, meta.GetExternalName(s.key)) }

func (s holdSetup) providerInCoder() bool {
	for _, p := range s.coder.Providers(false) {
		if p.ID.String() == meta.GetExternalName(s.ai) {
			return true
		}
	}
	return false
}

// releasedWithoutDelete reads provider_coder_cleanup_released_without_delete_total.
func releasedWithoutDelete(t *testing.T, kind string) float64 {
	t.Helper()
	return testenv.Counter(env.Cluster.ProviderMetrics(t), "provider_coder_cleanup_released_without_delete_total", "kind", kind)
}

func TestHoldLetsDependentsDeleteWhenEverythingIsDeletedAtOnce(t *testing.T) {
	s := newHoldSetup(t)
	keysBefore, provsBefore := releasedWithoutDelete(t, "AIGatewayKey"), releasedWithoutDelete(t, "AIProvider")
	// The worst order: the ProviderConfig first, as `kubectl delete -f`
	// of a directory may do.
	env.Delete(t, s.pc)
	env.Delete(t, s.key)
	env.Delete(t, s.ai)
	env.WaitGone(t, s.key, testenv.WaitLong)
	env.WaitGone(t, s.ai, testenv.WaitLong)
	env.WaitGone(t, s.pc, testenv.WaitLong)
	if s.keyInCoder() || s.providerInCoder() {
		t.Errorf("after the deletion Coder still has the key: %v, the provider: %v", s.keyInCoder(), s.providerInCoder())
	}
	if d := releasedWithoutDelete(t, "AIGatewayKey") - keysBefore + releasedWithoutDelete(t, "AIProvider") - provsBefore; d != 0 {
		t.Errorf("releases without delete = %v, want 0", d)
	}
}

func TestHoldReleasesAfterLiveDependentTimeout(t *testing.T) {
	s := newHoldSetup(t)
	before := releasedWithoutDelete(t, "AIGatewayKey")
	start := time.Now()
	env.Delete(t, s.pc)
	env.WaitGone(t, s.pc, testenv.WaitLong)
	held := time.Since(start)
	t.Logf("ProviderConfig with only live dependents held for %s", held.Round(100*time.Millisecond))
	// The deletion timestamp has second precision, so the bound may
	// start up to a second before our clock did.
	if held < 2*time.Second {
		t.Errorf("held %s, want at least liveDependentTimeout (3s) less the timestamp's second", held)
	}

	// The dependents now have no ProviderConfig: their deletes are bounded
	// passes that cannot reach Coder, releases without delete.
	beforeProv := releasedWithoutDelete(t, "AIProvider")
	env.Delete(t, s.key)
	env.Delete(t, s.ai)
	env.WaitGone(t, s.key, testenv.WaitLong)
	env.WaitGone(t, s.ai, testenv.WaitLong)
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 1 {
		t.Errorf("released_without_delete{kind=AIGatewayKey} grew by %v, want 1", got)
	}
	if got := releasedWithoutDelete(t, "AIProvider") - beforeProv; got != 1 {
		t.Errorf("released_without_delete{kind=AIProvider} grew by %v, want 1", got)
	}
	// Not a leak but a delay: the record is Abandoned (or already swept by
	// a ClusterProviderConfig of another scenario on the same deployment),
	// and a Ready ClusterProviderConfig of the deployment sweeps it.
	sweepThrough(t, s.coder)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete the released key in Coder", func() (bool, string) {
		return !s.keyInCoder() && !s.providerInCoder() && s.record(t, "AIGatewayKey", s.key.UID) == nil && s.record(t, "AIProvider", s.ai.UID) == nil,
			"rows or records left"
	})
	testenv.Eventually(t, testenv.WaitLong, "a ReleasedWithoutDelete event", func() (bool, string) {
		for _, e := range env.Events(t) {
			if e.Reason == "ReleasedWithoutDelete" && e.InvolvedObject.UID == s.key.UID {
				return true, ""
			}
		}
		return false, "no event"
	})
}

func TestHoldKeepsTheFinalizerWhileCoderFailsThenDeletes(t *testing.T) {
	s := newHoldSetup(t)
	before := releasedWithoutDelete(t, "AIGatewayKey")
	if err := s.coder.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: 502}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.coder.ClearFault(fakecoder.EndpointKeysDelete) })
	env.Delete(t, s.key)
	env.Delete(t, s.pc)

	// Until the provider's cache has seen the key's deletion, the
	// ProviderConfig holds for the key and the AIProvider as live
	// dependents, and its message names the key then too: wait for the
	// hold on the deleting key alone.
	testenv.Eventually(t, testenv.WaitLong, "the ProviderConfig to hold for the key alone", func() (bool, string) {
		env.Get(t, s.pc)
		c := s.pc.GetCondition(xpv2.TypeReady)
		h := s.pc.Status.Hold
		return strings.Contains(c.Message, config.WaitingMessage) && strings.Contains(c.Message, "AIGatewayKey/"+s.ns+"/gateway") &&
				h != nil && h.Phase == "Holding" && h.Remaining == 1,
			fmt.Sprintf("%s; status.hold = %+v, want phase Holding with 1 remaining", c.Message, h)
	})
	if !env.Get(t, s.key) || !s.keyInCoder() {
		t.Fatalf("the key let go while Coder failed its delete")
	}
	if !strings.Contains(env.Cluster.ProviderLogs(t), config.WaitingMessage) {
		t.Errorf("the provider never logged %q", config.WaitingMessage)
	}

	s.coder.ClearFault(fakecoder.EndpointKeysDelete)
	env.WaitGone(t, s.key, testenv.WaitLong)
	// The removal of its last dependent re-queues the ProviderConfig at
	// once, not at the next 10s re-check.
	gone := time.Now()
	env.WaitGone(t, s.pc, 5*time.Second)
	t.Logf("ProviderConfig released %s after its last dependent went", time.Since(gone).Round(10*time.Millisecond))
	if s.keyInCoder() {
		t.Errorf("the key is still in Coder")
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 0 {
		t.Errorf("released_without_delete grew by %v, want 0: the retry deleted", got)
	}
}

func TestHoldIsBoundedWhenDeletesKeepFailing(t *testing.T) {
	s := newHoldSetup(t)
	before := releasedWithoutDelete(t, "AIGatewayKey")
	if err := s.coder.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: 403}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.coder.ClearFault(fakecoder.EndpointKeysDelete) })
	start := time.Now()
	env.Delete(t, s.key)
	env.Delete(t, s.pc)
	env.WaitGone(t, s.key, testenv.WaitLong)
	env.WaitGone(t, s.pc, testenv.WaitLong)
	took := time.Since(start)
	t.Logf("with every delete failing, key and ProviderConfig were gone after %s (dependentTimeout 8s, then one bounded pass)", took.Round(100*time.Millisecond))
	// Second precision of the deletion timestamp, as above.
	if took < 6500*time.Millisecond {
		t.Errorf("gone after %s, before dependentTimeout (8s): the hold did not hold", took)
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 1 {
		t.Errorf("released_without_delete grew by %v, want 1", got)
	}
	if !s.keyInCoder() {
		t.Errorf("the key left Coder although every delete failed")
	}
}

func TestNamespaceDeletionWithCoderUpDeletesEverything(t *testing.T) {
	s := newHoldSetup(t)
	before := releasedWithoutDelete(t, "AIGatewayKey") + releasedWithoutDelete(t, "AIProvider")
	start := time.Now()
	env.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}})
	env.WaitGone(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}, 2*time.Minute)
	t.Logf("namespace with a ProviderConfig, its Secret, a key and a provider deleted in %s", time.Since(start).Round(100*time.Millisecond))
	if s.keyInCoder() || s.providerInCoder() {
		t.Errorf("after the namespace deletion Coder still has the key: %v, the provider: %v", s.keyInCoder(), s.providerInCoder())
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") + releasedWithoutDelete(t, "AIProvider") - before; got != 0 {
		t.Errorf("releases without delete = %v, want 0", got)
	}
}

func TestCredentialsFinalizerLeavesWithTheLastProviderConfig(t *testing.T) {
	ns := env.Namespace(t)
	first := env.ProviderConfig(t, ns)
	second := env.ProviderConfigFromSecretNamed(t, ns, "second", "coder-token")
	env.WaitCondition(t, first, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.WaitCondition(t, second, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "coder-token"}}

	env.Delete(t, first)
	env.WaitGone(t, first, testenv.WaitLong)
	if env.Get(t, secret); !meta.FinalizerExists(secret, providerconfig.CredentialsFinalizer) {
		t.Fatalf("the Secret lost its protection while ProviderConfig %s still uses it", second.Name)
	}
	env.Delete(t, second)
	env.WaitGone(t, second, testenv.WaitLong)
	testenv.Eventually(t, testenv.WaitLong, "the Secret to lose our finalizer", func() (bool, string) {
		env.Get(t, secret)
		return !meta.FinalizerExists(secret, providerconfig.CredentialsFinalizer), fmt.Sprint(secret.Finalizers)
	})
}

func TestNamespaceDeletionWithCoderDownReleasesEarly(t *testing.T) {
	s := newHoldSetup(t)
	before := releasedWithoutDelete(t, "AIGatewayKey") + releasedWithoutDelete(t, "AIProvider")
	if err := s.coder.SetDown(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.coder.SetDown(false) })
	start := time.Now()
	env.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}})
	env.WaitGone(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}, 2*time.Minute)
	took := time.Since(start)
	t.Logf("namespace deleted with Coder down in %s (unreachableTimeout 3s, dependentTimeout 8s)", took.Round(100*time.Millisecond))
	if got := releasedWithoutDelete(t, "AIGatewayKey") + releasedWithoutDelete(t, "AIProvider") - before; got != 2 {
		t.Errorf("releases without delete = %v, want 2 (the key and the provider)", got)
	}
	// The releases are not leaks but delays: their records survived the
	// namespace, Abandoned.
	for _, r := range []*clusterv1alpha1.CleanupRecord{s.record(t, "AIGatewayKey", s.key.UID), s.record(t, "AIProvider", s.ai.UID)} {
		if r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
			t.Fatalf("cleanup record = %+v, want Abandoned", r)
		}
	}
	if !s.keyInCoder() || !s.providerInCoder() {
		t.Fatalf("Coder lost the key or provider while it was down")
	}

	// Coder comes back. Another tenant's ProviderConfig of the same
	// deployment is not entitled to the records: it turns Ready, its sweep
	// runs, and it leaves them. Its server could report any deployment id.
	if err := s.coder.SetDown(false); err != nil {
		t.Fatal(err)
	}
	env.ReadyProviderConfigOf(t, env.Namespace(t), s.coder, nil)
	// The second sweep from now began after the ProviderConfig was Ready.
	last := sweeps(t)
	testenv.Eventually(t, testenv.WaitLong, "two sweeps after the other tenant's ProviderConfig turned Ready", func() (bool, string) {
		n := sweeps(t)
		return n >= last+2, fmt.Sprintf("%d sweeps since", n-last)
	})
	if !s.keyInCoder() || !s.providerInCoder() {
		t.Fatalf("another tenant's ProviderConfig swept the deleted namespace's records")
	}
	// The platform team's ClusterProviderConfig of the deployment sweeps
	// what the namespace deletion left.
	start = time.Now()
	sweepThrough(t, s.coder)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete the key and the provider in Coder", func() (bool, string) {
		return !s.keyInCoder() && !s.providerInCoder(), fmt.Sprintf("key in Coder %v, provider in Coder %v", s.keyInCoder(), s.providerInCoder())
	})
	testenv.Eventually(t, testenv.WaitLong, "the swept records to be deleted", func() (bool, string) {
		k, p := s.record(t, "AIGatewayKey", s.key.UID), s.record(t, "AIProvider", s.ai.UID)
		return k == nil && p == nil, "records left"
	})
	t.Logf("swept in %s after a ProviderConfig of the same deployment appeared", time.Since(start).Round(100*time.Millisecond))
}

func TestStrippedFinalizersLeaveRecordsThatAreSwept(t *testing.T) {
	s := newHoldSetup(t)
	if r := s.record(t, "AIGatewayKey", s.key.UID); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseActive || r.Status.ExternalID != meta.GetExternalName(s.key) {
		t.Fatalf("cleanup record of a Ready key = %+v, want Active with the key id", r)
	}
	// What an operator does to unstick an object by hand.
	for _, o := range []client.Object{s.key, s.ai} {
		if err := env.Update(t, o, func() { o.SetFinalizers(nil) }); err != nil {
			t.Fatal(err)
		}
		env.Delete(t, o)
		env.WaitGone(t, o, testenv.WaitLong)
	}
	// The vanished resources trigger a sweep once their records are older
	// than the sweep's grace (a minute by default), not at the next interval.
	testenv.Eventually(t, provider.DefaultOptions().SweepGrace+testenv.WaitLong, "the sweep to delete the stripped objects in Coder", func() (bool, string) {
		return !s.keyInCoder() && !s.providerInCoder(), fmt.Sprintf("key in Coder %v, provider in Coder %v", s.keyInCoder(), s.providerInCoder())
	})
	testenv.Eventually(t, testenv.WaitLong, "the records to be deleted", func() (bool, string) {
		return s.record(t, "AIGatewayKey", s.key.UID) == nil && s.record(t, "AIProvider", s.ai.UID) == nil, "records left"
	})
}

func TestOrphanLeavesNoRecord(t *testing.T) {
	s := newHoldSetup(t)
	before := releasedWithoutDelete(t, "AIGatewayKey")
	if err := env.Update(t, s.key, func() {
		s.key.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate}
	}); err != nil {
		t.Fatal(err)
	}
	env.Delete(t, s.key)
	env.WaitGone(t, s.key, testenv.WaitLong)
	if r := s.record(t, "AIGatewayKey", s.key.UID); r != nil {
		t.Errorf("an intentional abandon left the cleanup record %+v", r.Spec)
	}
	if !s.keyInCoder() {
		t.Errorf("the orphaned key was deleted in Coder")
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 0 {
		t.Errorf("released_without_delete grew by %v for an intentional abandon", got)
	}
}

// record returns the cleanup record of a managed resource, nil if none.
func (s holdSetup) record(t *testing.T, kind string, uid types.UID) *clusterv1alpha1.CleanupRecord {
	t.Helper()
	r := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: deletion.Name(kind, uid)}}
	if !env.Get(t, r) {
		return nil
	}
	return r
}

func TestHoldLetsAForegroundDeletionDeleteEverythingInCoder(t *testing.T) {
	s := newHoldSetup(t)
	before := releasedWithoutDelete(t, "AIGatewayKey") + releasedWithoutDelete(t, "AIProvider")
	fg := client.PropagationPolicy(metav1.DeletePropagationForeground)
	env.Delete(t, s.pc, fg)
	env.Delete(t, s.key, fg)
	env.Delete(t, s.ai, fg)
	env.WaitGone(t, s.key, testenv.WaitLong)
	env.WaitGone(t, s.ai, testenv.WaitLong)
	env.WaitGone(t, s.pc, testenv.WaitLong)
	if s.keyInCoder() || s.providerInCoder() {
		t.Errorf("after a foreground deletion Coder still has the key: %v, the provider: %v", s.keyInCoder(), s.providerInCoder())
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") + releasedWithoutDelete(t, "AIProvider") - before; got != 0 {
		t.Errorf("releases without delete = %v, want 0", got)
	}
}

func TestHoldResumesAfterProviderRestart(t *testing.T) {
	s := newHoldSetup(t)
	if err := s.coder.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: 502}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.coder.ClearFault(fakecoder.EndpointKeysDelete) })
	env.Delete(t, s.key)
	env.Delete(t, s.pc)
	testenv.Eventually(t, testenv.WaitLong, "the hold to start", func() (bool, string) {
		env.Get(t, s.pc)
		return s.pc.Status.Hold != nil, "no status.hold"
	})
	env.Cluster.RestartProvider(t)
	testenv.Eventually(t, testenv.WaitLong, "the restarted provider to hold from the deletion timestamp", func() (bool, string) {
		env.Get(t, s.pc)
		h := s.pc.Status.Hold
		return h != nil && h.Since.Equal(s.pc.DeletionTimestamp) && h.Until.Time.Equal(s.pc.DeletionTimestamp.Add(8*time.Second)),
			fmt.Sprintf("hold %+v, deletionTimestamp %v", h, s.pc.DeletionTimestamp)
	})
	s.coder.ClearFault(fakecoder.EndpointKeysDelete)
	env.WaitGone(t, s.key, testenv.WaitLong)
	env.WaitGone(t, s.pc, testenv.WaitLong)
	if s.keyInCoder() {
		t.Errorf("the key is still in Coder")
	}
}

func TestClusterProviderConfigSecretHeldWhileItsNamespaceIsDeleted(t *testing.T) {
	coder := env.Cluster.Coder(t)
	cpc, secretNS := readyClusterConfig(t, coder)
	k := keyOfClusterConfig(t, env.Namespace(t), "shared", cpc)

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretNS}}
	env.Delete(t, ns)
	// Past the namespace controller's first pass: it has deleted the
	// Secret, which our finalizer keeps.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretNS, Name: "coder-token"}}
	testenv.Eventually(t, testenv.WaitLong, "the namespace deletion to reach the Secret", func() (bool, string) {
		if !env.Get(t, secret) {
			t.Fatalf("the namespace deletion removed the Secret a ClusterProviderConfig still uses")
		}
		return secret.DeletionTimestamp != nil, "not deleted yet"
	})
	// The key keeps working: it deletes in Coder with the held credentials.
	id := meta.GetExternalName(k)
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	if testenv.LiveKey(coder, id) {
		t.Errorf("the key could not delete in Coder while its Secret's namespace was deleted")
	}
	env.Delete(t, cpc)
	env.WaitGone(t, cpc, testenv.WaitLong)
	env.WaitGone(t, ns, 2*time.Minute)
}

// A tenant's namespace is deleted while the platform team's
// ClusterProviderConfig its key uses cannot delete anything: its token
// Secret is missing. The namespace deletion does not touch the
// ClusterProviderConfig, so nothing else ends the wait: the key holds for
// the ClusterProviderConfig's dependentTimeout from the namespace's
// deletion, then releases without delete, counted, and the sweep deletes
// the key once the ClusterProviderConfig is mended (interleaving seed
// 1068355073656).
func TestNamespaceDeletionIsBoundedWhileItsClusterProviderConfigCannotDelete(t *testing.T) {
	coder := env.Cluster.Coder(t)
	cpc, _ := readyClusterConfig(t, coder)
	mrNS := env.Namespace(t)
	k := keyOfClusterConfig(t, mrNS, "tenant", cpc)
	id := meta.GetExternalName(k)

	// The platform team points the ClusterProviderConfig at a Secret that
	// does not exist; then the tenant's namespace is deleted.
	if err := env.Update(t, cpc, func() { cpc.Spec.Credentials.SecretRef.Name = "missing" }); err != nil {
		t.Fatal(err)
	}
	before := releasedWithoutDelete(t, "AIGatewayKey")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mrNS}}
	start := time.Now()
	env.Delete(t, ns)
	env.WaitGone(t, ns, 2*time.Minute)
	took := time.Since(start)
	t.Logf("namespace deleted in %s while its ClusterProviderConfig could not delete (dependentTimeout 8s)", took.Round(100*time.Millisecond))
	if took < shortBounds().DependentTimeout.Duration {
		t.Errorf("the namespace went after %s, before the dependentTimeout: the key did not hold", took)
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 1 {
		t.Errorf("releases without delete = %v, want 1", got)
	}
	if r := recordOf(t, "AIGatewayKey", k.UID); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
		t.Fatalf("cleanup record = %+v, want Abandoned", r)
	}
	if !testenv.LiveKey(coder, id) {
		t.Fatalf("the key went from Coder without credentials")
	}

	// Mended, the ClusterProviderConfig turns Ready, and its sweep deletes
	// the key the namespace deletion left.
	if err := env.Update(t, cpc, func() { cpc.Spec.Credentials.SecretRef.Name = "coder-token" }); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete the released key in Coder", func() (bool, string) {
		return !testenv.LiveKey(coder, id), "key in Coder"
	})
}

// readyClusterConfig is a Ready ClusterProviderConfig of coder with short
// bounds, named after the namespace of its token Secret, which it returns.
func readyClusterConfig(t *testing.T, coder testenv.Coder) (*namespacedv1alpha1.ClusterProviderConfig, string) {
	t.Helper()
	secretNS := env.Namespace(t)
	env.TokenSecret(t, secretNS, "coder-token", coder.Token())
	cpc := &namespacedv1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: secretNS},
		Spec: common.ProviderConfigSpec{
			URL: coder.URL(),
			Credentials: common.Credentials{
				Source: common.CredentialsSourceSecret,
				SecretRef: &common.SecretKeySelector{
					LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "coder-token", Key: testenv.TokenKey},
					Namespace:              secretNS,
				},
			},
			Deletion: shortBounds(),
		},
	}
	env.Create(t, cpc)
	t.Cleanup(func() { env.Delete(t, cpc) })
	env.WaitCondition(t, cpc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return cpc, secretNS
}

// keyOfClusterConfig is a Ready key in ns that uses cpc.
func keyOfClusterConfig(t *testing.T, ns, name string, cpc *namespacedv1alpha1.ClusterProviderConfig) *aiv1alpha1.AIGatewayKey {
	t.Helper()
	k := newKey(ns, name)
	k.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: cpc.Name}
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return k
}
