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

package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

const testUID = "2f0c1f8e-0000-4000-8000-000000000001"

// desiredOf builds what the spec asks with the secrets c.
func desiredOf(s Spec, c Credentials) Desired {
	req := CreateRequest("docs", s, c)
	return Desired{Request: req, Fingerprint: Fingerprint(testKey, testUID, req.AuthType, c)}
}

// stored is the server Coder holds after creating req.
func stored(req codersdk.CreateMCPServerConfigRequest) codersdk.MCPServerConfig {
	return codersdk.MCPServerConfig{
		Slug: req.Slug, DisplayName: req.DisplayName, Description: req.Description, IconURL: req.IconURL,
		Transport: req.Transport, URL: req.URL, AuthType: req.AuthType,
		OAuth2ClientID: req.OAuth2ClientID, HasOAuth2Secret: req.OAuth2ClientSecret != "", OAuth2AuthURL: req.OAuth2AuthURL,
		OAuth2TokenURL: req.OAuth2TokenURL, OAuth2RevocationURL: req.OAuth2RevocationURL, OAuth2Scopes: req.OAuth2Scopes,
		APIKeyHeader: req.APIKeyHeader, HasAPIKey: req.APIKeyValue != "", HasCustomHeaders: len(req.CustomHeaders) > 0,
		ToolAllowList: append([]string{}, req.ToolAllowList...), ToolDenyList: append([]string{}, req.ToolDenyList...),
		Availability: req.Availability, Enabled: req.Enabled, ModelIntent: req.ModelIntent,
		AllowInPlanMode: req.AllowInPlanMode, ForwardCoderHeaders: req.ForwardCoderHeaders,
	}
}

func TestDiffPutsBackEveryDriftInOnePatch(t *testing.T) {
	apiKey := Spec{Fields: common.MCPServerFields{URL: "https://mcp.example.com", AuthType: common.MCPServerAuthAPIKey,
		ToolAllowList: []string{"search"}}, APIKeyHeader: "X-Api-Key"}
	secret := Credentials{APIKeyValue: "k1"}
	want := desiredOf(apiKey, secret)
	cases := map[string]struct {
		reason  string
		want    Desired
		edit    func(*codersdk.MCPServerConfig)
		applied string
		fields  []string
		patch   codersdk.UpdateMCPServerConfigRequest
		creds   bool
	}{
		"UpToDate": {
			reason:  "What was created, with the fingerprint applied, needs nothing.",
			want:    want,
			applied: want.Fingerprint,
		},
		"ToolListEdited": {
			reason: "A tool list edited by hand is put back, alone.",
			want:   want,
			edit: func(s *codersdk.MCPServerConfig) {
				s.ToolAllowList = []string{"search", "write"}
				s.ToolDenyList = []string{"x"}
			},
			applied: want.Fingerprint,
			fields:  []string{DriftToolAllowList, DriftToolDenyList},
			patch:   codersdk.UpdateMCPServerConfigRequest{ToolAllowList: &[]string{"search"}, ToolDenyList: &[]string{}},
		},
		"FieldsChanged": {
			reason: "Every changed field, in one PATCH; the secrets are not sent again.",
			want:   want,
			edit: func(s *codersdk.MCPServerConfig) {
				s.URL, s.Enabled, s.DisplayName = "https://evil.example.com", false, "x"
			},
			applied: want.Fingerprint,
			fields:  []string{DriftDisplayName, DriftURL, DriftEnabled},
			patch:   codersdk.UpdateMCPServerConfigRequest{DisplayName: ptr.To("docs"), URL: ptr.To("https://mcp.example.com"), Enabled: ptr.To(true)},
		},
		"SecretRotated": {
			reason:  "A changed Secret (another fingerprint) sends every secret.",
			want:    desiredOf(apiKey, Credentials{APIKeyValue: "k2"}),
			applied: want.Fingerprint,
			fields:  []string{DriftCredentials},
			patch: codersdk.UpdateMCPServerConfigRequest{OAuth2ClientSecret: ptr.To(""), APIKeyValue: ptr.To("k2"),
				CustomHeaders: &map[string]string{}},
			creds: true,
		},
		"SecretClearedInCoder": {
			reason:  "Coder lost the key it held (has_api_key false): sent again.",
			want:    want,
			edit:    func(s *codersdk.MCPServerConfig) { s.HasAPIKey = false },
			applied: want.Fingerprint,
			fields:  []string{DriftCredentials},
			patch: codersdk.UpdateMCPServerConfigRequest{OAuth2ClientSecret: ptr.To(""), APIKeyValue: ptr.To("k1"),
				CustomHeaders: &map[string]string{}},
			creds: true,
		},
		"AuthTypeChangedByHand": {
			reason:  "Coder cleared the key when someone set auth none: the type, header and key go back.",
			want:    want,
			edit:    func(s *codersdk.MCPServerConfig) { s.AuthType, s.APIKeyHeader, s.HasAPIKey = "none", "", false },
			applied: want.Fingerprint,
			fields:  []string{DriftAuthType, DriftAPIKeyHeader, DriftCredentials},
			patch: codersdk.UpdateMCPServerConfigRequest{AuthType: ptr.To("api_key"), APIKeyHeader: ptr.To("X-Api-Key"),
				OAuth2ClientSecret: ptr.To(""), APIKeyValue: ptr.To("k1"), CustomHeaders: &map[string]string{}},
			creds: true,
		},
		"NoFingerprintYet": {
			reason: "A status without a fingerprint (an import) sends the secrets once.",
			want:   want,
			fields: []string{DriftCredentials},
			patch: codersdk.UpdateMCPServerConfigRequest{OAuth2ClientSecret: ptr.To(""), APIKeyValue: ptr.To("k1"),
				CustomHeaders: &map[string]string{}},
			creds: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := stored(want.Request)
			if tc.edit != nil {
				tc.edit(&got)
			}
			d := Diff(tc.want, got, tc.applied)
			if diff := cmp.Diff(tc.fields, d.Fields); diff != "" {
				t.Errorf("%s\nDiff(...).Fields: -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.patch, d.Patch); diff != "" {
				t.Errorf("%s\nDiff(...).Patch: -want +got:\n%s", tc.reason, diff)
			}
			if d.SendsCredentials != tc.creds {
				t.Errorf("%s\nDiff(...).SendsCredentials = %t, want %t", tc.reason, d.SendsCredentials, tc.creds)
			}
			if d.UpToDate() != (len(tc.fields) == 0) {
				t.Errorf("%s\nUpToDate() = %t with fields %v", tc.reason, d.UpToDate(), d.Fields)
			}
		})
	}
}

func TestCreateRequestSendsOnlyTheAuthTypesFields(t *testing.T) {
	c := Credentials{OAuth2ClientSecret: "s", APIKeyValue: "k", Headers: []Header{{Name: "X-A", Value: "a"}}}
	oauth2 := &common.MCPServerOAuth2Fields{ClientID: "cid", AuthURL: "https://a", TokenURL: "https://t", Scopes: " repo "}
	cases := map[string]struct {
		spec Spec
		want codersdk.CreateMCPServerConfigRequest
	}{
		"Defaults": {
			spec: Spec{Fields: common.MCPServerFields{URL: " https://m ", ToolDenyList: []string{" w ", ""}}},
			want: codersdk.CreateMCPServerConfigRequest{Slug: "docs", DisplayName: "docs", Transport: "streamable_http", URL: "https://m",
				AuthType: "none", ToolAllowList: []string{}, ToolDenyList: []string{"w"}, Availability: "default_off", Enabled: true},
		},
		"OAuth2": {
			spec: Spec{Fields: common.MCPServerFields{URL: "https://m", AuthType: "oauth2", DisplayName: ptr.To("Docs"), Enabled: ptr.To(false)}, OAuth2: oauth2},
			want: codersdk.CreateMCPServerConfigRequest{Slug: "docs", DisplayName: "Docs", Transport: "streamable_http", URL: "https://m",
				AuthType: "oauth2", OAuth2ClientID: "cid", OAuth2ClientSecret: "s", OAuth2AuthURL: "https://a", OAuth2TokenURL: "https://t",
				OAuth2Scopes: "repo", ToolAllowList: []string{}, ToolDenyList: []string{}, Availability: "default_off"},
		},
		"APIKeyDefaultHeader": {
			spec: Spec{Fields: common.MCPServerFields{URL: "https://m", AuthType: "api_key"}},
			want: codersdk.CreateMCPServerConfigRequest{Slug: "docs", DisplayName: "docs", Transport: "streamable_http", URL: "https://m",
				AuthType: "api_key", APIKeyHeader: "Authorization", APIKeyValue: "k", ToolAllowList: []string{}, ToolDenyList: []string{},
				Availability: "default_off", Enabled: true},
		},
		"CustomHeaders": {
			spec: Spec{Fields: common.MCPServerFields{URL: "https://m", AuthType: "custom_headers"}},
			want: codersdk.CreateMCPServerConfigRequest{Slug: "docs", DisplayName: "docs", Transport: "streamable_http", URL: "https://m",
				AuthType: "custom_headers", CustomHeaders: map[string]string{"X-A": "a"}, ToolAllowList: []string{}, ToolDenyList: []string{},
				Availability: "default_off", Enabled: true},
		},
		"UserOIDC": {
			spec: Spec{Fields: common.MCPServerFields{URL: "https://m", AuthType: "user_oidc"}},
			want: codersdk.CreateMCPServerConfigRequest{Slug: "docs", DisplayName: "docs", Transport: "streamable_http", URL: "https://m",
				AuthType: "user_oidc", ToolAllowList: []string{}, ToolDenyList: []string{}, Availability: "default_off", Enabled: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CreateRequest("docs", tc.spec, c)); diff != "" {
				t.Errorf("CreateRequest: -want +got:\n%s", diff)
			}
		})
	}
}

func TestFingerprintChangesWithEverySecretOfTheAuthType(t *testing.T) {
	base := Credentials{Headers: []Header{{Name: "X-A", Value: "a"}, {Name: "X-B", Value: "b"}}}
	fp := Fingerprint(testKey, testUID, "custom_headers", base)
	if !strings.HasPrefix(fp, FingerprintPrefix) {
		t.Fatalf("Fingerprint = %q, want the prefix %q", fp, FingerprintPrefix)
	}
	cases := map[string]struct {
		key      []byte
		uid      string
		authType string
		c        Credentials
		same     bool
	}{
		"HeadersReordered": {c: Credentials{Headers: []Header{base.Headers[1], base.Headers[0]}}, same: true},
		"ValueChanged":     {c: Credentials{Headers: []Header{{Name: "X-A", Value: "a2"}, base.Headers[1]}}},
		"NameChanged":      {c: Credentials{Headers: []Header{{Name: "X-C", Value: "a"}, base.Headers[1]}}},
		"AnotherUID":       {uid: "another", c: base},
		"AnotherKey":       {key: []byte("another key of thirty-two bytes!"), c: base},
		"AnotherAuthType":  {authType: "none", c: base},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			key, uid, at := tc.key, tc.uid, tc.authType
			if key == nil {
				key = testKey
			}
			if uid == "" {
				uid = testUID
			}
			if at == "" {
				at = "custom_headers"
			}
			if got := Fingerprint(key, uid, at, tc.c); (got == fp) != tc.same {
				t.Errorf("Fingerprint equal to the base's: %t, want %t", got == fp, tc.same)
			}
		})
	}
}

func TestNoSecretInWhatIsPrintedOrKeptInStatus(t *testing.T) {
	c := Credentials{OAuth2ClientSecret: "s3cr3t-oauth", APIKeyValue: "s3cr3t-key", Headers: []Header{{Name: "X", Value: "s3cr3t-h"}}}
	d := Desired{Request: CreateRequest("docs", Spec{Fields: common.MCPServerFields{AuthType: "api_key"}}, c)}
	var fps []string
	for _, at := range []string{"oauth2", "api_key", "custom_headers"} {
		fps = append(fps, Fingerprint(testKey, testUID, at, c))
	}
	for _, s := range append([]string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprint(d), fmt.Sprintf("%v", d)}, fps...) {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("printed %q, which holds a secret", s)
		}
	}
}
