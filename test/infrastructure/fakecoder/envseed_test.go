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

package fakecoder

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/coder/coder/v2/codersdk"
)

var (
	envOpenAI = EnvProvider{Type: "openai", Name: "team-openai", BaseURL: "https://api.openai.com/v1", Keys: []string{keyA, keyB}}
	// Type bedrock: an indexed anthropic provider with Bedrock fields is
	// seeded with type anthropic but hashed as bedrock once stored, so in
	// Coder v2.36.0 the second start refuses it whatever happened between.
	envBedrock = EnvProvider{Type: "bedrock", Name: "claude", BedrockRegion: "us-east-1", BedrockAccessKey: "AKIAENV", BedrockAccessKeySecret: "env-secret", BedrockModel: "m"}
)

func TestEnvProvidersAreSeededAsCoderdSeedsThemAtStart(t *testing.T) {
	s, c := start(t, Options{})
	ctx := testContext(t)
	if err := s.SetEnvProviders([]EnvProvider{envOpenAI, envBedrock}); err != nil {
		t.Fatal(err)
	}
	p := must[codersdk.AIProvider](t)(c.AIProvider(ctx, "team-openai"))
	if p.DisplayName != "team-openai" || !p.Enabled || p.BaseURL != envOpenAI.BaseURL || len(p.APIKeys) != 2 {
		t.Errorf("seeded provider %+v: want the name as display name, enabled, the env's base URL and two keys", p)
	}
	b := must[codersdk.AIProvider](t)(c.AIProvider(ctx, "claude"))
	if b.Settings.Bedrock == nil || b.Settings.Bedrock.Region != "us-east-1" || len(b.APIKeys) != 0 {
		t.Errorf("seeded Bedrock provider %+v: want Bedrock settings in us-east-1 and no API keys", b)
	}

	cfg := must[*codersdk.DeploymentConfig](t)(c.DeploymentConfig(ctx))
	var names []string
	for _, p := range cfg.Values.AI.BridgeConfig.Providers {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"team-openai", "claude"}, names); diff != "" {
		t.Errorf("deployment config providers: -want, +got:\n%s", diff)
	}
	raw := rawGet(t, s, "/api/v2/deployment/config")
	for _, secret := range []string{keyA, keyB, "AKIAENV", "env-secret"} {
		if strings.Contains(raw, secret) {
			t.Errorf("the deployment config shows a secret of the environment")
		}
	}
	s.SetOwner(false)
	_, err := c.DeploymentConfig(ctx)
	wantAPIError(t, err, http.StatusForbidden, forbiddenReply.body.(codersdk.Response))
}

func TestCoderdRefusesToStartOnlyWhenASeededProviderChangedWhatItHashes(t *testing.T) {
	cases := map[string]struct {
		reason  string
		name    string
		patch   codersdk.UpdateAIProviderRequest
		refuses bool
	}{
		"DisplayNameIconEnabled": {
			reason: "not hashed", name: "team-openai",
			patch: codersdk.UpdateAIProviderRequest{DisplayName: ptr.To("Team"), Icon: ptr.To("/x.svg"), Enabled: ptr.To(false)},
		},
		"BaseURL": {
			reason: "hashed", name: "team-openai", refuses: true,
			patch: codersdk.UpdateAIProviderRequest{BaseURL: ptr.To("https://proxy.example.com/v1")},
		},
		"KeyReplaced": {
			reason: "the keys are hashed", name: "team-openai", refuses: true,
			patch: codersdk.UpdateAIProviderRequest{APIKeys: &[]codersdk.AIProviderKeyMutation{{APIKey: ptr.To(keyA)}, {APIKey: ptr.To(keyC)}}},
		},
		"SameKeysSentAgain": {
			reason: "new ids for the same keys hash the same", name: "team-openai",
			patch: codersdk.UpdateAIProviderRequest{APIKeys: &[]codersdk.AIProviderKeyMutation{{APIKey: ptr.To(keyB)}, {APIKey: ptr.To(keyA)}}},
		},
		"BedrockModel": {
			reason: "models are not hashed", name: "claude",
			patch: codersdk.UpdateAIProviderRequest{Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{Region: "us-east-1", Model: "other"}}},
		},
		"BedrockRegion": {
			reason: "the region is hashed", name: "claude", refuses: true,
			patch: codersdk.UpdateAIProviderRequest{Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{Region: "eu-west-1", Model: "m"}}},
		},
		"BedrockAccessKey": {
			reason: "the access key pair is hashed", name: "claude", refuses: true,
			patch: codersdk.UpdateAIProviderRequest{Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
				Region: "us-east-1", Model: "m", AccessKey: ptr.To("AKIAOTHER"), AccessKeySecret: ptr.To("other")}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, c := start(t, Options{})
			if err := s.SetEnvProviders([]EnvProvider{envOpenAI, envBedrock}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.UpdateAIProvider(testContext(t), tc.name, tc.patch); err != nil {
				t.Fatalf("the API refused the PATCH: %v", err)
			}
			err := s.SeedFromEnv()
			if (err != nil) != tc.refuses {
				t.Errorf("%s\nSeedFromEnv = %v, want refusal %t", tc.reason, err, tc.refuses)
			}
			if err != nil && !strings.Contains(err.Error(), `AI provider "`+tc.name+`" already exists in the database and differs`) {
				t.Errorf("the error %q is not coderd's", err)
			}
		})
	}
}

func TestADeletedSeededProviderStaysDeleted(t *testing.T) {
	s, c := start(t, Options{})
	ctx := testContext(t)
	if err := s.SetEnvProviders([]EnvProvider{envOpenAI}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteAIProvider(ctx, "team-openai"); err != nil {
		t.Fatal(err)
	}
	if err := s.SeedFromEnv(); err != nil {
		t.Fatal(err)
	}
	if ps := s.Providers(false); len(ps) != 0 {
		t.Errorf("a start seeded %d providers again, want the deletion kept", len(ps))
	}
}

func TestTheAdminAPISetsTheEnvProviders(t *testing.T) {
	s, c := start(t, Options{})
	a := &AdminClient{BaseURL: s.URL()}
	if err := a.SetEnvProviders(context.Background(), []EnvProvider{envOpenAI}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateAIProvider(testContext(t), "team-openai", codersdk.UpdateAIProviderRequest{BaseURL: ptr.To("https://other.example.com/")}); err != nil {
		t.Fatal(err)
	}
	err := a.SetEnvProviders(context.Background(), []EnvProvider{envOpenAI})
	if err == nil || !strings.Contains(err.Error(), "409") || !strings.Contains(err.Error(), "differs from the current environment") {
		t.Errorf("seeding again after the base URL changed: %v, want coderd's start-up error as a 409", err)
	}
}

// rawGet returns the body of an owner's GET of path.
func rawGet(t *testing.T, s *Server, path string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, s.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(codersdk.SessionTokenHeader, s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return string(b)
}
