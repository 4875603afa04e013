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
	"cmp"
	"context"
	"net/http"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

// EndpointDeploymentConfig is the deployment's configuration, its secrets
// left out (coderd/deployment.go deploymentValues).
const EndpointDeploymentConfig = "/api/v2/deployment/config"

// seededTTL is how long an answer of which providers Coder seeds from its
// environment serves. The environment changes only when coderd restarts,
// and the answer is asked for only before a PATCH of the fields seeding
// concerns, so a refused PATCH retried at every reconcile asks at most
// once per seededTTL per client.
const seededTTL = 5 * time.Minute

// The environment variables that seed AI providers, as a condition names
// them.
const (
	SeedIndexed   = "CODER_AI_GATEWAY_PROVIDER_<N>_* (or CODER_AIBRIDGE_PROVIDER_<N>_*)"
	SeedOpenAI    = "CODER_AIBRIDGE_OPENAI_*"
	SeedAnthropic = "CODER_AIBRIDGE_ANTHROPIC_* or CODER_AIBRIDGE_BEDROCK_*"
)

// The names the legacy variables seed (aibridge/config/config.go
// ProviderOpenAI and ProviderAnthropic).
const (
	legacyOpenAIName    = "openai"
	legacyAnthropicName = "anthropic"
)

// EnvSeeded is which AI providers a Coder deployment seeds from its
// environment when it starts (coderd/ai_providers_migrate.go
// SeedAIProvidersFromEnv), which refuses to start when such a provider no
// longer matches the environment.
type EnvSeeded struct {
	// Names maps each seeded provider's name to the variables seeding it.
	Names map[string]string
	// Unknown says why Coder could not tell, when it could not; Names is
	// then empty.
	Unknown string
}

// DeploymentConfig returns the deployment's configuration as Coder shows
// it: secret values empty, and each option's value source.
func (c *Client) DeploymentConfig(ctx context.Context) (*codersdk.DeploymentConfig, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointDeploymentConfig)
	cfg, err := c.sdk.DeploymentConfig(ctx)
	return cfg, wrap(rec, err)
}

// EnvSeededProviders returns which providers the deployment seeds from its
// environment, as Coder answered at most seededTTL ago. When Coder refuses
// to show its config (403: the token's user may not read it) or answers
// something that is not one (Invalid), that is the answer: EnvSeeded says
// it is unknown, and it is kept as long as any other. An error is returned
// only while Coder does not answer, or not usefully (Unavailable,
// Unauthorized, Unknown), and is not kept.
func (c *Client) EnvSeededProviders(ctx context.Context) (EnvSeeded, error) {
	return c.seeded.get(ctx, c, func(ctx context.Context) (EnvSeeded, error) {
		cfg, err := c.DeploymentConfig(ctx)
		switch ClassOf(err) {
		case "":
			return SeededProviders(cfg), nil
		case ClassForbidden, ClassInvalid, ClassNotFound:
			return EnvSeeded{Unknown: err.Error()}, nil
		default:
			return EnvSeeded{}, err
		}
	})
}

// SeededProviders mirrors providersFromEnv (coderd/ai_providers_migrate.go)
// on the config Coder shows: every indexed provider, named by its name or
// else its type; "openai" when the legacy OpenAI key is set; "anthropic"
// when the legacy Anthropic key is set or legacy Bedrock is configured
// (codersdk.IsBedrockConfigured: a base URL, a region or an access key).
// The legacy variables are read from the options, by their env names, as
// codersdk deprecates their fields. Coder shows secrets empty, so a secret
// option counts as set when its value source says it was (env, flag or
// YAML), even if set to empty.
func SeededProviders(cfg *codersdk.DeploymentConfig) EnvSeeded {
	s := EnvSeeded{Names: map[string]string{}}
	if cfg == nil || cfg.Values == nil {
		return s
	}
	if optionSet(cfg, "CODER_AIBRIDGE_OPENAI_KEY") {
		s.Names[legacyOpenAIName] = SeedOpenAI
	}
	for _, env := range []string{"CODER_AIBRIDGE_ANTHROPIC_KEY", "CODER_AIBRIDGE_BEDROCK_BASE_URL", "CODER_AIBRIDGE_BEDROCK_REGION",
		"CODER_AIBRIDGE_BEDROCK_ACCESS_KEY", "CODER_AIBRIDGE_BEDROCK_ACCESS_KEY_SECRET"} {
		if optionSet(cfg, env) {
			s.Names[legacyAnthropicName] = SeedAnthropic
		}
	}
	for _, p := range cfg.Values.AI.BridgeConfig.Providers {
		if name := cmp.Or(p.Name, p.Type); name != "" {
			s.Names[name] = SeedIndexed
		}
	}
	return s
}

// optionSet reports whether the option read from env has a value, or, its
// value hidden, was set other than by its default (serpent's value sources
// "" and "default").
func optionSet(cfg *codersdk.DeploymentConfig, env string) bool {
	for _, o := range cfg.Options {
		if o.Env != env {
			continue
		}
		if o.Value != nil && o.Value.String() != "" {
			return true
		}
		return o.ValueSource != "" && o.ValueSource != "default"
	}
	return false
}
