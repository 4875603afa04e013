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
	"context"
	"crypto/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// bedrockSettings is a role-based Bedrock configuration that passes
// validation; access keys are write-only and never come back.
const bedrockSettings = `{"_type":"bedrock","_version":1,"region":"us-east-1","model":"m","small_fast_model":"s",` +
	`"role_arn":"arn:aws:iam::123456789012:role/r","access_key":"AKIATEST","access_key_secret":"secret"}`

// The contract is every request provider-coder makes, in an order that
// builds the state the later ones need: the happy paths, validation
// errors, conflicts, not-found, unauthorized and forbidden (not an Owner).
// It is split by what the real Coder needs to answer it: sessionContract
// and providersContract run on any deployment (AI providers are AGPL),
// licensedKeysContract only with a licence, unlicensedContract once the
// deployment has none.

// entitlementFields are the parts of /api/v2/entitlements the provider
// reads (the AIGateway condition) and that do not depend on which licence
// the real Coder has; with no licence the whole feature list, warnings and
// errors must agree too (unlicensedEntitlementFields).
var (
	entitlementFields           = []string{"has_license", "features.aibridge.entitlement", "features.aibridge.enabled"}
	unlicensedEntitlementFields = append(slices.Clone(entitlementFields),
		"features.*", "warnings", "errors", "trial", "require_telemetry")
)

// sessionContract is what the provider sends before any resource: its
// health check.
var sessionContract = []step{
	{name: "buildinfo needs no session", as: anonymous, method: "GET", path: "/api/v2/buildinfo", wantRes: 200},
	{name: "users/me as the owner", as: owner, method: "GET", path: "/api/v2/users/me", check: checkShape, wantRes: 200},
	{name: "users/me as a member", as: member, method: "GET", path: "/api/v2/users/me", check: checkShape, wantRes: 200},
	{name: "users/me without a token", as: anonymous, method: "GET", path: "/api/v2/users/me", wantRes: 401},
	{name: "users/me with a malformed token", as: malformed, method: "GET", path: "/api/v2/users/me", wantRes: 401},
	{name: "users/me with an unknown token", as: unknown, method: "GET", path: "/api/v2/users/me", wantRes: 401},
	// The Token condition: the session token's own key, by the id before
	// the token's dash.
	{name: "the session token's key", as: owner, method: "GET", path: "/api/v2/users/me/keys/{ownerKey}", check: checkShape, wantRes: 200},
	{name: "the session token's key: what the Token condition reads", as: owner, method: "GET", path: "/api/v2/users/me/keys/{ownerKey}",
		fields: []string{"login_type", "lifetime_seconds", "scope", "scopes", "token_name"}, wantRes: 200},
	{name: "a key no one has", as: owner, method: "GET", path: "/api/v2/users/me/keys/abcdefghij", wantRes: 404},
	{name: "the session token's key without a token", as: anonymous, method: "GET", path: "/api/v2/users/me/keys/{ownerKey}", wantRes: 401},
}

// authCheckBody asks every permission the provider's CoderPermissions
// condition asks (providerconfig.PermissionChecks), ai_gateway_key update,
// which Coder keeps from every user, and deployment_config, which MCP
// servers' configuration needs (update) and the provider reads for the
// AI providers Coder seeds from its environment.
const authCheckBody = `{"checks":{` +
	`"ai_provider:read":{"object":{"resource_type":"ai_provider"},"action":"read"},` +
	`"ai_provider:create":{"object":{"resource_type":"ai_provider"},"action":"create"},` +
	`"ai_provider:update":{"object":{"resource_type":"ai_provider"},"action":"update"},` +
	`"ai_provider:delete":{"object":{"resource_type":"ai_provider"},"action":"delete"},` +
	`"ai_gateway_key:read":{"object":{"resource_type":"ai_gateway_key"},"action":"read"},` +
	`"ai_gateway_key:create":{"object":{"resource_type":"ai_gateway_key"},"action":"create"},` +
	`"ai_gateway_key:delete":{"object":{"resource_type":"ai_gateway_key"},"action":"delete"},` +
	`"ai_gateway_key:update":{"object":{"resource_type":"ai_gateway_key"},"action":"update"},` +
	`"group:read":{"object":{"resource_type":"group","any_org":true},"action":"read"},` +
	`"group:update":{"object":{"resource_type":"group","any_org":true},"action":"update"},` +
	`"user:read":{"object":{"resource_type":"user"},"action":"read"},` +
	`"user:update":{"object":{"resource_type":"user"},"action":"update"},` +
	`"deployment_config:read":{"object":{"resource_type":"deployment_config"},"action":"read"},` +
	`"deployment_config:update":{"object":{"resource_type":"deployment_config"},"action":"update"}}}`

// authCheckContract is the CoderPermissions condition's probe: Coder's
// answer per role, which writes nothing and needs no licence.
var authCheckContract = []step{
	{name: "users/me as a headless user admin", as: userAdmin, method: "GET", path: "/api/v2/users/me", check: checkShape, wantRes: 200},
	{name: "users/me as a headless user admin: its roles", as: userAdmin, method: "GET", path: "/api/v2/users/me", fields: []string{"roles", "login_type"}, wantRes: 200},
	{name: "authcheck as the owner", as: owner, method: "POST", path: "/api/v2/authcheck", body: authCheckBody, wantRes: 200},
	{name: "authcheck as a user admin", as: userAdmin, method: "POST", path: "/api/v2/authcheck", body: authCheckBody, wantRes: 200},
	{name: "authcheck as a member", as: member, method: "POST", path: "/api/v2/authcheck", body: authCheckBody, wantRes: 200},
	{name: "authcheck without a resource type", as: owner, method: "POST", path: "/api/v2/authcheck",
		body: `{"checks":{"x":{"object":{},"action":"read"}}}`, wantRes: 400},
	{name: "authcheck without a token", as: anonymous, method: "POST", path: "/api/v2/authcheck", body: authCheckBody, wantRes: 401},
	{name: "create provider as a user admin", as: userAdmin, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"openai","name":"contract-ua","enabled":true,"base_url":"https://api.openai.com/v1"}`, wantRes: 403},
	{name: "list providers as a user admin", as: userAdmin, method: "GET", path: "/api/v2/ai/providers", wantRes: 403},
}

// licensedKeysContract is the AI Gateway keys API of a licensed deployment
// with AI Gateway enabled.
var licensedKeysContract = []step{
	{name: "entitlements with a licence", as: owner, method: "GET", path: "/api/v2/entitlements", fields: entitlementFields, wantRes: 200},
	{name: "list keys, none yet", as: owner, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 200},
	{name: "create key b", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"contract-b"}`,
		save: map[string]string{"keyB": "id", "keyBSecret": "key"}, wantRes: 201},
	{name: "create key a", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"contract-a"}`,
		save: map[string]string{"keyA": "id"}, wantRes: 201},
	{name: "list keys, two", as: owner, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 200},
	{name: "create key with a taken name", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"contract-a"}`},
	{name: "create key with a taken name in capitals", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"Contract-A"}`},
	{name: "create key with an invalid name", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"bad--name"}`},
	{name: "create key with a 65-character name", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys",
		body: `{"name":"a2345678901234567890123456789012345678901234567890123456789012345"}`},
	{name: "create key without a name", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{}`},
	{name: "create key with a body that is not JSON", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `not json`},
	{name: "delete key a", as: owner, method: "DELETE", path: "/api/v2/ai-gateway/keys/{keyA}", wantRes: 204},
	{name: "delete key a again", as: owner, method: "DELETE", path: "/api/v2/ai-gateway/keys/{keyA}", wantRes: 404},
	{name: "delete key with an id that is not a UUID", as: owner, method: "DELETE", path: "/api/v2/ai-gateway/keys/not-a-uuid"},
	{name: "list keys as a member", as: member, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 403},
	{name: "create key as a member", as: member, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"contract-m"}`, wantRes: 403},
	{name: "delete key as a member", as: member, method: "DELETE", path: "/api/v2/ai-gateway/keys/{keyB}", wantRes: 403},
	{name: "list keys without a token", as: anonymous, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 401},
	// What a gateway replica's dial meets before the WebSocket upgrade
	// (enterprise/coderd/aibridgeserve.go aiGatewayServe). A dial that
	// passes these upgrades, which this plain-HTTP contract cannot follow.
	{name: "serve without a gateway key", as: anonymous, method: "GET", path: serveDial, wantRes: 401},
	{name: "serve with an unknown gateway key", as: anonymous, method: "GET", path: serveDial, gatewayKey: unknownGatewayKey, wantRes: 401},
	{name: "serve with a session token in place of a gateway key", as: owner, method: "GET", path: serveDial, wantRes: 401},
	{name: "serve with a valid gateway key but no API version", as: anonymous, method: "GET", path: "/api/v2/ai-gateway/serve",
		gatewayKey: "{keyBSecret}", wantRes: 400},
	{name: "delete key b", as: owner, method: "DELETE", path: "/api/v2/ai-gateway/keys/{keyB}", wantRes: 204},
}

// providersContract is the AI providers API, which needs no licence.
var providersContract = []step{
	{name: "list providers, only the env-seeded one", as: owner, method: "GET", path: "/api/v2/ai/providers", wantRes: 200},
	// One key per request: keys inserted together share created_at and
	// come back in the order of their random ids, on both servers.
	{name: "create openai provider", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"openai","name":"contract-openai","display_name":"OpenAI","icon":"/icon/openai.svg","enabled":true,` +
			`"base_url":"https://api.openai.com/v1","api_keys":["sk-contract-0123456789abcdef"]}`,
		save: map[string]string{"openai": "id", "openaiKey0": "api_keys.0.id"}, wantRes: 201},
	{name: "create provider with a taken name", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"openai","name":"contract-openai","enabled":true,"base_url":"https://api.openai.com/v1"}`, wantRes: 409},
	{name: "create provider with every field invalid", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"nope","name":"Bad Name","enabled":true,"base_url":"ftp://x","api_keys":[""," padded "]}`, wantRes: 400},
	{name: "create provider without type, name or base URL", as: owner, method: "POST", path: "/api/v2/ai/providers", body: `{}`, wantRes: 400},
	{name: "create bedrock provider without settings", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"bedrock","name":"contract-bedrock","enabled":true,"base_url":"https://bedrock-runtime.us-east-1.amazonaws.com","api_keys":["k"]}`, wantRes: 400},
	{name: "create provider with settings without a discriminator", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"anthropic","name":"contract-x","enabled":true,"base_url":"https://api.anthropic.com/","settings":{"region":"us-east-1"}}`, wantRes: 400},
	{name: "create anthropic provider with bedrock settings and keys", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"anthropic","name":"contract-claude","enabled":true,"base_url":"https://api.anthropic.com/","api_keys":["k"],"settings":` + bedrockSettings + `}`},
	{name: "create anthropic provider on bedrock", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"anthropic","name":"contract-claude","enabled":false,"base_url":"https://bedrock-runtime.us-east-1.amazonaws.com","settings":` + bedrockSettings + `}`,
		save: map[string]string{"claude": "id"}, wantRes: 201},
	{name: "create copilot provider", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"copilot","name":"contract-copilot","enabled":true,"base_url":"https://api.githubcopilot.com"}`, wantRes: 201},
	{name: "list providers, three", as: owner, method: "GET", path: "/api/v2/ai/providers", wantRes: 200},
	{name: "get provider by id", as: owner, method: "GET", path: "/api/v2/ai/providers/{openai}", wantRes: 200},
	{name: "get provider by name", as: owner, method: "GET", path: "/api/v2/ai/providers/contract-claude", wantRes: 200},
	{name: "get provider that does not exist", as: owner, method: "GET", path: "/api/v2/ai/providers/contract-none", wantRes: 404},
	{name: "get provider with an invalid name", as: owner, method: "GET", path: "/api/v2/ai/providers/Bad_Name", wantRes: 400},
	{name: "patch provider with nothing", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}", body: `{}`, wantRes: 400},
	{name: "patch provider display name, icon, enabled, base URL", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}",
		body: `{"display_name":"Open AI","icon":"/icon/x.svg","enabled":false,"base_url":"https://proxy.example.com/v1"}`, wantRes: 200},
	{name: "patch provider display name to empty", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}", body: `{"display_name":""}`, wantRes: 200},
	{name: "patch provider keys: keep the key, add a second", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}",
		body: `{"api_keys":[{"id":"{openaiKey0}"},{"api_key":"sk-contract-second-key"}]}`,
		save: map[string]string{"openaiKey1": "api_keys.1.id"}, wantRes: 200},
	{name: "patch provider keys: keep the second, drop the first, add a third", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}",
		body: `{"api_keys":[{"id":"{openaiKey1}"},{"api_key":"sk-contract-third-key"}]}`, wantRes: 200},
	{name: "patch provider keys: an id that is gone", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}",
		body: `{"api_keys":[{"id":"{openaiKey0}"}]}`},
	{name: "patch provider keys: malformed mutations", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}",
		body: `{"api_keys":[{},{"api_key":""},{"api_key":" x"},{"id":"{openaiKey1}"},{"id":"{openaiKey1}"}]}`, wantRes: 400},
	{name: "patch provider with an invalid base URL", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}", body: `{"base_url":""}`, wantRes: 400},
	{name: "patch copilot provider with keys", as: owner, method: "PATCH", path: "/api/v2/ai/providers/contract-copilot",
		body: `{"api_keys":[{"api_key":"k"}]}`, wantRes: 400},
	{name: "patch openai provider with bedrock settings", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{openai}",
		body: `{"settings":` + bedrockSettings + `}`, wantRes: 400},
	{name: "patch bedrock provider's external id", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{claude}",
		body: `{"settings":{"_type":"bedrock","_version":1,"region":"us-east-1","external_id":"mine"}}`, wantRes: 400},
	{name: "patch bedrock provider's region, credentials kept", as: owner, method: "PATCH", path: "/api/v2/ai/providers/{claude}",
		body: `{"settings":{"_type":"bedrock","_version":1,"region":"eu-west-1","model":"m2","role_arn":"arn:aws:iam::123456789012:role/r"}}`, wantRes: 200},
	{name: "patch provider that does not exist", as: owner, method: "PATCH", path: "/api/v2/ai/providers/contract-none", body: `{"enabled":true}`, wantRes: 404},
	{name: "list providers as a member", as: member, method: "GET", path: "/api/v2/ai/providers", wantRes: 403},
	{name: "get provider as a member", as: member, method: "GET", path: "/api/v2/ai/providers/contract-claude", wantRes: 403},
	{name: "create provider as a member", as: member, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"openai","name":"contract-m","enabled":true,"base_url":"https://api.openai.com/v1"}`, wantRes: 403},
	{name: "patch provider as a member", as: member, method: "PATCH", path: "/api/v2/ai/providers/contract-claude", body: `{"enabled":true}`, wantRes: 403},
	{name: "delete provider as a member", as: member, method: "DELETE", path: "/api/v2/ai/providers/contract-claude", wantRes: 403},
	{name: "list providers without a token", as: anonymous, method: "GET", path: "/api/v2/ai/providers", wantRes: 401},
	{name: "delete provider", as: owner, method: "DELETE", path: "/api/v2/ai/providers/{openai}", wantRes: 204},
	{name: "get deleted provider", as: owner, method: "GET", path: "/api/v2/ai/providers/{openai}", wantRes: 404},
	{name: "delete deleted provider", as: owner, method: "DELETE", path: "/api/v2/ai/providers/contract-openai", wantRes: 404},
	{name: "create provider with a deleted provider's name", as: owner, method: "POST", path: "/api/v2/ai/providers",
		body: `{"type":"openai","name":"contract-openai","enabled":true,"base_url":"https://api.openai.com/v1"}`, wantRes: 201},
	{name: "list providers after delete and re-create", as: owner, method: "GET", path: "/api/v2/ai/providers", wantRes: 200},
}

// noKey is a well-formed key id: without a licence the 403 comes before
// the id is parsed or looked up.
const noKey = "00000000-0000-0000-0000-000000000001"

// serveDial is the URL a gateway replica dials (coderd/aibridged/dialer.go),
// with the aibridged API version of Coder v2.36.0.
const serveDial = "/api/v2/ai-gateway/serve?version=1.2"

// unknownGatewayKey is shaped like a gateway key (43 alphanumerics) but no
// deployment has it.
const unknownGatewayKey = "Abcdefghij0123456789abcdefghij0123456789abc"

// unlicensedContract is what a deployment without a licence answers: the
// keys API is a Premium feature (RequireFeatureMW's 403, after the
// session's 401), the entitlements say why, and AI providers still work.
var unlicensedContract = []step{
	{name: "entitlements without a licence", as: owner, method: "GET", path: "/api/v2/entitlements", fields: unlicensedEntitlementFields, wantRes: 200},
	{name: "entitlements without a licence or a token", as: anonymous, method: "GET", path: "/api/v2/entitlements", fields: unlicensedEntitlementFields, wantRes: 200},
	{name: "entitlements without a licence, malformed token", as: malformed, method: "GET", path: "/api/v2/entitlements", fields: unlicensedEntitlementFields, wantRes: 200},
	{name: "list keys without a license", as: owner, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 403},
	{name: "create key without a license", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"contract-u"}`, wantRes: 403},
	{name: "create key with an invalid name without a license", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"bad--name"}`, wantRes: 403},
	{name: "delete key without a license", as: owner, method: "DELETE", path: "/api/v2/ai-gateway/keys/" + noKey, wantRes: 403},
	{name: "delete key with an id that is not a UUID without a license", as: owner, method: "DELETE", path: "/api/v2/ai-gateway/keys/not-a-uuid", wantRes: 403},
	{name: "list keys as a member without a license", as: member, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 403},
	{name: "list keys without a license or a token", as: anonymous, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 401},
	// enterprise/coderd/coderd.go mounts /ai-gateway/serve behind
	// RequireFeatureMW alone: without a licence the Premium 403 comes
	// before the key is looked at, so the key's 401s need a licence
	// (licensedKeysContract).
	{name: "serve without a license or a gateway key", as: anonymous, method: "GET", path: serveDial, wantRes: 403},
	{name: "serve with an unknown gateway key without a license", as: anonymous, method: "GET", path: serveDial, gatewayKey: unknownGatewayKey, wantRes: 403},
	{name: "list providers without a license", as: owner, method: "GET", path: "/api/v2/ai/providers", wantRes: 200},
}

// TestFakeHonoursCoderContract sends every request provider-coder makes to
// the fake and to the real Coder server, and fails wherever they answer
// differently: status, error message, detail and validations, and the
// fields and types of the body (values too, where they are not generated).
//
// The real Coder runs unlicensed unless the user supplies a licence
// (realcoder.EnvLicenseFile). Unlicensed, the licensed keys cases skip in
// their own subtest and the rest is compared with an unlicensed fake.
// Licensed, the keys cases run too, then the licence is deleted from the
// real Coder and the unlicensed cases run as well. One real Coder either
// way.
func TestFakeHonoursCoderContract(t *testing.T) {
	coder := realcoder.StartOrSkip(t, realcoder.Options{Env: contractSeedEnv})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// The fakes start as licensed as the real Coder is, with a login
	// session as the harness's Owner has (a password login's, 24h).
	fake := fakecoder.New(fakecoder.Options{Unlicensed: !coder.Licensed, TokenLoginType: codersdk.LoginTypePassword, TokenLifetime: 24 * time.Hour})
	fakeMember := fakecoder.New(fakecoder.Options{Member: true, Unlicensed: !coder.Licensed})
	fakeUserAdmin := fakecoder.New(fakecoder.Options{Member: true, UserAdmin: true, Unlicensed: !coder.Licensed})
	for _, s := range []*fakecoder.Server{fake, fakeMember, fakeUserAdmin} {
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
	}
	if err := fake.SetEnvProviders([]fakecoder.EnvProvider{contractSeeded}); err != nil {
		t.Fatal(err)
	}
	memberClient, err := coder.NewMember(ctx, "member")
	if err != nil {
		t.Fatal(err)
	}
	userAdminToken, err := coder.NewHeadless(ctx, "user-admin", []string{codersdk.RoleUserAdmin}, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// A well-formed token no user has: 10 and 22 alphanumerics.
	unknownToken := rand.Text()[:10] + "-" + rand.Text()[:22]
	targets := []*target{
		{name: "fake", url: fake.URL(), member: fakeMember.URL(), userAdmin: fakeUserAdmin.URL(), vars: map[string]string{},
			tokens: map[session]string{owner: fake.Token(), member: fakeMember.Token(), userAdmin: fakeUserAdmin.Token(), malformed: "nope", unknown: unknownToken}},
		{name: "real", url: coder.URL.String(), member: coder.URL.String(), userAdmin: coder.URL.String(), vars: map[string]string{},
			tokens: map[session]string{owner: coder.Token, member: memberClient.SessionToken(), userAdmin: userAdminToken, malformed: "nope", unknown: unknownToken}},
	}
	for _, tg := range targets {
		tg.vars["ownerKey"], _, _ = strings.Cut(tg.tokens[owner], "-")
	}
	fakeMemberUser := addContractMember(t, fake)
	run := func(t *testing.T, steps []step) {
		t.Helper()
		for _, s := range steps {
			compare(ctx, t, targets, s)
		}
	}

	run(t, sessionContract)
	run(t, authCheckContract)
	t.Run("licensed AI Gateway keys", func(t *testing.T) {
		realcoder.SkipUnlessLicensed(t, coder)
		run(t, licensedKeysContract)
	})
	run(t, providersContract)
	run(t, mcpContract)
	run(t, envSeedContract)
	run(t, keyLimitContract)
	t.Run("licensed AI budgets", func(t *testing.T) {
		realcoder.SkipUnlessLicensed(t, coder)
		setupBudgetContract(ctx, t, coder, fake, fakeMemberUser, targets)
		run(t, licensedBudgetsContract)
	})

	// Without a license the keys API is a Premium feature; providers are
	// not licensed.
	if coder.Licensed {
		licenses, err := coder.Client().Licenses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range licenses {
			if err := coder.Client().DeleteLicense(ctx, l.ID); err != nil {
				t.Fatal(err)
			}
		}
		fake.SetLicensed(false)
		fakeMember.SetLicensed(false)
	}
	run(t, unlicensedContract)
	run(t, unlicensedBudgetsContract)
}

// compare sends s to the fake (targets[0]) and the real server
// (targets[1]) and reports every difference.
func compare(ctx context.Context, t *testing.T, targets []*target, s step) {
	t.Helper()
	var got [2]response
	ok := true
	for i, tg := range targets {
		r, done := tg.do(ctx, t, s)
		got[i], ok = r, ok && done
	}
	if !ok {
		t.Errorf("%s: skipped, an earlier step did not save what it needs", s.name)
		return
	}
	fakeRes, realRes := got[0], got[1]
	if s.wantRes != 0 && realRes.Status != s.wantRes {
		// The contract's own expectation is stale, not the fake.
		t.Errorf("%s: the real server answered %d, the contract expects %d: %v", s.name, realRes.Status, s.wantRes, realRes.Body)
	}
	if diff := cmp.Diff(realRes, fakeRes); diff != "" {
		t.Errorf("%s %s (%s): the fake differs from the real server (-real +fake):\n%s", s.method, s.path, s.name, diff)
	}
}
