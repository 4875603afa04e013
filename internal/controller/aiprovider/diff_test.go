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
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"k8s.io/utils/ptr"
)

var (
	key1 = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	key2 = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	key3 = uuid.MustParse("33333333-3333-4333-8333-333333333333")
)

// openAI is a desired OpenAI provider with two keys, and the Coder row that
// matches it after the keys were applied.
func openAI() (Desired, codersdk.AIProvider, Applied) {
	want := Desired{
		Request: codersdk.CreateAIProviderRequest{
			Type: "openai", Name: "openai", DisplayName: "OpenAI", Icon: "/icon/openai.svg",
			Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: []string{"sk-1", "sk-2"},
		},
		Fingerprint: "sha256:current",
	}
	got := codersdk.AIProvider{
		ID: uuid.New(), Type: "openai", Name: "openai", DisplayName: "OpenAI", Icon: "/icon/openai.svg",
		Enabled: true, BaseURL: "https://api.openai.com/v1",
		APIKeys: []codersdk.AIProviderKey{{ID: key2, Masked: "..."}, {ID: key1, Masked: "..."}},
	}
	return want, got, Applied{Fingerprint: "sha256:current", KeyIDs: []string{key1.String(), key2.String()}}
}

// bedrock is a desired Bedrock provider with an access key pair, and its
// matching Coder row.
func bedrock() (Desired, codersdk.AIProvider, Applied) {
	want := Desired{
		Request: codersdk.CreateAIProviderRequest{
			Type: "bedrock", Name: "bedrock", Enabled: true, BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com",
			Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
				Region: "us-east-1", Model: "claude", SmallFastModel: "haiku", RoleARN: "arn:aws:iam::1:role/r",
				AccessKey: ptr.To("AKIA"), AccessKeySecret: ptr.To("secret"),
			}},
		},
		Fingerprint: "sha256:pair",
	}
	got := codersdk.AIProvider{
		ID: uuid.New(), Type: "bedrock", Name: "bedrock", DisplayName: "bedrock", Enabled: true,
		BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com", APIKeys: []codersdk.AIProviderKey{},
		Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
			Region: "us-east-1", Model: "claude", SmallFastModel: "haiku", RoleARN: "arn:aws:iam::1:role/r",
			ExternalID: "SERVERGENERATED", Protocol: "invoke-model",
		}},
	}
	return want, got, Applied{Fingerprint: "sha256:pair"}
}

func keyMutations(keys ...string) *[]codersdk.AIProviderKeyMutation {
	out := []codersdk.AIProviderKeyMutation{}
	for _, k := range keys {
		out = append(out, codersdk.AIProviderKeyMutation{APIKey: ptr.To(k)})
	}
	return &out
}

// edit returns a case's setup: a base pair changed by mutate.
func edit(base func() (Desired, codersdk.AIProvider, Applied), mutate func(*Desired, *codersdk.AIProvider, *Applied)) func() (Desired, codersdk.AIProvider, Applied) {
	return func() (Desired, codersdk.AIProvider, Applied) {
		w, g, a := base()
		mutate(&w, &g, &a)
		return w, g, a
	}
}

func TestDiffPatchesOnlyWhatDiffers(t *testing.T) {
	type want struct {
		fields           []string
		patch            codersdk.UpdateAIProviderRequest
		sendsAPIKeys     bool
		sendsCredentials bool
		unfixable        int
	}
	cases := map[string]struct {
		reason string
		setup  func() (Desired, codersdk.AIProvider, Applied)
		want   want
	}{
		"InSync": {
			reason: "Coder matches: nothing to send, whatever order Coder lists the keys in",
			setup:  openAI,
		},
		"DisplayNameUnsetShowsName": {
			reason: "Coder reports the name when no display name is stored; that is no drift",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				w.Request.DisplayName, g.DisplayName = "", "openai"
			}),
		},
		"DisplayNameSetInCoderWhileSpecLeavesItUnset": {
			reason: "a display name added in Coder is cleared again (an empty one makes Coder show the name)",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				w.Request.DisplayName, g.DisplayName = "", "Renamed by hand"
			}),
			want: want{fields: []string{DriftDisplayName}, patch: codersdk.UpdateAIProviderRequest{DisplayName: ptr.To("")}},
		},
		"DisplayNameEdited": {
			reason: "only the display name is sent",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.DisplayName = "Renamed by hand"
			}),
			want: want{fields: []string{DriftDisplayName}, patch: codersdk.UpdateAIProviderRequest{DisplayName: ptr.To("OpenAI")}},
		},
		"DisabledAndMovedInCoder": {
			reason: "two drifts, one PATCH with both fields",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.Enabled, g.BaseURL, g.Icon = false, "https://evil.example.com/v1", ""
			}),
			want: want{
				fields: []string{DriftIcon, DriftEnabled, DriftBaseURL},
				patch:  codersdk.UpdateAIProviderRequest{Icon: ptr.To("/icon/openai.svg"), Enabled: ptr.To(true), BaseURL: ptr.To("https://api.openai.com/v1")},
			},
		},
		"KeyRemovedInCoder": {
			reason: "Coder's key ids no longer match the applied ones: every key is sent again, replacing the set",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.APIKeys = g.APIKeys[:1]
			}),
			want: want{fields: []string{DriftAPIKeys}, patch: codersdk.UpdateAIProviderRequest{APIKeys: keyMutations("sk-1", "sk-2")}, sendsAPIKeys: true, sendsCredentials: true},
		},
		"KeyAddedInCoder": {
			reason: "a key added by hand is replaced by the spec's keys",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.APIKeys = append(g.APIKeys, codersdk.AIProviderKey{ID: key3})
			}),
			want: want{fields: []string{DriftAPIKeys}, patch: codersdk.UpdateAIProviderRequest{APIKeys: keyMutations("sk-1", "sk-2")}, sendsAPIKeys: true, sendsCredentials: true},
		},
		"SecretRotated": {
			reason: "the Secret's value changed (fingerprint differs) although Coder's ids did not",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				w.Request.APIKeys[1], w.Fingerprint = "sk-2-rotated", "sha256:rotated"
			}),
			want: want{fields: []string{DriftAPIKeys}, patch: codersdk.UpdateAIProviderRequest{APIKeys: keyMutations("sk-1", "sk-2-rotated")}, sendsAPIKeys: true, sendsCredentials: true},
		},
		"AllKeysRemovedFromSpec": {
			reason: "no references left: an empty list clears Coder's keys",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				w.Request.APIKeys, w.Fingerprint = nil, "sha256:none"
			}),
			want: want{fields: []string{DriftAPIKeys}, patch: codersdk.UpdateAIProviderRequest{APIKeys: keyMutations()}, sendsAPIKeys: true, sendsCredentials: true},
		},
		"NothingRecordedYet": {
			reason: "after adopting an uncertain create nothing was recorded, so the keys are sent once",
			setup:  edit(openAI, func(_ *Desired, _ *codersdk.AIProvider, a *Applied) { *a = Applied{} }),
			want:   want{fields: []string{DriftAPIKeys}, patch: codersdk.UpdateAIProviderRequest{APIKeys: keyMutations("sk-1", "sk-2")}, sendsAPIKeys: true, sendsCredentials: true},
		},
		"CopilotInSync": {
			reason: "a provider without keys and nothing recorded differently needs nothing",
			setup: func() (Desired, codersdk.AIProvider, Applied) {
				w := Desired{Request: codersdk.CreateAIProviderRequest{Type: "copilot", Name: "copilot", Enabled: true, BaseURL: "https://api.githubcopilot.com"}, Fingerprint: "sha256:none"}
				g := codersdk.AIProvider{Type: "copilot", Name: "copilot", DisplayName: "copilot", Enabled: true, BaseURL: "https://api.githubcopilot.com"}
				return w, g, Applied{Fingerprint: "sha256:none"}
			},
		},
		"CopilotAdopted": {
			reason: "nothing recorded for a provider without credentials: an empty key list records that Coder holds none",
			setup: func() (Desired, codersdk.AIProvider, Applied) {
				w := Desired{Request: codersdk.CreateAIProviderRequest{Type: "copilot", Name: "copilot", Enabled: true, BaseURL: "https://api.githubcopilot.com"}, Fingerprint: "sha256:none"}
				g := codersdk.AIProvider{Type: "copilot", Name: "copilot", DisplayName: "copilot", Enabled: true, BaseURL: "https://api.githubcopilot.com"}
				return w, g, Applied{}
			},
			want: want{fields: []string{DriftAPIKeys}, patch: codersdk.UpdateAIProviderRequest{APIKeys: keyMutations()}, sendsAPIKeys: true, sendsCredentials: true},
		},
		"BedrockInSync": {
			reason: "credentials cannot be read back and Coder's external id and resolved protocol are no drift",
			setup:  bedrock,
		},
		"BedrockRegionEdited": {
			reason: "settings are sent whole, without credentials (nil keeps Coder's) and without the external id",
			setup: edit(bedrock, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.Settings.Bedrock.Region = "eu-west-1"
			}),
			want: want{
				fields: []string{DriftBedrock},
				patch: codersdk.UpdateAIProviderRequest{Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
					Region: "us-east-1", Model: "claude", SmallFastModel: "haiku", RoleARN: "arn:aws:iam::1:role/r",
				}}},
			},
		},
		"BedrockAccessKeyRotated": {
			reason: "a changed access key pair is sent with the settings",
			setup: edit(bedrock, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				w.Fingerprint = "sha256:rotated"
			}),
			want: want{
				fields: []string{DriftBedrockCredentials},
				patch: codersdk.UpdateAIProviderRequest{Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
					Region: "us-east-1", Model: "claude", SmallFastModel: "haiku", RoleARN: "arn:aws:iam::1:role/r",
					AccessKey: ptr.To("AKIA"), AccessKeySecret: ptr.To("secret"),
				}}},
				sendsCredentials: true,
			},
		},
		"BedrockAccessKeyRefsRemoved": {
			reason: "without references the pair is cleared with empty strings, so Coder uses its own AWS identity",
			setup: edit(bedrock, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				w.Request.Settings.Bedrock.AccessKey, w.Request.Settings.Bedrock.AccessKeySecret = nil, nil
				w.Fingerprint = "sha256:none"
			}),
			want: want{
				fields: []string{DriftBedrockCredentials},
				patch: codersdk.UpdateAIProviderRequest{Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
					Region: "us-east-1", Model: "claude", SmallFastModel: "haiku", RoleARN: "arn:aws:iam::1:role/r",
					AccessKey: ptr.To(""), AccessKeySecret: ptr.To(""),
				}}},
				sendsCredentials: true,
			},
		},
		"BedrockSettingsAddedInCoder": {
			reason: "Coder's API cannot remove Bedrock settings: reported as unfixable, nothing is sent",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				w.Request.Type, g.Type = "anthropic", "anthropic"
				g.Settings.Bedrock = &codersdk.AIProviderBedrockSettings{Region: "us-east-1"}
			}),
			want: want{fields: []string{DriftBedrock}, unfixable: 1},
		},
		"TypeDiffers": {
			reason: "an external name pointing at a provider of another type cannot be fixed by a PATCH",
			setup: edit(openAI, func(w *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.Type = "azure"
			}),
			want: want{fields: []string{DriftType}, unfixable: 1},
		},
		"NameDiffersWithoutDisplayName": {
			reason: "Coder shows its own name when no display name is stored: only the name drifts, and no display name PATCH repeats forever (found by FuzzDiffConverges)",
			setup: edit(bedrock, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.Name, g.DisplayName = "renamed", "renamed"
			}),
			want: want{fields: []string{DriftName}, unfixable: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, g, a := tc.setup()
			d := Diff(w, g, a)
			if diff := cmp.Diff(tc.want.fields, d.Fields); diff != "" {
				t.Errorf("%s\nFields: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.patch, d.Patch); diff != "" {
				t.Errorf("%s\nPatch: -want, +got:\n%s", tc.reason, diff)
			}
			if d.SendsAPIKeys != tc.want.sendsAPIKeys || d.SendsCredentials != tc.want.sendsCredentials {
				t.Errorf("%s\nSendsAPIKeys, SendsCredentials = %t, %t, want %t, %t", tc.reason, d.SendsAPIKeys, d.SendsCredentials, tc.want.sendsAPIKeys, tc.want.sendsCredentials)
			}
			if len(d.Unfixable) != tc.want.unfixable {
				t.Errorf("%s\nUnfixable = %q, want %d entries", tc.reason, d.Unfixable, tc.want.unfixable)
			}
			if d.UpToDate() != (len(tc.want.fields) == 0) {
				t.Errorf("%s\nUpToDate = %t with fields %v", tc.reason, d.UpToDate(), d.Fields)
			}
			if !d.Patch.IsEmpty() {
				if vs := d.Patch.Validate(); len(vs) > 0 {
					t.Errorf("%s\nthe patch fails codersdk's own validation: %v", tc.reason, vs)
				}
			}
			for _, f := range append(d.Fields, d.Unfixable...) {
				for _, secret := range []string{"sk-1", "sk-2", "AKIA", "secret\""} {
					if strings.Contains(f, secret) {
						t.Errorf("drift description %q contains key material", f)
					}
				}
			}
		})
	}
}

func TestUpgradeLegacyReplacesOnlyAnUnkeyedFingerprintOfTheSameCredentials(t *testing.T) {
	c := Credentials{APIKeys: []string{"sk-one"}}
	want := Desired{Fingerprint: Fingerprint(testKey, testUID, c), LegacyFingerprint: LegacyFingerprint(testUID, c)}
	ids := []string{"k1"}
	cases := map[string]struct {
		reason  string
		applied Applied
		want    Applied
		ok      bool
	}{
		"SameCredentials": {
			reason:  "an earlier release's fingerprint of what is sent now: the keyed one replaces it",
			applied: Applied{Fingerprint: want.LegacyFingerprint, KeyIDs: ids},
			want:    Applied{Fingerprint: want.Fingerprint, KeyIDs: ids}, ok: true,
		},
		"OtherCredentials": {
			reason:  "an earlier release's fingerprint of other credentials: they changed, and are sent",
			applied: Applied{Fingerprint: LegacyFingerprint(testUID, Credentials{APIKeys: []string{"sk-two"}}), KeyIDs: ids},
			want:    Applied{Fingerprint: LegacyFingerprint(testUID, Credentials{APIKeys: []string{"sk-two"}}), KeyIDs: ids},
		},
		"OtherObject": {
			reason:  "another object's unkeyed fingerprint of the same key is not this one's",
			applied: Applied{Fingerprint: LegacyFingerprint("another-uid", c), KeyIDs: ids},
			want:    Applied{Fingerprint: LegacyFingerprint("another-uid", c), KeyIDs: ids},
		},
		"Keyed": {
			reason:  "a keyed fingerprint is left as it is",
			applied: Applied{Fingerprint: want.Fingerprint, KeyIDs: ids},
			want:    Applied{Fingerprint: want.Fingerprint, KeyIDs: ids},
		},
		"None": {
			reason: "a status without a fingerprint has nothing to upgrade",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := UpgradeLegacy(tc.applied, want)
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.ok {
				t.Errorf("%s\nUpgradeLegacy = %v (-want +got):\n%s", tc.reason, ok, diff)
			}
		})
	}
}
