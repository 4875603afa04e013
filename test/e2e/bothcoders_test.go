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
	"slices"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The scenarios here need no fault injection, so they run unchanged on the
// fake and on the real Coder server: what passes on the fake must pass on
// the real thing.

// onBothCoders runs scenario against the fake ("fake") and the real Coder
// ("real"; skipped when it is not built or the provider cannot reach it, as
// in kind; failed under PROVIDER_CODER_REQUIRE_CODER when it is not built). A scenario with keys asks c.ServesKeys:
// the real Coder serves them only with a licence.
func onBothCoders(t *testing.T, scenario func(t *testing.T, c testenv.Coder)) {
	t.Run("fake", func(t *testing.T) { scenario(t, env.Cluster.Coder(t)) })
	t.Run("real", func(t *testing.T) { scenario(t, env.Cluster.RealCoder(t)) })
}

// onBothCodersWithKeys is onBothCoders for a scenario about AI Gateway
// keys: on the real Coder it skips unless a licence was supplied.
func onBothCodersWithKeys(t *testing.T, scenario func(t *testing.T, c testenv.Coder)) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		testenv.SkipUnlessServesKeys(t, c)
		scenario(t, c)
	})
}

func TestKeyIsCreatedPublishedAndDeletedOnBothCoders(t *testing.T) {
	onBothCodersWithKeys(t, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		k := newKey(ns, "gateway")
		env.Create(t, k)
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

		name := aigatewaykey.DerivedName(k)
		rows := testenv.KeysNamed(c, name)
		if len(rows) != 1 {
			t.Fatalf("Coder holds %d keys named %q, want 1", len(rows), name)
		}
		row := rows[0]
		id := row.ID.String()
		if got := meta.GetExternalName(k); got != id {
			t.Errorf("external name = %q, want the Coder key id %s", got, id)
		}
		if at := k.Status.AtProvider; at.ID != id || at.Name != name || at.KeyPrefix != row.KeyPrefix {
			t.Errorf("status.atProvider = %+v, want id %s name %s keyPrefix %s", at, id, name, row.KeyPrefix)
		}
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gateway-conn"}}
		testenv.Eventually(t, testenv.WaitLong, "the connection Secret", func() (bool, string) {
			return env.Get(t, s) && len(s.Data[aigatewaykey.ConnectionKey]) > 0, fmt.Sprintf("keys %v", keysOf(s.Data))
		})
		if !testenv.StoredKeyIs(c, row, s.Data[aigatewaykey.ConnectionKey]) {
			t.Errorf("the connection Secret's key is not the key Coder stored")
		}
		if ids := apiKeyIDs(t, c); !slices.Contains(ids, id) {
			t.Errorf("Coder's API lists keys %v, not the key %s", ids, id)
		}

		env.Delete(t, k)
		env.WaitGone(t, k, testenv.WaitLong)
		if n := len(testenv.KeysNamed(c, name)); n != 0 {
			t.Errorf("Coder's store holds %d keys named %q after the delete, want 0", n, name)
		}
		if ids := apiKeyIDs(t, c); slices.Contains(ids, id) {
			t.Errorf("Coder's API still lists the key %s after the delete", id)
		}
	})
}

func TestAIProviderIsCreatedAsSpecifiedAndSoftDeletedOnBothCoders(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		env.Secret(t, ns, "llm-keys", map[string]string{"openai": "sk-lifecycle-k3y9Qm2Xv7Lp"})
		p := newAIProvider(ns, "openai", "openai", "https://api.openai.com/v1")
		p.Spec.ForProvider.DisplayName = ptr.To("OpenAI")
		p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("llm-keys", "openai")}
		env.Create(t, p)
		env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		name := *p.Spec.ForProvider.Name
		id := meta.GetExternalName(p)

		row, ok := liveProviderNamed(c, name)
		if !ok || row.ID.String() != id || row.Type != "openai" || row.BaseURL != "https://api.openai.com/v1" || row.DisplayName != "OpenAI" || !row.Enabled {
			t.Fatalf("Coder's store holds %+v (found %t), want the provider %s as specified", row, ok, id)
		}
		sdk := c.SDK(t)
		ctx := context.Background()
		got, err := sdk.AIProvider(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.APIKeys) != 1 || got.APIKeys[0].Masked == "" || got.APIKeys[0].Masked == "sk-lifecycle-k3y9Qm2Xv7Lp" {
			t.Errorf("Coder's API shows keys %+v, want one masked key", got.APIKeys)
		}

		// A change of the spec reaches Coder; a change in Coder is put back.
		if err := env.Update(t, p, func() { p.Spec.ForProvider.DisplayName = ptr.To("Open AI") }); err != nil {
			t.Fatal(err)
		}
		waitDisplayName(t, sdk, name, "Open AI")
		if _, err := sdk.UpdateAIProvider(ctx, name, codersdk.UpdateAIProviderRequest{DisplayName: ptr.To("edited by hand")}); err != nil {
			t.Fatal(err)
		}
		waitDisplayName(t, sdk, name, "Open AI")

		env.Delete(t, p)
		env.WaitGone(t, p, testenv.WaitLong)
		if _, ok := liveProviderNamed(c, name); ok {
			t.Errorf("Coder's store still holds a live provider %q after the delete", name)
		}
		if !slices.ContainsFunc(c.Providers(true), func(r fakecoder.ProviderRow) bool { return r.ID.String() == id && r.Deleted }) {
			t.Errorf("Coder's store holds no soft-deleted provider %s", id)
		}
		if _, err := sdk.AIProvider(ctx, id); !testenv.IsNotFound(err) {
			t.Errorf("GET provider %s after the delete = %v, want 404", id, err)
		}
	})
}

func TestNamespaceDeletionWithCoderUpLeavesNoRowsOnBothCoders(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		env.Secret(t, ns, "llm-keys", map[string]string{"openai": "sk-nsdel-k3y9Qm2Xv7Lp", "anthropic": "sk-ant-nsdel-k3y9Qm2Xv7Lp"})
		// Keys only where Coder serves them: the real Coder without a
		// licence runs the providers' half.
		var keys []*aiv1alpha1.AIGatewayKey
		if c.ServesKeys() {
			keys = []*aiv1alpha1.AIGatewayKey{newKey(ns, "gateway-a"), newKey(ns, "gateway-b")}
		}
		openai := newAIProvider(ns, "openai", "openai", "https://api.openai.com/v1")
		openai.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("llm-keys", "openai")}
		anthropic := newAIProvider(ns, "anthropic", "anthropic", "https://api.anthropic.com/")
		anthropic.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("llm-keys", "anthropic")}
		providers := []*aiv1alpha1.AIProvider{openai, anthropic}
		for _, k := range keys {
			env.Create(t, k)
		}
		for _, p := range providers {
			env.Create(t, p)
		}
		var keyNames, providerNames []string
		for _, k := range keys {
			env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
			keyNames = append(keyNames, aigatewaykey.DerivedName(k))
		}
		for _, p := range providers {
			env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
			providerNames = append(providerNames, *p.Spec.ForProvider.Name)
		}
		if k, p := countRows(t, c, keyNames, providerNames); k != len(keys) || p != 2 {
			t.Fatalf("before the deletion Coder holds %d keys and %d providers of the namespace, want %d and 2", k, p, len(keys))
		}

		start := time.Now()
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		env.Delete(t, namespace)
		env.WaitGone(t, namespace, 2*time.Minute)
		t.Logf("namespace with %d keys and 2 providers deleted in %s", len(keys), time.Since(start).Round(100*time.Millisecond))
		if k, p := countRows(t, c, keyNames, providerNames); k != 0 || p != 0 {
			t.Errorf("after the namespace deletion Coder holds %d keys and %d live providers of the namespace, want 0 and 0", k, p)
		}
	})
}

// countRows counts the keys and live providers with the names, in Coder's
// store (the fake's, or the real server's PostgreSQL) and in its API; it
// fails t when the two disagree.
func countRows(t *testing.T, c testenv.Coder, keyNames, providerNames []string) (keys, providers int) {
	t.Helper()
	for _, k := range c.Keys() {
		if slices.Contains(keyNames, k.Name) {
			keys++
		}
	}
	for _, p := range c.Providers(false) {
		if slices.Contains(providerNames, p.Name) {
			providers++
		}
	}
	ctx := context.Background()
	var apiKeys []codersdk.AIGatewayKey
	if c.ServesKeys() {
		// Without a licence the keys API answers 403; the store (read
		// above) still shows that no key was made.
		var err error
		if apiKeys, err = c.SDK(t).ListAIGatewayKeys(ctx); err != nil {
			t.Fatal(err)
		}
	}
	apiProviders, err := c.SDK(t).AIProviders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inAPI := [2]int{}
	for _, k := range apiKeys {
		if slices.Contains(keyNames, k.Name) {
			inAPI[0]++
		}
	}
	for _, p := range apiProviders {
		if slices.Contains(providerNames, p.Name) {
			inAPI[1]++
		}
	}
	if inAPI != [2]int{keys, providers} {
		t.Errorf("Coder's API shows %d keys and %d providers, its store %d and %d", inAPI[0], inAPI[1], keys, providers)
	}
	return keys, providers
}

func apiKeyIDs(t *testing.T, c testenv.Coder) []string {
	t.Helper()
	keys, err := c.SDK(t).ListAIGatewayKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k.ID.String())
	}
	return out
}

func liveProviderNamed(c testenv.Coder, name string) (fakecoder.ProviderRow, bool) {
	for _, p := range c.Providers(false) {
		if p.Name == name {
			return p, true
		}
	}
	return fakecoder.ProviderRow{}, false
}

func waitDisplayName(t *testing.T, sdk *codersdk.Client, name, want string) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, fmt.Sprintf("provider %s's display name to be %q", name, want), func() (bool, string) {
		p, err := sdk.AIProvider(context.Background(), name)
		if err != nil {
			return false, err.Error()
		}
		return p.DisplayName == want, fmt.Sprintf("display name %q", p.DisplayName)
	})
}
