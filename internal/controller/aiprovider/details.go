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
	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// Connection detail keys written to writeConnectionSecretToRef. None is
// secret: the Secret is how a Composition reads them (a workspace
// template's base URL, an IAM role's trust policy).
const (
	// ConnectionGatewayBaseURL is the base URL a client of the provider's
	// type sets: ConnectionGatewayV1URL for the OpenAI-compatible types,
	// ConnectionGatewayURL for anthropic, bedrock and copilot.
	ConnectionGatewayBaseURL = "gatewayBaseURL"
	// ConnectionGatewayURL is the provider's route through Coder's AI
	// Gateway, <Coder URL>/api/v2/ai-gateway/<name>: what Anthropic
	// clients set (ANTHROPIC_BASE_URL).
	ConnectionGatewayURL = "gatewayURL"
	// ConnectionGatewayV1URL is the route with /v1: what OpenAI clients set
	// (OPENAI_BASE_URL).
	ConnectionGatewayV1URL = "gatewayV1URL"
	// ConnectionID is the provider's Coder id.
	ConnectionID = "id"
	// ConnectionName is the provider's Coder-wide name.
	ConnectionName = "name"
	// ConnectionType is the provider's type.
	ConnectionType = "type"
	// ConnectionURL is Coder's URL as the ProviderConfig names it, as an
	// AIGatewayKey's Secret has it.
	ConnectionURL = "url"
	// ConnectionBedrockExternalID is the STS external id Coder generated
	// for a Bedrock role (bedrock.roleARN); absent without one.
	ConnectionBedrockExternalID = "bedrockExternalID"
)

// gatewayPath is where Coder serves the AI Gateway (enterprise/coderd).
const gatewayPath = "/api/v2/ai-gateway/"

// GatewayURL is the route of the provider named name through the AI
// Gateway of the Coder at coderURL.
func GatewayURL(coderURL, name string) string {
	return coder.CanonicalURL(coderURL) + gatewayPath + name
}

// GatewayBaseURL is the base URL a client of a provider of type t named name
// sets. Coder's AI Gateway serves the OpenAI-compatible types under
// <route>/v1 (the prefix includes the version, as OpenAI's own base URL
// does), and anthropic, bedrock and copilot under the route, with their
// clients adding /v1/messages themselves.
func GatewayBaseURL(coderURL string, t codersdk.AIProviderType, name string) string {
	route := GatewayURL(coderURL, name)
	switch t {
	case codersdk.AIProviderTypeAnthropic, codersdk.AIProviderTypeBedrock, codersdk.AIProviderTypeCopilot:
		return route
	default:
		return route + "/v1"
	}
}

// ConnectionDetails are what a Composition reads about the provider p in
// the Coder at coderURL.
func ConnectionDetails(coderURL string, p codersdk.AIProvider) managed.ConnectionDetails {
	route := GatewayURL(coderURL, p.Name)
	d := managed.ConnectionDetails{
		ConnectionGatewayBaseURL: []byte(GatewayBaseURL(coderURL, p.Type, p.Name)),
		ConnectionGatewayURL:     []byte(route),
		ConnectionGatewayV1URL:   []byte(route + "/v1"),
		ConnectionID:             []byte(p.ID.String()),
		ConnectionName:           []byte(p.Name),
		ConnectionType:           []byte(p.Type),
		ConnectionURL:            []byte(coderURL),
	}
	if b := p.Settings.Bedrock; b != nil && b.ExternalID != "" {
		d[ConnectionBedrockExternalID] = []byte(b.ExternalID)
	}
	return d
}
