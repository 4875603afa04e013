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

package fakecoder_test

import (
	"strings"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The contract's Coders seed one provider from their environment, as
// CODER_AI_GATEWAY_PROVIDER_0_* does on a real deployment: the real
// server from its env vars when it starts, the fake from SetEnvProviders.
// Its base URL is loopback, so nothing is ever called.
var contractSeeded = fakecoder.EnvProvider{
	Type: "openai", Name: "contract-seeded", BaseURL: "http://127.0.0.1:9/v1", Keys: []string{"sk-contract-seeded-0123456789"},
}

// contractSeedEnv are the real server's env vars for contractSeeded.
var contractSeedEnv = []string{
	"CODER_AI_GATEWAY_PROVIDER_0_TYPE=" + contractSeeded.Type,
	"CODER_AI_GATEWAY_PROVIDER_0_NAME=" + contractSeeded.Name,
	"CODER_AI_GATEWAY_PROVIDER_0_BASE_URL=" + contractSeeded.BaseURL,
	"CODER_AI_GATEWAY_PROVIDER_0_KEYS=" + strings.Join(contractSeeded.Keys, ","),
}

// envSeedContract is what the provider reads to tell a seeded provider,
// the seeded row itself, and that Coder's API changes it without a word:
// only the next start of coderd refuses.
var envSeedContract = []step{
	{name: "deployment config: the env-seeded providers, no secret", as: owner, method: "GET", path: "/api/v2/deployment/config",
		fields: []string{"config.ai.bridge.providers", "config.ai.bridge.openai.key", "config.ai.bridge.anthropic.key", "config.ai.bridge.bedrock.access_key"}, wantRes: 200},
	{name: "deployment config: its shape", as: owner, method: "GET", path: "/api/v2/deployment/config", fields: []string{"config.ai.bridge.*"}, wantRes: 200},
	{name: "deployment config as a member", as: member, method: "GET", path: "/api/v2/deployment/config", wantRes: 403},
	{name: "deployment config without a token", as: anonymous, method: "GET", path: "/api/v2/deployment/config", wantRes: 401},
	{name: "the env-seeded provider", as: owner, method: "GET", path: "/api/v2/ai/providers/contract-seeded", wantRes: 200},
	{name: "patch the env-seeded provider's base URL: the API does not refuse", as: owner, method: "PATCH", path: "/api/v2/ai/providers/contract-seeded",
		body: `{"base_url":"http://127.0.0.1:9/v2"}`, wantRes: 200},
}

// keyLimitContract: Coder documents at most 5 keys per provider and its
// environment refuses more (cli/server.go maxKeysPerProvider), but the
// HTTP API enforces no maximum (coderd/ai_providers.go). Keys created
// together come back in the order of their random ids, so only the shape
// is compared.
var keyLimitContract = []step{
	{name: "create provider with six keys", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"openai","name":"contract-six","enabled":true,"base_url":"https://api.openai.com/v1","api_keys":` + sixKeys + `}`,
		save: map[string]string{"six": "id"}, check: checkShape, wantRes: 201},
	{name: "patch provider to seven keys", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{six}",
		body: `{"api_keys":[` + strings.Repeat(`{"api_key":"sk-contract-more-0123456789"},`, 6) + `{"api_key":"sk-contract-last-0123456789"}]}`, check: checkShape, wantRes: 200},
	{name: "delete the provider with seven keys", as: owner, method: "DELETE", path: "/api/v2/ai/providers/{six}", wantRes: 204},
}

const sixKeys = `["sk-contract-k1-0123456789","sk-contract-k2-0123456789","sk-contract-k3-0123456789",` +
	`"sk-contract-k4-0123456789","sk-contract-k5-0123456789","sk-contract-k6-0123456789"]`
