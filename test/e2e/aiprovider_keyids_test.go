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

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aiprovider"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// keyIDs maps each key Coder holds to its id.
func keyIDsByKey(row fakecoder.ProviderRow) map[string]string {
	out := map[string]string{}
	for _, k := range row.APIKeys {
		out[k.APIKey] = k.ID.String()
	}
	return out
}

// wantAppliedKeys checks that p's status pairs every key id Coder holds
// with the keyed fingerprint of the key under it.
func wantAppliedKeys(t *testing.T, p *aiv1alpha1.AIProvider, row fakecoder.ProviderRow) {
	t.Helper()
	key := fingerprintKey(t)
	got := map[string]string{}
	for _, k := range p.Status.AtProvider.AppliedAPIKeys {
		got[k.ID] = k.Fingerprint
	}
	for _, k := range row.APIKeys {
		if want := aiprovider.KeyFingerprint(key, string(p.UID), k.APIKey); got[k.ID.String()] != want {
			t.Errorf("%s: status pairs key id %s with %q, want the keyed fingerprint of the key Coder holds under it", p.Name, k.ID, got[k.ID.String()])
		}
	}
	if len(got) != len(row.APIKeys) {
		t.Errorf("%s: status pairs %d key ids, Coder holds %d keys", p.Name, len(got), len(row.APIKeys))
	}
}

// TestAIProviderKeepsTheIDsOfKeysThatDidNotChange (issue 34): changing one
// of several key Secrets, or removing a reference, sends one PATCH that
// keeps every other key by id, so Coder keeps its failover state for them.
func TestAIProviderKeepsTheIDsOfKeysThatDidNotChange(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	// Keys whose first and last four characters differ, as real ones
	// almost always do: Coder's masked view tells them apart
	// (aiprovider.AppliedKeys).
	const a, b, b2, c = "sk-keep-alpha-k3y9Qm2Xv7Lp", "sk-keep-bravo-p4Rt8Wn1Zs6C", "sk-keep-bravo-rotated-Hj5Dg0", "sk-keep-charlie-Yb2Nc7Kx4Vq"
	s := env.Secret(t, ns, "openai", map[string]string{"a": a, "b": b, "c": c})
	p := newAIProvider(ns, "keep-ids", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "a"), ref("openai", "b"), ref("openai", "c")}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	id := meta.GetExternalName(p)

	steps := []struct {
		name   string
		change func() error
		want   []string
		kept   []string
	}{
		{"one Secret value rotated", func() error {
			s.Data["b"] = []byte(b2)
			return env.Kube.Update(context.Background(), s)
		}, []string{a, b2, c}, []string{a, c}},
		{"one reference removed", func() error {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				env.Get(t, p)
				p.Spec.ForProvider.APIKeySecretRefs = p.Spec.ForProvider.APIKeySecretRefs[:2]
				return env.Kube.Update(context.Background(), p)
			})
		}, []string{a, b2}, []string{a, b2}},
	}
	for _, st := range steps {
		row, _ := env.ProviderRowByID(id)
		before, patches := keyIDsByKey(row), env.Coder.Requests(fakecoder.EndpointProviderUpdate)
		if err := st.change(); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, pollInterval+testenv.WaitLong, st.name+": Coder to hold the spec's keys", func() (bool, string) {
			row, _ = env.ProviderRowByID(id)
			return testenv.SameKeys(row.PlaintextKeys(), st.want), fmt.Sprintf("%d keys", len(row.APIKeys))
		})
		waitForProviderPolls(t, 1)
		if n := env.Coder.Requests(fakecoder.EndpointProviderUpdate) - patches; n != 1 {
			t.Errorf("%s: %d PATCH requests, want 1", st.name, n)
		}
		after := keyIDsByKey(row)
		for _, k := range st.kept {
			if before[k] != after[k] {
				t.Errorf("%s: a key that did not change moved from id %s to %s", st.name, before[k], after[k])
			}
		}
		testenv.Eventually(t, testenv.WaitLong, st.name+": status to pair Coder's key ids", func() (bool, string) {
			env.Get(t, p)
			return len(p.Status.AtProvider.AppliedAPIKeys) == len(row.APIKeys), fmt.Sprintf("%d pairs", len(p.Status.AtProvider.AppliedAPIKeys))
		})
		wantAppliedKeys(t, p, row)
		wantStatus(t, p, row)
	}
}

// envSeeder is a fake Coder whose environment seeds providers.
type envSeeder interface {
	SetEnvProviders(ps []fakecoder.EnvProvider) error
	SeedFromEnv() error
}

// TestAIProviderLeavesWhatCoderSeedsFromItsEnvironment (issue 34): a
// provider Coder seeds from CODER_AI_GATEWAY_PROVIDER_<N>_* keeps its base
// URL and keys, which coderd hashes at every start, and the condition says
// why and what to do; its display name still follows the spec, and coderd
// would still start.
func TestAIProviderLeavesWhatCoderSeedsFromItsEnvironment(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	seeder, ok := c.(envSeeder)
	if !ok {
		t.Skip("this Coder's environment cannot be set from the test")
	}
	name := testenv.UniqueProviderName("seeded")
	if err := seeder.SetEnvProviders([]fakecoder.EnvProvider{{Type: "openai", Name: name, BaseURL: "https://env.example.com/v1", Keys: []string{"sk-env-seeded-0123456789"}}}); err != nil {
		t.Fatal(err)
	}
	seeded := providersNamed(c, name)[0]
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-spec-key-0123456789"})
	p := newAIProvider(ns, "seeded", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.Name = ptr.To(name)
	p.Spec.ForProvider.DisplayName = ptr.To("From the spec")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	meta.SetExternalName(p, seeded.ID.String())
	env.Create(t, p)

	cond := env.WaitCondition(t, p, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	for _, want := range []string{"is seeded from CODER_AI_GATEWAY_PROVIDER_<N>_*", "baseURL and API keys", "remove them and restart Coder"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("Synced message %q, want it to say %q", cond.Message, want)
		}
	}
	testenv.Eventually(t, testenv.WaitLong, "the display name to follow the spec", func() (bool, string) {
		row := providersNamed(c, name)[0]
		return row.DisplayName == "From the spec", "display name " + row.DisplayName
	})
	row := providersNamed(c, name)[0]
	if row.BaseURL != seeded.BaseURL || !testenv.SameKeys(keyIDsOf(row), keyIDsOf(seeded)) {
		t.Errorf("Coder's base URL %q and key ids %v changed, want the seeded %q and %v", row.BaseURL, keyIDsOf(row), seeded.BaseURL, keyIDsOf(seeded))
	}
	if err := seeder.SeedFromEnv(); err != nil {
		t.Errorf("coderd would refuse to start: %v", err)
	}
	if n := c.Requests(fakecoder.EndpointDeploymentConfig); n != 1 {
		t.Errorf("the deployment config was read %d times, want once: the answer is kept", n)
	}
}
