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
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// These scenarios pin rules of the hold that a scenario with short bounds
// everywhere cannot tell apart: each sets one bound far beyond another, so a
// release on the wrong bound is minutes late instead of seconds.

// releaseMargin is how long after its bound a release may reach the API
// server: a namespace controller pass, a reconcile and the finalizer patch,
// on a busy machine.
const releaseMargin = 10 * time.Second

// TestNamespaceDeletionWithCoderDownReleasesWithinUnreachableTimeout: during
// a namespace deletion with Coder not answering, the ProviderConfig goes
// once Coder has been silent for unreachableTimeout, not after
// dependentTimeout (left at its production default, 10m) as it would
// outside a namespace deletion.
func TestNamespaceDeletionWithCoderDownReleasesWithinUnreachableTimeout(t *testing.T) {
	ns := env.Namespace(t)
	coder := env.Cluster.Coder(t)
	pc := env.ReadyProviderConfigOf(t, ns, coder, func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.Deletion = &common.DeletionSpec{UnreachableTimeout: &metav1.Duration{Duration: 3 * time.Second}}
	})
	k := newKey(ns, "gateway")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	before := releasedWithoutDelete(t, "AIGatewayKey")

	if err := coder.SetDown(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = coder.SetDown(false) })
	unreachable := pc.Spec.Deletion.UnreachableTimeout.Duration
	start := time.Now()
	env.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	// The bound runs from the ProviderConfig's own deletion, which the
	// namespace controller makes when it gets to it.
	testenv.Eventually(t, testenv.WaitLong, "the namespace deletion to reach the ProviderConfig", func() (bool, string) {
		return !env.Get(t, pc) || pc.DeletionTimestamp != nil, "no deletion timestamp yet"
	})
	deleted := time.Now()
	env.WaitGone(t, pc, unreachable+releaseMargin)
	took := time.Since(deleted)
	t.Logf("ProviderConfig deleted %s after its namespace, released %s later with Coder down (unreachableTimeout %s, dependentTimeout 10m)",
		deleted.Sub(start).Round(100*time.Millisecond), took.Round(100*time.Millisecond), unreachable)
	// Coder's silence is measured from the hold's first probe, which
	// follows the deletion.
	if took < unreachable-time.Second {
		t.Errorf("released %s after its deletion, before Coder was silent for unreachableTimeout (%s)", took, unreachable)
	}
	env.WaitGone(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, testenv.WaitLong)
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 1 {
		t.Errorf("released_without_delete{kind=AIGatewayKey} grew by %v, want 1", got)
	}
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: deletion.Name("AIGatewayKey", k.UID)}}
	if !env.Get(t, rec) || rec.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
		t.Fatalf("cleanup record = %+v, want Abandoned", rec.Spec)
	}

	// Not a leak but a delay: a ClusterProviderConfig of the deployment
	// sweeps it (the namespace's own ProviderConfig is gone).
	if err := coder.SetDown(false); err != nil {
		t.Fatal(err)
	}
	sweepThrough(t, coder)
	id := meta.GetExternalName(k)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete the released key in Coder", func() (bool, string) {
		return !testenv.LiveKey(coder, id), "key still in Coder"
	})
}

// TestHoldCountsOnlyTheDependentsOfItsOwnProviderConfig: two ProviderConfigs
// in one namespace; a live key uses B only. A, deleted, has no dependents and
// goes at once, not after liveDependentTimeout (its production default,
// 30s); B, deleted, holds for its key, which then deletes in Coder.
func TestHoldCountsOnlyTheDependentsOfItsOwnProviderConfig(t *testing.T) {
	ns := env.Namespace(t)
	coder := env.Cluster.Coder(t)
	b := env.ProviderConfig(t, ns)
	a := env.ProviderConfigFromSecretNamed(t, ns, "a", "coder-token")
	env.WaitCondition(t, a, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	k := newKey(ns, "of-b")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if !env.Get(t, a) || a.Status.Users != 0 {
		t.Errorf("ProviderConfig a reports %d users, want 0: only b is used", a.Status.Users)
	}

	start := time.Now()
	env.Delete(t, a)
	env.WaitGone(t, a, releaseMargin)
	t.Logf("ProviderConfig without dependents released %s after its deletion", time.Since(start).Round(100*time.Millisecond))

	env.Delete(t, b)
	testenv.Eventually(t, testenv.WaitLong, "ProviderConfig b to hold for its key", func() (bool, string) {
		env.Get(t, b)
		c := b.GetCondition(xpv2.TypeReady)
		return strings.Contains(c.Message, config.WaitingMessage) && strings.Contains(c.Message, "AIGatewayKey/"+ns+"/"+k.Name), c.Message
	})
	before := releasedWithoutDelete(t, "AIGatewayKey")
	id := meta.GetExternalName(k)
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	env.WaitGone(t, b, testenv.WaitLong)
	if testenv.LiveKey(coder, id) {
		t.Errorf("the key of the held ProviderConfig is still in Coder")
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 0 {
		t.Errorf("released_without_delete grew by %v, want 0: b held for the key", got)
	}
}

// TestHoldKeepsTheProviderFinalizerWhileCoderFailsThenDeletes: an AIProvider
// whose delete Coder fails keeps its finalizer while its ProviderConfig
// holds, instead of giving up after one pass, and deletes once Coder takes
// the delete.
func TestHoldKeepsTheProviderFinalizerWhileCoderFailsThenDeletes(t *testing.T) {
	ns := env.Namespace(t)
	coder := env.Cluster.Coder(t)
	pc := env.ReadyProviderConfigOf(t, ns, coder, func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.Deletion = shortBounds()
	})
	p := aiProvider(ns, "openai-"+ns, func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Name = ptr.To("openai-" + ns) })
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	before := releasedWithoutDelete(t, "AIProvider")
	if err := coder.SetFault(fakecoder.EndpointProviderDelete, fakecoder.Fault{Status: 502}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coder.ClearFault(fakecoder.EndpointProviderDelete) })
	deletes := coder.Requests(fakecoder.EndpointProviderDelete)
	env.Delete(t, p)
	env.Delete(t, pc)

	// A provider that let go while Coder failed its delete fails at once.
	kept := func() {
		if !env.Get(t, p) {
			t.Fatalf("the provider let go while Coder failed its delete")
		}
	}
	testenv.Eventually(t, testenv.WaitLong, "the ProviderConfig to hold for the provider", func() (bool, string) {
		kept()
		env.Get(t, pc)
		c := pc.GetCondition(xpv2.TypeReady)
		return strings.Contains(c.Message, config.WaitingMessage) && strings.Contains(c.Message, "AIProvider/"+ns+"/"+p.Name), c.Message
	})
	// A failed delete under the hold is retried: wait for a second one.
	testenv.Eventually(t, testenv.WaitLong, "Coder to fail a second delete", func() (bool, string) {
		kept()
		n := coder.Requests(fakecoder.EndpointProviderDelete) - deletes
		return n >= 2, fmt.Sprintf("%d deletes", n)
	})
	id := meta.GetExternalName(p)
	if !providerInCoder(coder, id) {
		t.Fatalf("the provider left Coder although its delete failed")
	}

	coder.ClearFault(fakecoder.EndpointProviderDelete)
	env.WaitGone(t, p, testenv.WaitLong)
	env.WaitGone(t, pc, testenv.WaitLong)
	if providerInCoder(coder, id) {
		t.Errorf("the provider is still in Coder")
	}
	if got := releasedWithoutDelete(t, "AIProvider") - before; got != 0 {
		t.Errorf("released_without_delete grew by %v, want 0: the retry deleted", got)
	}
}

func providerInCoder(c testenv.Coder, id string) bool {
	for _, p := range c.Providers(false) {
		if p.ID.String() == id {
			return true
		}
	}
	return false
}

// TestReleaseIsCountedOnlyOnceItsFinalizerRemovalIsPersisted: a key released
// without delete whose finalizer removal the API server refuses (here an
// admission policy, as a webhook or a conflict may) is not counted yet; each
// retry that gives up again is the same release, counted once, when the
// removal finally persists.
func TestReleaseIsCountedOnlyOnceItsFinalizerRemovalIsPersisted(t *testing.T) {
	ns := env.Namespace(t)
	coder := env.Cluster.Coder(t)
	pc := env.ReadyProviderConfigOf(t, ns, coder, func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.Deletion = shortBounds()
	})
	k := newKey(ns, "refused")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	refuseFinalizerRemoval(t, k)

	// Without its ProviderConfig the key's delete is a bounded pass with
	// no credentials: a release without delete.
	env.Delete(t, pc)
	env.WaitGone(t, pc, testenv.WaitLong)
	before := releasedWithoutDelete(t, "AIGatewayKey")
	env.Delete(t, k)
	testenv.Eventually(t, testenv.WaitLong, "the finalizer removal to be refused", func() (bool, string) {
		env.Get(t, k)
		c := k.GetCondition(xpv2.TypeSynced)
		return strings.Contains(c.Message, refusedRemoval), c.Message
	})
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 0 {
		t.Errorf("released_without_delete grew by %v while the finalizer was still on, want 0", got)
	}

	allowFinalizerRemoval(t, ns)
	env.WaitGone(t, k, testenv.WaitLong)
	// The count follows the persisted removal, a moment after the key is
	// seen gone.
	testenv.Eventually(t, 10*time.Second, "the one release to be counted", func() (bool, string) {
		got := releasedWithoutDelete(t, "AIGatewayKey") - before
		return got >= 1, fmt.Sprintf("grew by %v", got)
	})
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 1 {
		t.Errorf("released_without_delete grew by %v, want 1 for the one release", got)
	}

	// Not a leak but a delay: a ClusterProviderConfig of the deployment
	// sweeps it (the namespace's own ProviderConfig is gone).
	sweepThrough(t, coder)
	id := meta.GetExternalName(k)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete the released key in Coder", func() (bool, string) {
		return !testenv.LiveKey(coder, id), "key still in Coder"
	})
}

// refusedRemoval is the message of the policy refuseFinalizerRemoval sets.
const refusedRemoval = "test policy refuses the removal of the cleanup finalizer"

// refuseFinalizerRemoval makes the API server refuse any update of k's
// namespace that takes our finalizer off an AIGatewayKey, and waits until it
// does (policies load asynchronously).
func refuseFinalizerRemoval(t *testing.T, k *aiv1alpha1.AIGatewayKey) {
	t.Helper()
	has := func(o string) string {
		return fmt.Sprintf("(has(%[1]s.metadata.finalizers) && '%[2]s' in %[1]s.metadata.finalizers)", o, providerconfig.ManagedFinalizer)
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: k.Namespace},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups:   []string{aiv1alpha1.Group},
							APIVersions: []string{"*"},
							Resources:   []string{"aigatewaykeys"},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: fmt.Sprintf("object.metadata.namespace != '%s' || !%s || %s", k.Namespace, has("oldObject"), has("object")),
				Message:    refusedRemoval,
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: k.Namespace},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	env.Create(t, policy)
	env.Create(t, binding)
	t.Cleanup(func() { allowFinalizerRemoval(t, k.Namespace) })
	testenv.Eventually(t, testenv.WaitLong, "the API server to refuse the finalizer's removal", func() (bool, string) {
		env.Get(t, k)
		orig := k.DeepCopy()
		controllerutil.RemoveFinalizer(k, providerconfig.ManagedFinalizer)
		err := env.Kube.Patch(context.Background(), k, client.MergeFrom(orig), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), refusedRemoval), fmt.Sprintf("dry-run removal: %v", err)
	})
}

// allowFinalizerRemoval removes the policy of refuseFinalizerRemoval.
func allowFinalizerRemoval(t *testing.T, ns string) {
	t.Helper()
	env.Delete(t, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	env.Delete(t, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: ns}})
}
