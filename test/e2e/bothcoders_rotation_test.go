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
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// Drift, Secret-driven provider key rotation and gateway key rotation, on
// both Coders. They read Coder through its API and its store (the fake's,
// or the real server's PostgreSQL), never through the fake's extras.

// readyProviderOn creates an OpenAI provider on c whose API keys are the
// Secret "llm-keys"'s data, in a namespace of its own, and waits for Ready.
func readyProviderOn(t *testing.T, c testenv.Coder, keys map[string]string) (*aiv1alpha1.AIProvider, *corev1.Secret) {
	t.Helper()
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	s := env.Secret(t, ns, "llm-keys", keys)
	p := newAIProvider(ns, "openai", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.DisplayName = ptr.To("OpenAI")
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		p.Spec.ForProvider.APIKeySecretRefs = append(p.Spec.ForProvider.APIKeySecretRefs, ref("llm-keys", k))
	}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return p, s
}

// apiProvider reads the provider through Coder's API.
func apiProvider(t *testing.T, c testenv.Coder, name string) (codersdk.AIProvider, error) {
	t.Helper()
	return c.SDK(t).AIProvider(context.Background(), name)
}

// maskedKeys returns the provider's keys as Coder shows them, sorted.
func maskedKeys(p codersdk.AIProvider) []string {
	out := make([]string, 0, len(p.APIKeys))
	for _, k := range p.APIKeys {
		out = append(out, k.Masked)
	}
	slices.Sort(out)
	return out
}

func providerKeyIDs(p codersdk.AIProvider) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(p.APIKeys))
	for _, k := range p.APIKeys {
		out = append(out, k.ID)
	}
	return out
}

func TestAIProviderDriftIsPutBackOnBothCoders(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		p, _ := readyProviderOn(t, c, map[string]string{"a": "sk-drift-a-k3y9Qm2Xv7La", "b": "sk-drift-b-k3y9Qm2Xv7Lb"})
		name := *p.Spec.ForProvider.Name
		orig, err := apiProvider(t, c, name)
		if err != nil {
			t.Fatal(err)
		}
		masked := maskedKeys(orig)
		if len(masked) != 2 {
			t.Fatalf("Coder shows keys %v, want two", masked)
		}
		// Each edit is what a human does in Coder's UI or API behind the
		// provider's back; the provider must put the spec back.
		drifts := []struct {
			name string
			edit func(codersdk.AIProvider) codersdk.UpdateAIProviderRequest
		}{
			{"displayName", func(codersdk.AIProvider) codersdk.UpdateAIProviderRequest {
				return codersdk.UpdateAIProviderRequest{DisplayName: ptr.To("Edited in the UI")}
			}},
			{"enabled", func(codersdk.AIProvider) codersdk.UpdateAIProviderRequest {
				return codersdk.UpdateAIProviderRequest{Enabled: ptr.To(false)}
			}},
			{"baseURL", func(codersdk.AIProvider) codersdk.UpdateAIProviderRequest {
				return codersdk.UpdateAIProviderRequest{BaseURL: ptr.To("https://proxy.example.com/v1")}
			}},
			{"removedKey", func(got codersdk.AIProvider) codersdk.UpdateAIProviderRequest {
				return codersdk.UpdateAIProviderRequest{APIKeys: &[]codersdk.AIProviderKeyMutation{{ID: &got.APIKeys[0].ID}}}
			}},
			{"addedKey", func(got codersdk.AIProvider) codersdk.UpdateAIProviderRequest {
				muts := []codersdk.AIProviderKeyMutation{{APIKey: ptr.To("sk-smuggled-k3y9Qm2Xv7Ls")}}
				for _, id := range providerKeyIDs(got) {
					muts = append(muts, codersdk.AIProviderKeyMutation{ID: &id})
				}
				return codersdk.UpdateAIProviderRequest{APIKeys: &muts}
			}},
		}
		for _, d := range drifts {
			got, err := apiProvider(t, c, name)
			if err != nil {
				t.Fatal(err)
			}
			asSpecified := func(got codersdk.AIProvider) (bool, string) {
				ok := got.DisplayName == orig.DisplayName && got.Enabled && got.BaseURL == orig.BaseURL && slices.Equal(maskedKeys(got), masked)
				return ok, fmt.Sprintf("display name %q, enabled %t, base URL %q, keys %v", got.DisplayName, got.Enabled, got.BaseURL, maskedKeys(got))
			}
			start := time.Now()
			edited, err := c.SDK(t).UpdateAIProvider(context.Background(), name, d.edit(got))
			if err != nil {
				t.Fatalf("%s: cannot edit the provider in Coder: %v", d.name, err)
			}
			if ok, _ := asSpecified(edited); ok {
				t.Fatalf("%s: the edit left the provider as specified; it tests nothing", d.name)
			}
			// A poll the rate limit sends back waits up to 10 s
			// (fairlimit's maxSendBack) before it asks again.
			testenv.Eventually(t, pollInterval+15*time.Second, d.name+" put back", func() (bool, string) {
				got, err := apiProvider(t, c, name)
				if err != nil {
					return false, err.Error()
				}
				return asSpecified(got)
			})
			t.Logf("drift %-11s put back after %s", d.name, time.Since(start).Round(10*time.Millisecond))
		}
		row, ok := liveProviderNamed(c, name)
		if !ok || row.DisplayName != "OpenAI" || !row.Enabled || row.BaseURL != "https://api.openai.com/v1" {
			t.Errorf("Coder's store holds %+v (found %t) after the drifts, want the spec", redactedRow(row), ok)
		}
	})
}

func TestAIProviderSecretRotationReachesCoderOnBothCoders(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		const oldKey, newKey = "sk-rotate-old-0123456789abcdef", "sk-rotate-new-fedcba9876543210"
		p, s := readyProviderOn(t, c, map[string]string{"key": oldKey})
		name := *p.Spec.ForProvider.Name
		before, err := apiProvider(t, c, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(before.APIKeys) != 1 {
			t.Fatalf("Coder shows %d keys, want 1", len(before.APIKeys))
		}
		fpBefore := p.Status.AtProvider.CredentialsFingerprint

		start := time.Now()
		s.Data["key"] = []byte(newKey)
		if err := env.Kube.Update(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		var after codersdk.AIProvider
		testenv.Eventually(t, testenv.WaitLong, "Coder to show one new key", func() (bool, string) {
			after, err = apiProvider(t, c, name)
			if err != nil {
				return false, err.Error()
			}
			ok := len(after.APIKeys) == 1 && after.APIKeys[0].ID != before.APIKeys[0].ID && after.APIKeys[0].Masked != before.APIKeys[0].Masked
			return ok, fmt.Sprintf("keys %v (before %v)", maskedKeys(after), maskedKeys(before))
		})
		t.Logf("the Secret's new key reached Coder after %s: key %s (%s) replaced %s (%s)", time.Since(start).Round(10*time.Millisecond),
			after.APIKeys[0].ID, after.APIKeys[0].Masked, before.APIKeys[0].ID, before.APIKeys[0].Masked)
		for _, k := range after.APIKeys {
			if k.Masked == oldKey || k.Masked == newKey {
				t.Errorf("Coder's API shows a key unmasked")
			}
		}
		testenv.Eventually(t, testenv.WaitLong, "status to show the new credentials", func() (bool, string) {
			env.Get(t, p)
			fp := p.Status.AtProvider.CredentialsFingerprint
			return fp != "" && fp != fpBefore, "fingerprint " + fp
		})
	})
}

// publishedOn waits until k's connection Secret holds a key c stored
// under an id that is not old, and returns that key's row.
func publishedOn(t *testing.T, c testenv.Coder, k *aiv1alpha1.AIGatewayKey, old string) fakecoder.KeyRow {
	t.Helper()
	var row fakecoder.KeyRow
	testenv.Eventually(t, testenv.WaitLong, "the connection Secret to hold a new key stored in Coder", func() (bool, string) {
		s := connSecret(t, k)
		if s == nil {
			return false, "no Secret"
		}
		id := string(s.Data[aigatewaykey.ConnectionID])
		for _, r := range c.Keys() {
			if r.ID.String() == id && id != old && testenv.StoredKeyIs(c, r, s.Data[aigatewaykey.ConnectionKey]) {
				row = r
				return true, ""
			}
		}
		return false, "Secret holds key " + id
	})
	return row
}

// keyListed reports whether Coder's API lists the key with the id.
func keyListed(t *testing.T, c testenv.Coder, id string) bool {
	t.Helper()
	return slices.Contains(apiKeyIDs(t, c), id)
}

func TestKeyRotationKeepsTheOldKeyThroughTheSettleWindowOnBothCoders(t *testing.T) {
	onBothCodersWithKeys(t, func(t *testing.T, c testenv.Coder) {
		const settle = 10 * time.Second
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		k := rotatingKey(ns, "gateway", 0, settle)
		env.Create(t, k)
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		oldRow := publishedOn(t, c, k, "")
		old := oldRow.ID.String()

		requested := time.Now()
		requestRotation(t, k, "1")
		newRow := publishedOn(t, c, k, old)
		t.Logf("new key published %s after the request", time.Since(requested).Round(time.Millisecond))
		if want := aigatewaykey.RotatedKeyName("", k.Namespace, "gateway", string(k.UID), 1); newRow.Name != want {
			t.Errorf("new key name = %q, want %q", newRow.Name, want)
		}
		if got := string(connSecret(t, k).Data[aigatewaykey.ConnectionPreviousKeyPrefix]); got != oldRow.KeyPrefix {
			t.Errorf("previousKeyPrefix = %q, want the retiring key's prefix %q", got, oldRow.KeyPrefix)
		}

		// The old key stays in Coder, in its store and its API, until the
		// window that began with the new key's creation ends; the last
		// second is left to the clocks of the test and Coder.
		windowEnd := newRow.CreatedAt.Add(settle)
		testenv.Never(t, time.Until(windowEnd)-time.Second, "the old key deleted before its settle window ended", func() (bool, string) {
			return !testenv.LiveKey(c, old) || !keyListed(t, c, old), fmt.Sprintf("deleted %s before the window's end", time.Until(windowEnd).Round(time.Millisecond))
		})
		testenv.Eventually(t, testenv.WaitLong, "the old key to be deleted after the window", func() (bool, string) {
			return !testenv.LiveKey(c, old) && !keyListed(t, c, old), "old key still in Coder"
		})
		t.Logf("old key deleted %s after the new key was created (settle window %s)", time.Since(newRow.CreatedAt).Round(time.Millisecond), settle)
		testenv.Eventually(t, testenv.WaitLong, "the rotation to finish", func() (bool, string) {
			env.Get(t, k)
			r := k.Status.AtProvider.Rotation
			recs := recordsOf(t, k)
			return r != nil && r.RetiringKeyID == "" && r.LastRotatedAt != nil && len(recs) == 1 && meta.GetExternalName(k) == newRow.ID.String(),
				fmt.Sprintf("rotation %+v, records %v", r, recs)
		})
		var ids []string
		for _, r := range c.Keys() {
			if isKeyOf(k)(r.Name) {
				ids = append(ids, r.ID.String())
			}
		}
		if len(ids) != 1 || ids[0] != newRow.ID.String() || !keyListed(t, c, ids[0]) {
			t.Errorf("keys of the resource in Coder after the rotation = %v, want only the new one %s", ids, newRow.ID)
		}
	})
}

// TestRotatingAnImportedKeyRetiresItOnBothCoders: a key made in Coder by
// hand and imported by external name stays the resource's once a rotation
// moves the external name to the new key. Its cleanup record proves it:
// the settle window's end deletes it, and deleting the resource inside the
// window deletes it with the new key. Found by interleaving seed 6, where
// the imported key outlived its resource.
func TestRotatingAnImportedKeyRetiresItOnBothCoders(t *testing.T) {
	onBothCodersWithKeys(t, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		imported := func(name string, settle time.Duration) (*aiv1alpha1.AIGatewayKey, string) {
			made, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "by-hand-" + name + "-" + strings.SplitN(ns, "-", 2)[0]})
			if err != nil {
				t.Fatal(err)
			}
			k := rotatingKey(ns, name, 0, settle)
			meta.SetExternalName(k, made.ID.String())
			env.Create(t, k)
			env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
			return k, made.ID.String()
		}
		retired, retiredID := imported("retired", 8*time.Second)
		deleted, deletedID := imported("deleted", 10*time.Minute)
		for _, k := range []*aiv1alpha1.AIGatewayKey{retired, deleted} {
			requestRotation(t, k, "1")
		}
		rotating := func(k *aiv1alpha1.AIGatewayKey, old string) string {
			var id string
			testenv.Eventually(t, testenv.WaitLong, "the rotation to retire the imported key", func() (bool, string) {
				env.Get(t, k)
				r := k.Status.AtProvider.Rotation
				id = k.Status.AtProvider.ID
				return r != nil && r.Counter == 1 && id != old && (r.RetiringKeyID == old || r.LastRotatedAt != nil),
					fmt.Sprintf("imported %s, atProvider.id %s, rotation %+v", old, id, r)
			})
			return id
		}
		newID := rotating(deleted, deletedID)
		rotating(retired, retiredID)

		env.Delete(t, deleted)
		env.WaitGone(t, deleted, testenv.WaitLong)
		for _, id := range []string{deletedID, newID} {
			if testenv.LiveKey(c, id) {
				t.Errorf("key %s of the resource deleted inside its settle window is still in Coder", id)
			}
		}

		testenv.Eventually(t, testenv.WaitLong, "the imported key to retire and its record to go", func() (bool, string) {
			env.Get(t, retired)
			r := retired.Status.AtProvider.Rotation
			recs := recordsOf(t, retired)
			live := testenv.LiveKey(c, retiredID)
			return !live && r != nil && r.LastRotatedAt != nil && r.RetiringKeyID == "" && len(recs) == 1,
				fmt.Sprintf("imported key live %v, rotation %+v, records %v", live, r, recs)
		})
	})
}
