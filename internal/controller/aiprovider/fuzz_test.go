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
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	"k8s.io/utils/ptr"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

var fuzzTypes = []common.AIProviderType{"openai", "anthropic", "bedrock", "copilot"}

// fuzzSpec is a spec and its Secrets' values from the fuzzer's plain values.
// keys holds the API keys separated by NUL; an enabled of 0 leaves it unset.
type fuzzSpec struct {
	typ                                uint8
	name, display, icon, baseURL       string
	enabled                            uint8
	bedrock                            bool
	region, model, protocol, roleARN   string
	keys                               string
	pair                               bool
	accessKeyID, secretAccessKey, salt string
}

func (s fuzzSpec) desired() (Desired, Credentials) {
	f := common.AIProviderFields{Type: fuzzTypes[int(s.typ)%len(fuzzTypes)], BaseURL: s.baseURL}
	if s.display != "" {
		f.DisplayName = &s.display
	}
	if s.icon != "" {
		f.Icon = &s.icon
	}
	if s.enabled > 0 {
		f.Enabled = ptr.To(s.enabled%2 == 1)
	}
	var b *common.BedrockFields
	if s.bedrock {
		b = &common.BedrockFields{Region: s.region, Model: s.model, Protocol: common.BedrockProtocol(s.protocol), RoleARN: s.roleARN}
	}
	var c Credentials
	if s.keys != "" {
		c.APIKeys = strings.Split(s.keys, "\x00")
	}
	if s.pair {
		c.AccessKeyID, c.SecretAccessKey = ptr.To(s.accessKeyID), ptr.To(s.secretAccessKey)
	}
	return Desired{Request: CreateRequest(s.name, f, b, c), Fingerprint: Fingerprint(testKey, s.salt, c), LegacyFingerprint: LegacyFingerprint(s.salt, c)}, c
}

// coderView is what Coder reports for a provider created from req: no
// secret comes back, a display name left empty shows the name, and Coder
// adds its own external id to Bedrock settings.
func coderView(req codersdk.CreateAIProviderRequest) codersdk.AIProvider {
	got := codersdk.AIProvider{
		ID: uuid.New(), Type: req.Type, Name: req.Name, DisplayName: cmp.Or(req.DisplayName, req.Name),
		Icon: req.Icon, Enabled: req.Enabled, BaseURL: req.BaseURL, APIKeys: []codersdk.AIProviderKey{},
	}
	if AcceptsAPIKeys(req) {
		for range req.APIKeys {
			got.APIKeys = append(got.APIKeys, codersdk.AIProviderKey{ID: uuid.New(), Masked: "..."})
		}
	}
	if b := req.Settings.Bedrock; b != nil {
		s := *b
		s.AccessKey, s.AccessKeySecret, s.ExternalID = nil, nil, "SERVERGENERATED"
		got.Settings.Bedrock = &s
	}
	return got
}

// patched is Coder after the PATCH: sent fields replace stored ones, a key
// list replaces the stored keys, and Bedrock settings replace the stored
// ones whole but keep Coder's external id.
func patched(got codersdk.AIProvider, p codersdk.UpdateAIProviderRequest) codersdk.AIProvider {
	if p.DisplayName != nil {
		got.DisplayName = cmp.Or(*p.DisplayName, got.Name)
	}
	if p.Icon != nil {
		got.Icon = *p.Icon
	}
	if p.Enabled != nil {
		got.Enabled = *p.Enabled
	}
	if p.BaseURL != nil {
		got.BaseURL = *p.BaseURL
	}
	if p.APIKeys != nil {
		keys := []codersdk.AIProviderKey{}
		for _, m := range *p.APIKeys {
			id := uuid.New()
			if m.ID != nil {
				id = *m.ID
			}
			keys = append(keys, codersdk.AIProviderKey{ID: id, Masked: "..."})
		}
		got.APIKeys = keys
	}
	if p.Settings != nil && p.Settings.Bedrock != nil {
		s := *p.Settings.Bedrock
		s.AccessKey, s.AccessKeySecret = nil, nil
		if got.Settings.Bedrock != nil {
			s.ExternalID = got.Settings.Bedrock.ExternalID
		}
		got.Settings.Bedrock = &s
	}
	return got
}

// FuzzDiffConverges checks the desired state and its diff for any spec,
// Secret values and state in Coder: a provider Coder holds exactly as
// desired shows no drift and no patch; one PATCH puts back every field
// Coder's API can put back, so diffing again leaves only the drifts it
// called unfixable; no secret value reaches a drift's field names, its
// explanations, or the printed desired state; and the fingerprint ignores
// the order of API keys but notices any other change of the values.
func FuzzDiffConverges(f *testing.F) {
	// The providers of the table tests: openAI(), bedrock(), and the
	// drifts TestDiffPatchesOnlyWhatDiffers covers.
	openAISpec := fuzzSpec{typ: 0, name: "openai", display: "OpenAI", icon: "/icon/openai.svg", enabled: 1, baseURL: "https://api.openai.com/v1", keys: "sk-1\x00sk-2", salt: "uid-1"}
	bedrockSpec := fuzzSpec{typ: 2, name: "bedrock", enabled: 1, baseURL: "https://bedrock-runtime.us-east-1.amazonaws.com", bedrock: true,
		region: "us-east-1", model: "claude", roleARN: "arn:aws:iam::1:role/r", pair: true, accessKeyID: "AKIA", secretAccessKey: "secret", salt: "uid-2"}
	mantle := bedrockSpec
	mantle.typ, mantle.region, mantle.protocol, mantle.baseURL, mantle.pair = 1, "", "mantle", "https://bedrock-mantle.eu-west-1.api.aws/anthropic", false
	for _, s := range []fuzzSpec{openAISpec, bedrockSpec, mantle, {typ: 3, name: "copilot", salt: "uid-3"}} {
		// drift bits: 1 type, 2 name, 4 display name, 8 icon, 16 enabled,
		// 32 base URL, 64 Bedrock settings, 128 key ids; stale: the
		// applied fingerprint is not the desired one.
		for _, drift := range []uint8{0, 4, 8 | 16 | 32, 64, 128, 1 | 2, 255} {
			f.Add(s.typ, s.name, s.display, s.icon, s.baseURL, s.enabled, s.bedrock, s.region, s.model, s.protocol, s.roleARN,
				s.keys, s.pair, s.accessKeyID, s.secretAccessKey, s.salt, drift, "https://evil.example.com/v1", drift%2 == 1)
		}
	}
	f.Fuzz(func(t *testing.T, typ uint8, name, display, icon, baseURL string, enabled uint8, bedrock bool, region, model, protocol, roleARN,
		keys string, pair bool, accessKeyID, secretAccessKey, salt string, drift uint8, other string, stale bool) {
		spec := fuzzSpec{typ, name, display, icon, baseURL, enabled, bedrock, region, model, protocol, roleARN, keys, pair, accessKeyID, secretAccessKey, salt}
		want, creds := spec.desired()
		req := want.Request

		got := coderView(req)
		applied := Applied{Fingerprint: want.Fingerprint, KeyIDs: keyIDs(got.APIKeys)}
		if d := Diff(want, got, applied); !d.UpToDate() || !reflect.DeepEqual(d, Drift{}) {
			t.Fatalf("Coder holds exactly the desired provider, yet Diff = %+v", d)
		}

		got = drifted(got, drift, other)
		if stale {
			applied.Fingerprint = "sha256:stale"
		}
		d := Diff(want, got, applied)
		checkNoSecret(t, creds, got, want, d)
		unfixable := map[string]bool{DriftType: got.Type != req.Type, DriftName: got.Name != req.Name,
			DriftBedrock: req.Settings.Bedrock == nil && got.Settings.Bedrock != nil}

		after := patched(got, d.Patch)
		if d.SendsCredentials {
			applied.Fingerprint = want.Fingerprint
		}
		if d.SendsAPIKeys {
			applied.KeyIDs = keyIDs(after.APIKeys)
		}
		again := Diff(want, after, applied)
		for _, field := range again.Fields {
			if !unfixable[field] {
				t.Fatalf("one PATCH %+v left the fixable drift %q (first diff %v, then %v)", d.Patch, field, d.Fields, again.Fields)
			}
		}
		if !reflect.DeepEqual(again.Patch, codersdk.UpdateAIProviderRequest{}) {
			t.Fatalf("after the PATCH, Diff patches again: %+v", again.Patch)
		}
		for field, u := range unfixable {
			if u && !slices.Contains(again.Fields, field) {
				t.Fatalf("the unfixable drift %q is no longer reported: %v", field, again.Fields)
			}
		}
		checkFingerprint(t, salt, creds, want.Fingerprint)
	})
}

// drifted changes what Coder holds as the bits of drift say.
func drifted(got codersdk.AIProvider, drift uint8, other string) codersdk.AIProvider {
	if drift&1 != 0 {
		got.Type = codersdk.AIProviderType(fuzzTypes[(slices.Index(fuzzTypes, common.AIProviderType(got.Type))+1)%len(fuzzTypes)])
	}
	if drift&2 != 0 {
		got.Name += "-renamed"
	}
	if drift&4 != 0 {
		got.DisplayName = other
	}
	if drift&8 != 0 {
		got.Icon = other
	}
	if drift&16 != 0 {
		got.Enabled = !got.Enabled
	}
	if drift&32 != 0 {
		got.BaseURL = other
	}
	if drift&64 != 0 {
		if got.Settings.Bedrock == nil {
			got.Settings.Bedrock = &codersdk.AIProviderBedrockSettings{Region: other}
		} else {
			b := *got.Settings.Bedrock
			b.Model += "-by-hand"
			got.Settings.Bedrock = &b
		}
	}
	if drift&128 != 0 {
		got.APIKeys = append(slices.Clone(got.APIKeys), codersdk.AIProviderKey{ID: uuid.New(), Masked: "..."})
	}
	return got
}

func checkNoSecret(t *testing.T, c Credentials, got codersdk.AIProvider, want Desired, d Drift) {
	t.Helper()
	secrets := slices.Clone(c.APIKeys)
	if c.AccessKeyID != nil {
		secrets = append(secrets, *c.AccessKeyID, *c.SecretAccessKey)
	}
	// Drifts of type and name quote both sides, and the printed desired
	// state names the provider: a secret equal to part of those is not
	// told apart.
	// The field labels the printed structs carry: a secret that is part
	// of them is not told apart either.
	const printedLabels = "aiprovider.Desired{Type: Name: APIKeys: Fingerprint: aiprovider.Credentials{AccessKeyPair: true false"
	public := strings.Join([]string{string(got.Type), got.Name, string(want.Request.Type), want.Request.Name, want.Fingerprint}, "\n")
	out := strings.Join(append(slices.Clone(d.Fields), d.Unfixable...), "\n") + "\n" +
		fmt.Sprintf("%v %+v %#v %s %v %+v %#v", want, want, want, want, c, c, &c)
	for _, s := range secrets {
		if len(s) < 4 || strings.Contains(public, s) || strings.Contains(printedLabels, s) {
			continue
		}
		if strings.Contains(out, s) {
			t.Fatalf("the secret %q appears in %q", s, out)
		}
	}
}

func checkFingerprint(t *testing.T, salt string, c Credentials, fp string) {
	t.Helper()
	r := c
	r.APIKeys = slices.Clone(c.APIKeys)
	slices.Reverse(r.APIKeys)
	if Fingerprint(testKey, salt, r) != fp {
		t.Fatalf("reordering the API keys changes the fingerprint")
	}
	if Fingerprint(testKey, salt+"x", c) == fp {
		t.Fatalf("another object's salt gives the same fingerprint")
	}
	if len(c.APIKeys) > 0 {
		r.APIKeys = r.APIKeys[1:]
		if Fingerprint(testKey, salt, r) == fp {
			t.Fatalf("removing an API key keeps the fingerprint")
		}
		r.APIKeys = append(slices.Clone(c.APIKeys[1:]), c.APIKeys[0]+"x")
		if Fingerprint(testKey, salt, r) == fp {
			t.Fatalf("changing an API key keeps the fingerprint")
		}
	}
	if c.AccessKeyID != nil && *c.AccessKeyID != *c.SecretAccessKey {
		s := Credentials{APIKeys: c.APIKeys, AccessKeyID: c.SecretAccessKey, SecretAccessKey: c.AccessKeyID}
		if Fingerprint(testKey, salt, s) == fp {
			t.Fatalf("swapping the access key pair keeps the fingerprint")
		}
	}
	if c.AccessKeyID != nil {
		s := Credentials{APIKeys: c.APIKeys}
		if Fingerprint(testKey, salt, s) == fp {
			t.Fatalf("dropping the access key pair keeps the fingerprint")
		}
	}
}
