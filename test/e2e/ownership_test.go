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

	"github.com/coder/coder/v2/codersdk"
	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// victimProvider creates tenant victim's Ready AIProvider in a namespace of
// its own, with its own ProviderConfig to the shared Coder.
func victimProvider(t *testing.T) (*aiv1alpha1.AIProvider, fakecoder.ProviderRow) {
	t.Helper()
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-victim-k3y9Qm2Xv7Lp"})
	p := newAIProvider(ns, "victim", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.Name = ptr.To(testenv.UniqueProviderName("victim-openai"))
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	row, ok := env.ProviderRowByID(meta.GetExternalName(p))
	if !ok {
		t.Fatalf("the victim's provider %s is not in Coder", meta.GetExternalName(p))
	}
	return p, row
}

// attackerProvider is tenant attacker's AIProvider, in another namespace
// with its own ProviderConfig to the same Coder, naming the victim's
// provider; mutate marks how it claims it.
func attackerProvider(t *testing.T, name string, mutate func(*aiv1alpha1.AIProvider)) *aiv1alpha1.AIProvider {
	t.Helper()
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-attacker-k3y9Qm2Xv7Lp"})
	p := newAIProvider(ns, "attacker", "openai", "https://attacker.example.com/v1")
	p.Spec.ForProvider.Name = ptr.To(name)
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	mutate(p)
	env.Create(t, p)
	return p
}

// victimUntouched fails the test unless the victim's provider is live in
// Coder exactly as it was.
func victimUntouched(t *testing.T, before fakecoder.ProviderRow) {
	t.Helper()
	row, ok := env.ProviderRowByID(before.ID.String())
	if !ok || row.Deleted {
		t.Fatalf("the victim's provider %s was deleted in Coder", before.ID)
	}
	if row.BaseURL != before.BaseURL || !testenv.SameKeys(row.PlaintextKeys(), before.PlaintextKeys()) {
		t.Errorf("the victim's provider was changed: base URL %s (was %s)", row.BaseURL, before.BaseURL)
	}
}

// patchesOf counts the PATCH requests to providers: scenarios run one at
// a time, and nothing else patches the victim's.
func patchesOf(string) int {
	return env.Coder.Requests(fakecoder.EndpointProviderUpdate)
}

func TestOwnershipCreatePendingAnnotationDoesNotAdoptAnotherTenantsProvider(t *testing.T) {
	victim, before := victimProvider(t)
	patches := patchesOf(before.ID.String())
	creates := env.Coder.Requests(fakecoder.EndpointProvidersCreate)

	p := attackerProvider(t, *victim.Spec.ForProvider.Name, func(p *aiv1alpha1.AIProvider) {
		// A time just before the victim's provider was created: by the
		// annotation alone, the victim's provider looks like the result
		// of this resource's lost create.
		at := before.CreatedAt.Add(-time.Second).UTC().Format(time.RFC3339)
		meta.AddAnnotations(p, map[string]string{meta.AnnotationKeyExternalCreatePending: at})
	})
	// Either it adopts the victim's provider, or its own create is
	// refused by Coder (the name is taken) and it says so.
	var c xpv2.Condition
	testenv.Eventually(t, testenv.WaitLong, "adoption or a refused create", func() (bool, string) {
		env.Get(t, p)
		c = p.GetCondition(xpv2.TypeSynced)
		n := env.Coder.Requests(fakecoder.EndpointProvidersCreate) - creates
		taken := c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "taken")
		return meta.GetExternalName(p) != "" || (n >= 1 && taken), fmt.Sprintf("%d create attempts, Synced %s", n, c.Message)
	})
	if id := meta.GetExternalName(p); id != "" {
		t.Fatalf("external name = %q: the victim's provider was adopted", id)
	}
	attackerRefused(t, p, victim, before, patches, c.Message)
}

func TestOwnershipImportOfAnotherTenantsProviderIsRefused(t *testing.T) {
	victim, before := victimProvider(t)
	patches := patchesOf(before.ID.String())

	p := attackerProvider(t, *victim.Spec.ForProvider.Name, func(p *aiv1alpha1.AIProvider) {
		meta.SetExternalName(p, before.ID.String())
	})
	c := env.WaitCondition(t, p, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	owner := victim.Namespace + "/" + victim.Name
	if !strings.Contains(c.Message, owner) {
		t.Errorf("Synced message %q does not name the owner %s", c.Message, owner)
	}
	for _, s := range []string{"sk-victim", "sk-attacker"} {
		if strings.Contains(c.Message, s) {
			t.Errorf("Synced message carries a key")
		}
	}
	env.Get(t, p)
	attackerRefused(t, p, victim, before, patches, c.Message)
}

func TestOwnershipImportOfAnotherTenantsKeyIsRefused(t *testing.T) {
	vns := env.Namespace(t)
	env.ProviderConfig(t, vns)
	victim := newKey(vns, "victim")
	env.Create(t, victim)
	env.WaitCondition(t, victim, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	id := meta.GetExternalName(victim)

	ans := env.Namespace(t)
	env.ProviderConfig(t, ans)
	k := newKey(ans, "attacker")
	meta.SetExternalName(k, id)
	meta.AddAnnotations(k, map[string]string{"coder.crossplane.io/rotate": "now"})
	env.Create(t, k)
	c := env.WaitCondition(t, k, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if owner := vns + "/victim"; !strings.Contains(c.Message, owner) {
		t.Errorf("Synced message %q does not name the owner %s", c.Message, owner)
	}
	t.Logf("Synced=False: %s", c.Message)

	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	if !hasKeyID(id) {
		t.Fatalf("deleting the attacker's AIGatewayKey deleted the victim's key %s", id)
	}
	env.WaitCondition(t, victim, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.Get(t, victim)
	if got := meta.GetExternalName(victim); got != id {
		t.Errorf("the victim's key was rotated: external name %s, was %s", got, id)
	}
}

func TestOwnershipCreatePendingAnnotationDoesNotAdoptAProviderMadeByHand(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-attacker-k3y9Qm2Xv7Lp"})
	name := testenv.UniqueProviderName("by-hand")
	// Made in Coder after any time the annotation can name, so only the
	// record, not the annotation, tells it from the result of our attempt.
	other, err := env.CoderClient(t).CreateAIProvider(context.Background(), codersdk.CreateAIProviderRequest{
		Type: "openai", Name: name, Enabled: true, BaseURL: "https://by-hand.example.com/v1", APIKeys: []string{"sk-by-hand"},
	})
	if err != nil {
		t.Fatalf("cannot create the provider in Coder: %v", err)
	}
	before, _ := env.ProviderRowByID(other.ID.String())
	patches := patchesOf(other.ID.String())
	creates := env.Coder.Requests(fakecoder.EndpointProvidersCreate)

	p := newAIProvider(ns, "pending", "openai", "https://attacker.example.com/v1")
	p.Spec.ForProvider.Name = ptr.To(name)
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	meta.AddAnnotations(p, map[string]string{meta.AnnotationKeyExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
	env.Create(t, p)
	testenv.Eventually(t, testenv.WaitLong, "adoption or a refused create", func() (bool, string) {
		env.Get(t, p)
		c := p.GetCondition(xpv2.TypeSynced)
		n := env.Coder.Requests(fakecoder.EndpointProvidersCreate) - creates
		taken := c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "taken")
		return meta.GetExternalName(p) != "" || (n >= 1 && taken), fmt.Sprintf("%d create attempts, Synced %s", n, c.Message)
	})
	if id := meta.GetExternalName(p); id != "" {
		t.Fatalf("external name = %q: a provider found by name was adopted on a hand-set annotation", id)
	}
	if n := patchesOf(other.ID.String()) - patches; n != 0 {
		t.Errorf("%d PATCH requests to the provider made by hand, want 0", n)
	}
	victimUntouched(t, before)
	env.Delete(t, p)
	env.WaitGone(t, p, testenv.WaitLong)
	victimUntouched(t, before)
}

// attackerRefused checks what a refused attacker's AIProvider p may never
// do to the victim's provider (before, with patches PATCH requests before
// the attack), then deletes p and checks the victim again.
func attackerRefused(t *testing.T, p, victim *aiv1alpha1.AIProvider, before fakecoder.ProviderRow, patches int, synced string) {
	t.Helper()
	if r := p.GetCondition(xpv2.TypeReady); r.Status == corev1.ConditionTrue {
		t.Errorf("the attacker's AIProvider reports Ready")
	}
	if n := patchesOf(before.ID.String()) - patches; n != 0 {
		t.Errorf("%d PATCH requests to the victim's provider, want 0", n)
	}
	victimUntouched(t, before)
	t.Logf("Synced=False: %s", synced)

	env.Delete(t, p)
	env.WaitGone(t, p, testenv.WaitLong)
	victimUntouched(t, before)
	env.WaitCondition(t, victim, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
}
