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
	"github.com/google/uuid"
	"k8s.io/utils/ptr"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

func TestCoderValidationNamesTheSpecField(t *testing.T) {
	valid := func() (common.AIProviderFields, *common.BedrockFields, Credentials) {
		return common.AIProviderFields{Type: "openai", BaseURL: "https://api.openai.com/v1"}, nil, Credentials{APIKeys: []string{"sk-1"}}
	}
	cases := map[string]struct {
		reason           string
		name             string
		nameFromMetadata bool
		edit             func(*common.AIProviderFields, **common.BedrockFields, *Credentials)
		want             []string
	}{
		"NameFromMetadata": {
			reason: "a metadata.name Coder cannot use, e.g. with dots on a cluster-scoped object",
			name:   "team.openai", nameFromMetadata: true,
			want: []string{"spec.forProvider.name (defaults to metadata.name): name must match"},
		},
		"UnknownType": {
			reason: "a type Coder does not know",
			edit:   func(f *common.AIProviderFields, _ **common.BedrockFields, _ *Credentials) { f.Type = "mistral" },
			want:   []string{`spec.forProvider.type: unsupported provider type "mistral"`},
		},
		"RelativeBaseURL": {
			reason: "base URL without scheme and host",
			edit: func(f *common.AIProviderFields, _ **common.BedrockFields, _ *Credentials) {
				f.BaseURL = "api.openai.com/v1"
			},
			want: []string{"spec.forProvider.baseURL: base_url must be an absolute URL"},
		},
		"FTPBaseURL": {
			reason: "base URL with another scheme",
			edit: func(f *common.AIProviderFields, _ **common.BedrockFields, _ *Credentials) {
				f.BaseURL = "ftp://example.com/"
			},
			want: []string{`spec.forProvider.baseURL: base_url scheme must be http or https, got "ftp"`},
		},
		"KeysForCopilot": {
			reason: "copilot authenticates with request-time GitHub tokens",
			edit:   func(f *common.AIProviderFields, _ **common.BedrockFields, _ *Credentials) { f.Type = "copilot" },
			want:   []string{"spec.forProvider.apiKeySecretRefs: type=copilot does not accept api_keys"},
		},
		"KeysForBedrock": {
			reason: "bedrock authenticates with its settings",
			edit: func(f *common.AIProviderFields, b **common.BedrockFields, _ *Credentials) {
				f.Type = "bedrock"
				*b = &common.BedrockFields{Region: "us-east-1"}
			},
			want: []string{"spec.forProvider.apiKeySecretRefs: type=bedrock does not accept api_keys"},
		},
		"BedrockSettingsForOpenAI": {
			reason: "bedrock settings belong to anthropic and bedrock only",
			edit: func(_ *common.AIProviderFields, b **common.BedrockFields, _ *Credentials) {
				*b = &common.BedrockFields{Region: "us-east-1"}
			},
			want: []string{"spec.forProvider.bedrock: bedrock settings are only valid for type=anthropic or type=bedrock"},
		},
		"BedrockWithoutRegionOrCredentials": {
			reason: "a model alone does not configure Bedrock, and a proxy URL gives no region",
			edit: func(f *common.AIProviderFields, b **common.BedrockFields, c *Credentials) {
				f.Type, f.BaseURL, c.APIKeys = "bedrock", "https://bedrock.proxy.example.com", nil
				*b = &common.BedrockFields{Model: "claude"}
			},
			want: []string{"spec.forProvider.bedrock: type=bedrock requires bedrock settings"},
		},
		"MantleWithoutRegion": {
			reason: "mantle signs with SigV4, which needs a region",
			edit: func(f *common.AIProviderFields, b **common.BedrockFields, c *Credentials) {
				f.Type, f.BaseURL, c.APIKeys = "anthropic", "https://mantle.proxy.example.com", nil
				*b = &common.BedrockFields{Protocol: "mantle", RoleARN: "arn:aws:iam::1:role/r"}
			},
			want: []string{"spec.forProvider.bedrock.region: region is required for the mantle protocol"},
		},
		"RoleARNOfAnotherService": {
			reason: "the role must be an IAM role",
			edit: func(f *common.AIProviderFields, b **common.BedrockFields, c *Credentials) {
				f.Type, f.BaseURL, c.APIKeys = "bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com", nil
				*b = &common.BedrockFields{RoleARN: "arn:aws:s3:::bucket/role/x"}
			},
			want: []string{`spec.forProvider.bedrock.roleARN: role_arn must be an IAM ARN`},
		},
		"SeveralAtOnce": {
			reason: "every problem is listed, not just the first",
			name:   "Not_Valid",
			edit:   func(f *common.AIProviderFields, _ **common.BedrockFields, _ *Credentials) { f.BaseURL = "" },
			want:   []string{"spec.forProvider.name: name must match", "spec.forProvider.baseURL: base_url is required"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, b, c := valid()
			if tc.edit != nil {
				tc.edit(&f, &b, &c)
			}
			n := tc.name
			if n == "" {
				n = "openai"
			}
			vs := CreateRequest(n, f, b, c).Validate()
			if len(vs) == 0 {
				t.Fatalf("%s\ncodersdk accepts the request", tc.reason)
			}
			msg := InvalidSpec(vs, tc.nameFromMetadata).Error()
			if !strings.HasPrefix(msg, errInvalidSpec+": ") {
				t.Errorf("%s\nerror %q does not start with %q", tc.reason, msg, errInvalidSpec)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s\nerror %q does not contain %q", tc.reason, msg, w)
				}
			}
			if strings.Contains(msg, "sk-1") {
				t.Errorf("the error contains key material: %q", msg)
			}
		})
	}
}

func TestUpdateValidationNamesTheKeyReference(t *testing.T) {
	id := uuid.New()
	patch := codersdk.UpdateAIProviderRequest{APIKeys: &[]codersdk.AIProviderKeyMutation{
		{APIKey: ptr.To("sk-1")}, {APIKey: ptr.To(" padded ")}, {ID: &id, APIKey: ptr.To("sk-3")},
	}}
	msg := InvalidSpec(patch.Validate(), false).Error()
	for _, w := range []string{
		"spec.forProvider.apiKeySecretRefs[1]: api_key must not contain leading or trailing whitespace",
		"spec.forProvider.apiKeySecretRefs[2]: exactly one of id or api_key must be set",
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
	if strings.Contains(msg, "padded") {
		t.Errorf("the error quotes a key: %q", msg)
	}
}

func TestSpecFieldMapsEveryCoderField(t *testing.T) {
	cases := map[string]string{
		"type":                 "spec.forProvider.type",
		"name":                 "spec.forProvider.name",
		"base_url":             "spec.forProvider.baseURL",
		"api_keys":             "spec.forProvider.apiKeySecretRefs",
		"api_keys[0]":          "spec.forProvider.apiKeySecretRefs[0]",
		"api_keys[12].api_key": "spec.forProvider.apiKeySecretRefs[12]",
		"api_keys[3].id":       "spec.forProvider.apiKeySecretRefs[3]",
		"settings":             "spec.forProvider.bedrock",
		"settings.region":      "spec.forProvider.bedrock.region",
		"settings.protocol":    "spec.forProvider.bedrock.protocol",
		"settings.role_arn":    "spec.forProvider.bedrock.roleARN",
		"settings.external_id": "status.atProvider.bedrock.externalID",
		"something_new":        "something_new",
	}
	for in, want := range cases {
		if got := SpecField(in); got != want {
			t.Errorf("SpecField(%q) = %q, want %q", in, got, want)
		}
	}
}
