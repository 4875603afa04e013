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

package coder

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// shownConfig is a deployment config as Coder shows it, started with the
// indexed providers ps and the env vars env: each option read from env
// holds its value and says it came from there, and secrets are emptied.
func shownConfig(ps []codersdk.AIProviderConfig, env map[string]string) *codersdk.DeploymentConfig {
	vals := &codersdk.DeploymentValues{}
	opts := vals.Options()
	_ = opts.SetDefaults()
	for i := range opts {
		if v, ok := env[opts[i].Env]; ok {
			_ = opts[i].Value.Set(v)
			opts[i].ValueSource = "env" // serpent.ValueSourceEnv
		}
	}
	vals.AI.BridgeConfig.Providers = ps
	shown, _ := vals.WithoutSecrets()
	return &codersdk.DeploymentConfig{Values: shown, Options: codersdk.DeploymentOptionsWithoutSecrets(opts)}
}

// withSource marks the option read from env as set from "default", or,
// with "", from nowhere.
func withSource(cfg *codersdk.DeploymentConfig, env string, byDefault bool) *codersdk.DeploymentConfig {
	for i := range cfg.Options {
		if cfg.Options[i].Env == env {
			cfg.Options[i].ValueSource = ""
			if byDefault {
				cfg.Options[i].ValueSource = "default" // serpent.ValueSourceDefault
			}
		}
	}
	return cfg
}

func TestSeededProvidersAreTheNamesCoderSeedsFromItsEnvironment(t *testing.T) {
	cases := map[string]struct {
		reason string
		cfg    *codersdk.DeploymentConfig
		want   map[string]string
	}{
		"Nothing": {
			reason: "defaults seed nothing: the legacy base URLs and Bedrock models have defaults, but no key is set",
			cfg:    shownConfig(nil, nil),
			want:   map[string]string{},
		},
		"Indexed": {
			reason: "an indexed provider is seeded under its name, or its type when it has none",
			cfg:    shownConfig([]codersdk.AIProviderConfig{{Type: "openai", Name: "team-openai", Keys: []string{"sk-x"}}, {Type: "anthropic"}}, nil),
			want:   map[string]string{"team-openai": SeedIndexed, "anthropic": SeedIndexed},
		},
		"LegacyOpenAIKey": {
			reason: "Coder empties the key it shows; its value source says it was set, which seeds openai",
			cfg:    shownConfig(nil, map[string]string{"CODER_AIBRIDGE_OPENAI_KEY": "sk-legacy"}),
			want:   map[string]string{"openai": SeedOpenAI},
		},
		"LegacyAnthropicKey": {
			reason: "the legacy Anthropic key seeds anthropic",
			cfg:    shownConfig(nil, map[string]string{"CODER_AIBRIDGE_ANTHROPIC_KEY": "sk-ant-legacy"}),
			want:   map[string]string{"anthropic": SeedAnthropic},
		},
		"LegacyBedrockRegion": {
			reason: "a legacy Bedrock region alone configures Bedrock, which seeds anthropic",
			cfg:    shownConfig(nil, map[string]string{"CODER_AIBRIDGE_BEDROCK_REGION": "us-east-1"}),
			want:   map[string]string{"anthropic": SeedAnthropic},
		},
		"LegacyBedrockBaseURLShownWithoutASource": {
			reason: "so does a legacy Bedrock base URL, which Coder shows, whatever its value source says",
			cfg:    withSource(shownConfig(nil, map[string]string{"CODER_AIBRIDGE_BEDROCK_BASE_URL": "https://vpce.example.com"}), "CODER_AIBRIDGE_BEDROCK_BASE_URL", false),
			want:   map[string]string{"anthropic": SeedAnthropic},
		},
		"LegacyBedrockAccessKey": {
			reason: "and a legacy Bedrock access key, shown empty",
			cfg:    shownConfig(nil, map[string]string{"CODER_AIBRIDGE_BEDROCK_ACCESS_KEY": "AKIA"}),
			want:   map[string]string{"anthropic": SeedAnthropic},
		},
		"LegacyBaseURLWithoutKey": {
			reason: "a legacy OpenAI base URL without a key seeds nothing",
			cfg:    shownConfig(nil, map[string]string{"CODER_AIBRIDGE_OPENAI_BASE_URL": "https://proxy.example.com/v1"}),
			want:   map[string]string{},
		},
		"LegacyKeyOptionByDefault": {
			reason: "a value source of default is not a value set",
			cfg:    withSource(shownConfig(nil, nil), "CODER_AIBRIDGE_OPENAI_KEY", true),
			want:   map[string]string{},
		},
		"NoConfig": {
			reason: "no config, no names",
			want:   map[string]string{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := SeededProviders(tc.cfg)
			if diff := cmp.Diff(EnvSeeded{Names: tc.want}, got); diff != "" {
				t.Errorf("%s\nSeededProviders: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEnvSeededProvidersAsksCoderOncePerTTLAndKeepsARefusal(t *testing.T) {
	cases := map[string]struct {
		reason      string
		fault       fakecoder.Fault
		wantNames   map[string]string
		wantUnknown string
		wantErr     bool
		wantAsked   int
	}{
		"Answered": {
			reason:    "the fake's environment seeds team-openai; a second call within the TTL asks nothing",
			wantNames: map[string]string{"team-openai": SeedIndexed}, wantAsked: 1,
		},
		"Forbidden": {
			reason:      "a token that may not read the config: unknown, and that answer is kept like any other",
			fault:       fakecoder.Fault{Status: http.StatusForbidden},
			wantUnknown: "403", wantAsked: 1,
		},
		"Unavailable": {
			reason:  "no useful answer: an error, not kept, so the second call asks again",
			fault:   fakecoder.Fault{Status: http.StatusServiceUnavailable},
			wantErr: true, wantAsked: 2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fakecoder.New(fakecoder.Options{})
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			if err := s.SetEnvProviders([]fakecoder.EnvProvider{{Type: "openai", Name: "team-openai", Keys: []string{"sk-env-0123456789"}}}); err != nil {
				t.Fatal(err)
			}
			if tc.fault.Status != 0 {
				if err := s.SetFault(fakecoder.EndpointDeploymentConfig, tc.fault); err != nil {
					t.Fatal(err)
				}
			}
			c, err := New(Config{URL: s.URL(), Token: s.Token()})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := c.EnvSeededProviders(context.Background())
				if (err != nil) != tc.wantErr {
					t.Fatalf("%s\nEnvSeededProviders error %v, want error %t", tc.reason, err, tc.wantErr)
				}
				if diff := cmp.Diff(tc.wantNames, got.Names); diff != "" && !tc.wantErr {
					t.Errorf("%s\nnames: -want, +got:\n%s", tc.reason, diff)
				}
				if !strings.Contains(got.Unknown, tc.wantUnknown) || (tc.wantUnknown == "") != (got.Unknown == "") {
					t.Errorf("%s\nUnknown = %q, want it to say %q", tc.reason, got.Unknown, tc.wantUnknown)
				}
				if strings.Contains(got.Unknown, "sk-env") {
					t.Errorf("the answer carries key material: %q", got.Unknown)
				}
			}
			if n := s.Requests(fakecoder.EndpointDeploymentConfig); n != tc.wantAsked {
				t.Errorf("%s\nasked Coder %d times, want %d", tc.reason, n, tc.wantAsked)
			}
		})
	}
}
