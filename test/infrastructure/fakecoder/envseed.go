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
	"cmp"
	"fmt"
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// EndpointDeploymentConfig serves the deployment's configuration.
const EndpointDeploymentConfig = "GET /api/v2/deployment/config"

// EnvProvider is one indexed AI provider of the deployment's environment,
// CODER_AI_GATEWAY_PROVIDER_<N>_<KEY> (cli/server.go
// ReadAIProvidersFromEnv), with its secrets: unlike
// codersdk.AIProviderConfig, whose secret fields never reach JSON, it
// carries them over the admin API. Legacy CODER_AIBRIDGE_OPENAI_* and
// similar variables are not modelled.
type EnvProvider struct {
	Type                   string   `json:"type"`
	Name                   string   `json:"name,omitempty"`
	BaseURL                string   `json:"base_url,omitempty"`
	Keys                   []string `json:"keys,omitempty"`
	BedrockBaseURL         string   `json:"bedrock_base_url,omitempty"`
	BedrockRegion          string   `json:"bedrock_region,omitempty"`
	BedrockAccessKey       string   `json:"bedrock_access_key,omitempty"`
	BedrockAccessKeySecret string   `json:"bedrock_access_key_secret,omitempty"`
	BedrockModel           string   `json:"bedrock_model,omitempty"`
	BedrockSmallFastModel  string   `json:"bedrock_small_fast_model,omitempty"`
}

func (p EnvProvider) config() codersdk.AIProviderConfig {
	c := codersdk.AIProviderConfig{Type: p.Type, Name: cmp.Or(p.Name, p.Type), Keys: p.Keys, BaseURL: p.BaseURL,
		BedrockBaseURL: p.BedrockBaseURL, BedrockRegion: p.BedrockRegion, BedrockModel: p.BedrockModel, BedrockSmallFastModel: p.BedrockSmallFastModel}
	if p.BedrockAccessKey != "" {
		c.BedrockAccessKeys, c.BedrockAccessKeySecrets = []string{p.BedrockAccessKey}, []string{p.BedrockAccessKeySecret}
	}
	return c
}

// seeded is the provider coderd seeds from p (providersFromEnv,
// coderd/ai_providers_migrate.go): Bedrock fields make it a Bedrock
// provider whose base URL is the Bedrock one and which has no API keys.
func (p EnvProvider) seeded() ProviderRow {
	c := p.config()
	row := ProviderRow{Type: codersdk.AIProviderType(c.Type), Name: c.Name, BaseURL: c.BaseURL}
	if c.Type == string(codersdk.AIProviderTypeAnthropic) || c.Type == string(codersdk.AIProviderTypeBedrock) {
		b := codersdk.NewAIProviderBedrockSettings(p.BedrockRegion, p.BedrockAccessKey, p.BedrockAccessKeySecret, p.BedrockModel, p.BedrockSmallFastModel)
		if codersdk.IsBedrockConfigured(p.BedrockBaseURL, b) {
			row.Settings.Bedrock, row.BaseURL = &b, p.BedrockBaseURL
		}
	}
	if row.Settings.Bedrock == nil && row.Type != codersdk.AIProviderTypeCopilot {
		for _, k := range p.Keys {
			row.APIKeys = append(row.APIKeys, ProviderKeyRow{APIKey: k})
		}
	}
	return row
}

// SetEnvProviders makes ps the indexed AI providers of the deployment's
// environment, which /api/v2/deployment/config then shows, and seeds them
// as coderd does when it starts with them (SeedFromEnv).
func (s *Server) SetEnvProviders(ps []EnvProvider) error {
	s.mu.Lock()
	s.envProviders = slices.Clone(ps)
	s.mu.Unlock()
	return s.SeedFromEnv()
}

// SeedFromEnv is what coderd does with its environment's AI providers at
// every start (SeedAIProvidersFromEnv, coderd/ai_providers_migrate.go): a
// provider with no row of its name is inserted, one whose row was deleted
// stays deleted, and one whose live row no longer hashes as the environment
// does (type, base URL, Bedrock region, API keys and Bedrock access key
// pair) is the error coderd refuses to start with. Like coderd, it inserts
// nothing when it fails.
func (s *Server) SeedFromEnv() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var insert []ProviderRow
	for _, p := range s.envProviders {
		want := p.seeded()
		var live, deleted bool
		for _, row := range s.providers {
			if row.Name != want.Name {
				continue
			}
			deleted = deleted || row.Deleted
			if !row.Deleted {
				live = true
				if !sameCanonical(*row, want) {
					return fmt.Errorf("seed ai providers from env: AI provider %q already exists in the database and differs from the current environment configuration; "+
						"update the provider through the API or remove the CODER_AIBRIDGE_* (legacy) / CODER_AI_GATEWAY_* env vars to stop seeding it", want.Name)
				}
			}
		}
		if !live && !deleted {
			insert = append(insert, want)
		}
	}
	t := s.now()
	for _, row := range insert {
		// Seeded rows store the name as their display name, and are
		// enabled (InsertAIProvider in SeedAIProvidersFromEnv).
		row.ID, row.DisplayName, row.Enabled, row.CreatedAt, row.UpdatedAt = uuid.New(), row.Name, true, t, t
		for i := range row.APIKeys {
			row.APIKeys[i] = ProviderKeyRow{ID: uuid.New(), APIKey: row.APIKeys[i].APIKey, CreatedAt: t, UpdatedAt: t}
		}
		sortKeys(row.APIKeys)
		ensureBedrockExternalID(&row.Settings)
		s.providers = append(s.providers, &row)
	}
	return nil
}

// sameCanonical compares what computeProviderHash hashes: the type (a row
// of type anthropic with Bedrock settings counts as bedrock, as the
// start-up backfill makes it), the base URL, the Bedrock region, and the
// sorted API keys with the Bedrock access key pair, where an absent key
// hashes as an empty one.
func sameCanonical(row, want ProviderRow) bool {
	typ := row.Type
	if row.Settings.Bedrock != nil && typ == codersdk.AIProviderTypeAnthropic {
		typ = codersdk.AIProviderTypeBedrock
	}
	rb, wb := row.Settings.Bedrock, want.Settings.Bedrock
	if typ != want.Type || row.BaseURL != want.BaseURL || (rb == nil) != (wb == nil) ||
		!slices.Equal(slices.Sorted(slices.Values(row.PlaintextKeys())), slices.Sorted(slices.Values(want.PlaintextKeys()))) {
		return false
	}
	return rb == nil || (rb.Region == wb.Region && ptrValue(rb.AccessKey) == ptrValue(wb.AccessKey) && ptrValue(rb.AccessKeySecret) == ptrValue(wb.AccessKeySecret))
}

func ptrValue(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// deploymentConfig mirrors deploymentValues (coderd/deployment.go): an
// Owner's read (a member's is the plain 403) of the deployment's values
// and options with every secret emptied (WithoutSecrets,
// DeploymentOptionsWithoutSecrets). The values are the defaults and the
// environment's indexed AI providers, whose keys and Bedrock credentials
// codersdk never encodes.
func (s *Server) deploymentConfig(*http.Request) reply {
	s.mu.Lock()
	owner, env := s.owner, slices.Clone(s.envProviders)
	s.mu.Unlock()
	if !owner {
		return forbiddenReply
	}
	vals := &codersdk.DeploymentValues{}
	opts := vals.Options()
	if err := opts.SetDefaults(); err != nil {
		return errorReply(http.StatusInternalServerError, "Internal error.", err.Error())
	}
	for _, p := range env {
		vals.AI.BridgeConfig.Providers = append(vals.AI.BridgeConfig.Providers, p.config())
	}
	shown, err := vals.WithoutSecrets()
	if err != nil {
		return errorReply(http.StatusInternalServerError, "Internal error.", err.Error())
	}
	return reply{http.StatusOK, codersdk.DeploymentConfig{Values: shown, Options: codersdk.DeploymentOptionsWithoutSecrets(opts)}}
}

// envRoutes mounts the deployment config behind the session, as
// coderd/coderd.go mounts /deployment with apiKeyMiddleware.
func (s *Server) envRoutes(handle func(endpoint string, h http.Handler)) {
	handle(EndpointDeploymentConfig, s.requireAuth(s.api(s.deploymentConfig)))
}

// envAdminRoutes serves PUT /fakecoder/admin/env-providers: []EnvProvider,
// answered with coderd's start-up error as a 409 when seeding fails.
func (s *Server) envAdminRoutes(mux *http.ServeMux, p string) {
	mux.HandleFunc("PUT "+p+"/env-providers", func(w http.ResponseWriter, r *http.Request) {
		var ps []EnvProvider
		if !decodeAdmin(w, r, &ps) {
			return
		}
		if err := s.SetEnvProviders(ps); err != nil {
			adminError(w, http.StatusConflict, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
