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

package aiprovider

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

func keysSecret(values map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "openai-keys"}, Data: map[string][]byte{}}
	for k, v := range values {
		s.Data[k] = []byte(v)
	}
	return s
}

// idsByKey maps each plaintext Coder holds to its key id.
func idsByKey(row fakecoder.ProviderRow) map[string]string {
	out := map[string]string{}
	for _, k := range row.APIKeys {
		out[k.APIKey] = k.ID.String()
	}
	return out
}

func TestChangingSomeKeysKeepsTheIDsOfTheOthers(t *testing.T) {
	ctx := context.Background()
	p := liveProvider("")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{{Name: "openai-keys", Key: "a"}, {Name: "openai-keys", Key: "b"}, {Name: "openai-keys", Key: "c"}}
	f := newFixture(t, p, keysSecret(map[string]string{"a": keyA, "b": keyB, "c": keyC}))
	steps := []struct {
		reason string
		secret map[string]string
		refs   []string
		// kept are the plaintexts whose ids must not change.
		kept []string
	}{
		{reason: "one of three rotated", secret: map[string]string{"a": keyA, "b": keyB2, "c": keyC}, refs: []string{"a", "b", "c"}, kept: []string{keyA, keyC}},
		{reason: "two rotated at once", secret: map[string]string{"a": keyD, "b": keyB2, "c": keyB}, refs: []string{"a", "b", "c"}, kept: []string{keyB2}},
		{reason: "one reference removed", secret: map[string]string{"a": keyD, "b": keyB2, "c": keyB}, refs: []string{"a", "c"}, kept: []string{keyD, keyB}},
	}
	cur := f.created(t)
	for _, s := range steps {
		before := idsByKey(f.srv.Providers(false)[0])
		if err := f.ext.kube.Update(ctx, keysSecret(s.secret)); err != nil {
			t.Fatal(err)
		}
		cur.Spec.ForProvider.APIKeySecretRefs = nil
		for _, r := range s.refs {
			cur.Spec.ForProvider.APIKeySecretRefs = append(cur.Spec.ForProvider.APIKeySecretRefs, common.LocalSecretKeySelector{Name: "openai-keys", Key: r})
		}
		if _, err := f.ext.Observe(ctx, cur); err != nil {
			t.Fatalf("%s: Observe: %v", s.reason, err)
		}
		if _, err := f.ext.Update(ctx, cur); err != nil {
			t.Fatalf("%s: Update: %v", s.reason, err)
		}
		row := f.srv.Providers(false)[0]
		var want []string
		for _, r := range s.refs {
			want = append(want, s.secret[r])
		}
		if !cmp.Equal(slices.Sorted(slices.Values(row.PlaintextKeys())), slices.Sorted(slices.Values(want))) {
			t.Fatalf("%s: Coder holds %d keys, not exactly the spec's %d", s.reason, len(row.APIKeys), len(want))
		}
		after := idsByKey(row)
		for _, k := range s.kept {
			if before[k] != after[k] {
				t.Errorf("%s: an unchanged key's id changed from %s to %s", s.reason, before[k], after[k])
			}
		}
		wantApplied(t, s.reason, cur, row)
	}
}

// wantApplied checks that p's status pairs each of Coder's key ids with
// the fingerprint of the key Coder holds under it, and holds no key.
func wantApplied(t *testing.T, reason string, p *aiv1alpha1.AIProvider, row fakecoder.ProviderRow) {
	t.Helper()
	var want []common.AppliedAPIKey
	for _, k := range row.APIKeys {
		want = append(want, common.AppliedAPIKey{ID: k.ID.String(), Fingerprint: KeyFingerprint(testKey, testUID, k.APIKey)})
	}
	if diff := cmp.Diff(want, p.Status.AtProvider.AppliedAPIKeys); diff != "" {
		t.Errorf("%s: status.atProvider.appliedAPIKeys: -Coder's, +status:\n%s", reason, diff)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range row.PlaintextKeys() {
		if strings.Contains(string(b), k) {
			t.Errorf("%s: the resource carries a key", reason)
		}
	}
}

func TestAStatusOfAnEarlierReleaseIsPairedWithoutSendingAnything(t *testing.T) {
	ctx := context.Background()
	p := liveProvider("")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{{Name: "openai-keys", Key: "a"}, {Name: "openai-keys", Key: "b"}}
	f := newFixture(t, p, keysSecret(map[string]string{"a": keyA, "b": keyB}))
	cur := f.created(t)
	// An earlier release recorded the ids and the fingerprint only.
	cur.Status.AtProvider.AppliedAPIKeys = nil
	before := f.srv.Requests(fakecoder.EndpointProviderUpdate)
	obs, err := f.ext.Observe(ctx, cur)
	if err != nil || !obs.ResourceUpToDate {
		t.Fatalf("Observe = %+v, %v: want up to date", obs, err)
	}
	if n := f.srv.Requests(fakecoder.EndpointProviderUpdate) - before; n != 0 {
		t.Errorf("%d PATCH requests, want none", n)
	}
	wantApplied(t, "upgraded", cur, f.srv.Providers(false)[0])

	if err := f.ext.kube.Update(ctx, keysSecret(map[string]string{"a": keyA, "b": keyB2})); err != nil {
		t.Fatal(err)
	}
	kept := idsByKey(f.srv.Providers(false)[0])[keyA]
	if _, err := f.ext.Observe(ctx, cur); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ext.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	if got := idsByKey(f.srv.Providers(false)[0])[keyA]; got != kept {
		t.Errorf("after the upgrade, rotating another key moved the unchanged one from id %s to %s", kept, got)
	}
}
