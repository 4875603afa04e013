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
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
)

// The deletion scenarios of hold_test.go, on both Coders. Stopping the
// real server is the one fault it supports: what the fake fakes with
// SetDown(true), the real Coder does by exiting.

// holdSetupOn is newHoldSetup on the Coder c: a Ready ProviderConfig with
// short bounds, a Ready key and a Ready OpenAI provider that use it. On a
// Coder that serves no keys (the real one without a licence) there is no
// key: key is nil, and the scenario runs with the provider alone.
func holdSetupOn(t *testing.T, c testenv.Coder) holdSetup {
	t.Helper()
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.Deletion = shortBounds()
	})
	env.Secret(t, ns, "llm-keys", map[string]string{"openai": "sk-hold-k3y9Qm2Xv7Lp"})
	var k *aiv1alpha1.AIGatewayKey
	if c.ServesKeys() {
		k = newKey(ns, "gateway")
		env.Create(t, k)
	}
	p := newAIProvider(ns, "openai", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("llm-keys", "openai")}
	env.Create(t, p)
	if k != nil {
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return holdSetup{ns: ns, coder: c, pc: pc, key: k, ai: p}
}

// names returns the Coder names of the setup's key and provider.
func (s holdSetup) names() (keys, providers []string) {
	if s.key != nil {
		keys = []string{aigatewaykey.DerivedName(s.key)}
	}
	return keys, []string{*s.ai.Spec.ForProvider.Name}
}

// keys is how many keys the setup has: 1, or 0 on a Coder without keys.
func (s holdSetup) keys() int {
	if s.key == nil {
		return 0
	}
	return 1
}

// managed are the setup's managed resources: the key (when there is one)
// and the provider.
func (s holdSetup) managed() []client.Object {
	if s.key == nil {
		return []client.Object{s.ai}
	}
	return []client.Object{s.key, s.ai}
}

func releasedWithoutDeleteBoth(t *testing.T) float64 {
	t.Helper()
	return releasedWithoutDelete(t, "AIGatewayKey") + releasedWithoutDelete(t, "AIProvider")
}

func TestHoldWhenEverythingIsDeletedAtOnceOnBothCoders(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		s := holdSetupOn(t, c)
		keyNames, providerNames := s.names()
		if k, p := countRows(t, c, keyNames, providerNames); k != s.keys() || p != 1 {
			t.Fatalf("before the deletion Coder holds %d keys and %d providers of the namespace, want %d and 1", k, p, s.keys())
		}
		before := releasedWithoutDeleteBoth(t)
		// The worst order: the ProviderConfig first, as `kubectl delete -f`
		// of a directory may do, and its controller acting before the
		// dependents' deletes arrive. Deleted within the same milliseconds
		// the dependents usually win the race, and a ProviderConfig that
		// did not hold at all would pass unnoticed.
		start := time.Now()
		env.Delete(t, s.pc)
		testenv.Eventually(t, testenv.WaitLong, "the ProviderConfig to hold or go", func() (bool, string) {
			if !env.Get(t, s.pc) {
				return true, ""
			}
			return s.pc.Status.Hold != nil, "no hold yet"
		})
		for _, o := range s.managed() {
			env.Delete(t, o)
		}
		for _, o := range s.managed() {
			env.WaitGone(t, o, testenv.WaitLong)
		}
		env.WaitGone(t, s.pc, testenv.WaitLong)
		t.Logf("ProviderConfig, key and provider deleted at once, all gone in %s", time.Since(start).Round(100*time.Millisecond))
		if d := releasedWithoutDeleteBoth(t) - before; d != 0 {
			t.Errorf("releases without delete = %v, want 0", d)
		}
		if k, p := countRows(t, c, keyNames, providerNames); k != 0 || p != 0 {
			t.Errorf("after the deletion Coder holds %d keys and %d live providers of the namespace, want 0 and 0", k, p)
		}
	})
}

func TestNamespaceDeletionWithCoderStoppedIsSweptAfterRestartOnBothCoders(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		s := holdSetupOn(t, c)
		keyNames, providerNames := s.names()
		before := releasedWithoutDeleteBoth(t)
		if err := c.SetDown(true); err != nil {
			t.Fatal(err)
		}
		// Whatever happens, later scenarios find Coder up; starting a
		// running real Coder only errs.
		t.Cleanup(func() { _ = c.SetDown(false) })

		start := time.Now()
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}
		env.Delete(t, namespace)
		env.WaitGone(t, namespace, 2*time.Minute)
		t.Logf("namespace deleted with Coder stopped in %s (unreachableTimeout 3s, dependentTimeout 8s)", time.Since(start).Round(100*time.Millisecond))
		if got, want := releasedWithoutDeleteBoth(t)-before, float64(len(s.managed())); got != want {
			t.Errorf("releases without delete = %v, want %v (each managed resource)", got, want)
		}
		for _, o := range s.managed() {
			if r := s.record(t, kindOf(o), o.GetUID()); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
				t.Fatalf("cleanup record of the %s = %+v, want Abandoned", kindOf(o), r)
			}
		}
		// Coder's store is readable while its server is stopped: nothing
		// was deleted, the releases are delays, not deletes.
		if (s.key != nil && !s.keyInCoder()) || !s.providerInCoder() {
			t.Fatalf("Coder's store lost the key or the provider (%t) while the server was stopped", !s.providerInCoder())
		}

		start = time.Now()
		if err := c.SetDown(false); err != nil {
			t.Fatal(err)
		}
		t.Logf("Coder started again in %s", time.Since(start).Round(100*time.Millisecond))
		start = time.Now()
		sweepThrough(t, c)
		for _, o := range s.managed() {
			waitRecordGone(t, kindOf(o), o.GetUID())
		}
		t.Logf("swept %s after Coder was back, a Ready ProviderConfig of the deployment included", time.Since(start).Round(100*time.Millisecond))
		if k, p := countRows(t, c, keyNames, providerNames); k != 0 || p != 0 {
			t.Errorf("after the sweep Coder holds %d keys and %d live providers of the namespace, want 0 and 0", k, p)
		}
		if id := meta.GetExternalName(s.ai); !deletedProvider(c, id) {
			t.Errorf("Coder's store holds no soft-deleted provider %s after the sweep", id)
		}
	})
}

// deletedProvider reports whether Coder's store holds the provider with the
// id, soft-deleted.
func deletedProvider(c testenv.Coder, id string) bool {
	for _, p := range c.Providers(true) {
		if p.ID.String() == id {
			return p.Deleted
		}
	}
	return false
}

// kindOf is the kind of the setup's managed resource o, as cleanup records
// name it.
func kindOf(o client.Object) string {
	if _, ok := o.(*aiv1alpha1.AIGatewayKey); ok {
		return "AIGatewayKey"
	}
	return "AIProvider"
}
