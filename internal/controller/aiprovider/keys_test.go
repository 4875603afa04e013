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
	"testing"

	aibridgeutils "github.com/coder/coder/v2/aibridge/utils"
	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"k8s.io/utils/ptr"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// The three keys of the tests, and one each to rotate and add.
const (
	keyA  = "sk-alpha-0123456789-aaaa"
	keyB  = "sk-bravo-0123456789-bbbb"
	keyC  = "sk-charlie-012345678-cccc"
	keyB2 = "sk-bravo-rotated-0001-bbb2"
	keyD  = "sk-delta-0123456789-dddd"
)

var keyX = uuid.MustParse("99999999-9999-4999-8999-999999999999")

// desiredKeys is an OpenAI provider's desired state with keys, fingerprinted
// as the external client does.
func desiredKeys(keys ...string) Desired {
	c := Credentials{APIKeys: keys}
	return Desired{
		Request:            codersdk.CreateAIProviderRequest{Type: "openai", Name: "openai", Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: keys},
		Fingerprint:        Fingerprint(testKey, testUID, c),
		APIKeyFingerprints: KeyFingerprints(testKey, testUID, keys),
	}
}

func coderKey(id uuid.UUID, plain string) codersdk.AIProviderKey {
	return codersdk.AIProviderKey{ID: id, Masked: aibridgeutils.MaskSecret(plain)}
}

func appliedKey(id uuid.UUID, plain string) common.AppliedAPIKey {
	return common.AppliedAPIKey{ID: id.String(), Fingerprint: KeyFingerprint(testKey, testUID, plain)}
}

// threeKeys is Coder holding keyA, keyB and keyC under key1..3, as this
// resource applied them.
func threeKeys() (Desired, codersdk.AIProvider, Applied) {
	want := desiredKeys(keyA, keyB, keyC)
	got := codersdk.AIProvider{Type: "openai", Name: "openai", DisplayName: "openai", Enabled: true, BaseURL: "https://api.openai.com/v1",
		APIKeys: []codersdk.AIProviderKey{coderKey(key1, keyA), coderKey(key2, keyB), coderKey(key3, keyC)}}
	return want, got, Applied{Fingerprint: want.Fingerprint, KeyIDs: []string{key1.String(), key2.String(), key3.String()},
		Keys: []common.AppliedAPIKey{appliedKey(key1, keyA), appliedKey(key2, keyB), appliedKey(key3, keyC)}}
}

func keep(id uuid.UUID) codersdk.AIProviderKeyMutation {
	return codersdk.AIProviderKeyMutation{ID: ptr.To(id)}
}

func send(plain string) codersdk.AIProviderKeyMutation {
	return codersdk.AIProviderKeyMutation{APIKey: ptr.To(plain)}
}

func TestDiffKeepsEveryUnchangedKeyByID(t *testing.T) {
	cases := map[string]struct {
		reason string
		setup  func() (Desired, codersdk.AIProvider, Applied)
		want   []codersdk.AIProviderKeyMutation
	}{
		"InSync": {
			reason: "nothing changed: no key list at all",
			setup:  threeKeys,
		},
		"OneOfThreeRotated": {
			reason: "only the changed key is sent; the others keep their ids, so Coder keeps their cooldowns",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) {
				*w = desiredKeys(keyA, keyB2, keyC)
			}),
			want: []codersdk.AIProviderKeyMutation{keep(key1), send(keyB2), keep(key3)},
		},
		"OneRemovedFromSpec": {
			reason: "a key the spec no longer has is left out, which deletes it; nothing is sent",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) {
				*w = desiredKeys(keyA, keyC)
			}),
			want: []codersdk.AIProviderKeyMutation{keep(key1), keep(key3)},
		},
		"OneAddedToSpec": {
			reason: "only the new key is sent",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) {
				*w = desiredKeys(keyA, keyB, keyC, keyD)
			}),
			want: []codersdk.AIProviderKeyMutation{keep(key1), keep(key2), keep(key3), send(keyD)},
		},
		"ReorderedInSpec": {
			reason: "a reordered spec changes no fingerprint: nothing is sent",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) {
				*w = desiredKeys(keyC, keyA, keyB)
			}),
		},
		"RemovedInCoder": {
			reason: "a key deleted in Coder is sent again; the others stay",
			setup: edit(threeKeys, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.APIKeys = []codersdk.AIProviderKey{g.APIKeys[0], g.APIKeys[2]}
			}),
			want: []codersdk.AIProviderKeyMutation{keep(key1), send(keyB), keep(key3)},
		},
		"AddedInCoder": {
			reason: "a key added in Coder is dropped; ours are kept, and no plaintext is sent",
			setup: edit(threeKeys, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.APIKeys = append(g.APIKeys, coderKey(keyX, keyD))
			}),
			want: []codersdk.AIProviderKeyMutation{keep(key1), keep(key2), keep(key3)},
		},
		"StatusOfAnEarlierRelease": {
			reason: "no key fingerprints recorded: every key is sent, as before",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, a *Applied) {
				*w, a.Keys = desiredKeys(keyA, keyB2, keyC), nil
			}),
			want: []codersdk.AIProviderKeyMutation{send(keyA), send(keyB2), send(keyC)},
		},
		"FingerprintOfAnIDNotApplied": {
			reason: "a fingerprint recorded for an id that is not among the applied ones proves nothing: that key is sent",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, a *Applied) {
				*w, a.KeyIDs = desiredKeys(keyA, keyB2, keyC), a.KeyIDs[1:]
			}),
			want: []codersdk.AIProviderKeyMutation{send(keyA), send(keyB2), keep(key3)},
		},
		"FingerprintKeyReplaced": {
			reason: "a new fingerprint key changes every fingerprint: every key is sent once",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) {
				w.Fingerprint, w.APIKeyFingerprints = "hmac-sha256:new", KeyFingerprints([]byte("another-fingerprint-key-0123456789"), testUID, w.Request.APIKeys)
			}),
			want: []codersdk.AIProviderKeyMutation{send(keyA), send(keyB), send(keyC)},
		},
		"SameKeyTwice": {
			reason: "one id keeps one occurrence: a key listed twice is held twice",
			setup: edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) {
				*w = desiredKeys(keyA, keyA, keyC)
			}),
			want: []codersdk.AIProviderKeyMutation{keep(key1), send(keyA), keep(key3)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, g, a := tc.setup()
			d := Diff(w, g, a)
			var got []codersdk.AIProviderKeyMutation
			if d.Patch.APIKeys != nil {
				got = *d.Patch.APIKeys
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nkey list: -want, +got:\n%s", tc.reason, diff)
			}
			if d.SendsAPIKeys != (tc.want != nil) {
				t.Errorf("%s\nSendsAPIKeys = %t", tc.reason, d.SendsAPIKeys)
			}
			if vs := d.Patch.Validate(); len(vs) > 0 {
				t.Errorf("%s\nthe patch fails codersdk's own validation: %v", tc.reason, vs)
			}
		})
	}
}

func TestAppliedKeysPairsANewIDOnlyWhenNothingElseFits(t *testing.T) {
	kept := []common.AppliedAPIKey{appliedKey(key1, keyA)}
	cases := map[string]struct {
		reason string
		want   Desired
		plan   KeyPlan
		got    []codersdk.AIProviderKey
		out    []common.AppliedAPIKey
	}{
		"OneAdded": {
			reason: "one key sent, one new id: it is that key's",
			want:   desiredKeys(keyA, keyB), plan: KeyPlan{Kept: kept, Added: []int{1}},
			got: []codersdk.AIProviderKey{coderKey(key1, keyA), coderKey(key2, "sk-unrelated-mask")},
			out: []common.AppliedAPIKey{appliedKey(key1, keyA), appliedKey(key2, keyB)},
		},
		"TwoAddedWithDistinctMasks": {
			reason: "two keys sent: Coder orders them by random id, so each is paired by its mask",
			want:   desiredKeys(keyA, keyB, keyC), plan: KeyPlan{Kept: kept, Added: []int{1, 2}},
			got: []codersdk.AIProviderKey{coderKey(key1, keyA), coderKey(key2, keyC), coderKey(key3, keyB)},
			out: []common.AppliedAPIKey{appliedKey(key1, keyA), appliedKey(key2, keyC), appliedKey(key3, keyB)},
		},
		"TwoAddedWithTheSameMask": {
			reason: "two keys that mask alike cannot be told apart: neither is paired, and both are sent at the next change",
			want:   desiredKeys(keyA, "sk-bravo-0000000000-zzzz", "sk-bravo-1111111111-zzzz"), plan: KeyPlan{Kept: kept, Added: []int{1, 2}},
			got: []codersdk.AIProviderKey{coderKey(key1, keyA), coderKey(key2, "sk-bravo-1111111111-zzzz"), coderKey(key3, "sk-bravo-0000000000-zzzz")},
			out: []common.AppliedAPIKey{appliedKey(key1, keyA)},
		},
		"MasksCoderDoesNotShow": {
			reason: "masks that match none of the keys sent pair nothing",
			want:   desiredKeys(keyA, keyB, keyC), plan: KeyPlan{Kept: kept, Added: []int{1, 2}},
			got: []codersdk.AIProviderKey{coderKey(key1, keyA), {ID: key2, Masked: "..."}, {ID: key3, Masked: "..."}},
			out: []common.AppliedAPIKey{appliedKey(key1, keyA)},
		},
		"SomeoneAddedAKeyMeanwhile": {
			reason: "more new ids than keys sent: someone else wrote too, and no new id is paired",
			want:   desiredKeys(keyA, keyB), plan: KeyPlan{Kept: kept, Added: []int{1}},
			got: []codersdk.AIProviderKey{coderKey(key1, keyA), coderKey(key2, keyB), coderKey(keyX, keyD)},
			out: []common.AppliedAPIKey{appliedKey(key1, keyA)},
		},
		"Create": {
			reason: "a create sends every key",
			want:   desiredKeys(keyA, keyB), plan: CreatePlan(desiredKeys(keyA, keyB)),
			got: []codersdk.AIProviderKey{coderKey(key2, keyB), coderKey(key1, keyA)},
			out: []common.AppliedAPIKey{appliedKey(key2, keyB), appliedKey(key1, keyA)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.out, AppliedKeys(tc.want, tc.plan, tc.got)); diff != "" {
				t.Errorf("%s\nAppliedKeys: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestUpgradeKeysPairsAnEarlierReleasesStatusOnlyWhenCoderHoldsWhatItSent(t *testing.T) {
	legacy := func(mutate func(*Desired, *codersdk.AIProvider, *Applied)) func() (Desired, codersdk.AIProvider, Applied) {
		return edit(threeKeys, func(w *Desired, g *codersdk.AIProvider, a *Applied) {
			a.Keys = nil
			mutate(w, g, a)
		})
	}
	paired := []common.AppliedAPIKey{appliedKey(key1, keyA), appliedKey(key2, keyB), appliedKey(key3, keyC)}
	cases := map[string]struct {
		reason string
		setup  func() (Desired, codersdk.AIProvider, Applied)
		want   []common.AppliedAPIKey
		ok     bool
	}{
		"Unchanged": {
			reason: "the keys last sent, under the ids reported then: each id is paired by its mask",
			setup:  legacy(func(*Desired, *codersdk.AIProvider, *Applied) {}),
			want:   paired, ok: true,
		},
		"OnePairedAlready": {
			reason: "the ids without a fingerprint are paired with the keys left",
			setup: legacy(func(_ *Desired, _ *codersdk.AIProvider, a *Applied) {
				a.Keys = []common.AppliedAPIKey{appliedKey(key2, keyB)}
			}),
			want: []common.AppliedAPIKey{appliedKey(key1, keyA), appliedKey(key2, keyB), appliedKey(key3, keyC)}, ok: true,
		},
		"CredentialsChanged": {
			reason: "the Secrets changed since: Coder does not hold the spec's keys, and nothing is paired",
			setup: legacy(func(w *Desired, _ *codersdk.AIProvider, _ *Applied) {
				*w = desiredKeys(keyA, keyB2, keyC)
			}),
		},
		"KeyAddedInCoder": {
			reason: "Coder holds another id than reported: nothing is paired",
			setup: legacy(func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.APIKeys = append(g.APIKeys, coderKey(keyX, keyD))
			}),
		},
		"KeyReplacedInCoderWithOneThatMasksAlike": {
			reason: "an id Coder did not report holds a key that merely masks like the spec's: it is not paired",
			setup: legacy(func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.APIKeys[1] = coderKey(keyX, keyB)
			}),
		},
		"AllPaired": {
			reason: "a status of this release needs nothing",
			setup:  threeKeys,
			want:   paired,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, g, a := tc.setup()
			got, ok := UpgradeKeys(a, w, g)
			if ok != tc.ok {
				t.Errorf("%s\nUpgradeKeys ok = %t, want %t", tc.reason, ok, tc.ok)
			}
			want := a.Keys
			if tc.ok {
				want = tc.want
			}
			if diff := cmp.Diff(want, got.Keys); diff != "" {
				t.Errorf("%s\nkeys: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
