package fakecoder_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-coder/test/fakecoder"
	"github.com/crossplane-contrib/provider-coder/test/realcoder"
)

// bedrockSettings is a role-based Bedrock configuration that passes
// validation; access keys are write-only and never come back.
const bedrockSettings = `{"_type":"bedrock","_version":1,"region":"us-east-1","model":"m","small_fast_model":"s",` +
	`"role_arn":"arn:aws:iam::123456789012:role/r","access_key":"AKIATEST","access_key_secret":"secret"}`

// contract is every request provider-coder makes, in an order that builds
// the state the later ones need: the happy paths, validation errors,
// conflicts, not-found, unauthorized and forbidden (not an Owner).
var contract = []step{
	{name: "buildinfo needs no session", as: anonymous, method: "GET", path: "/api/v2/buildinfo", wantRes: 200},
	{name: "users/me as the owner", as: owner, method: "GET", path: "/api/v2/users/me", check: checkShape, wantRes: 200},
	{name: "users/me as a member", as: member, method: "GET", path: "/api/v2/users/me", check: checkShape, wantRes: 200},
	{name: "users/me without a token", as: anonymous, method: "GET", path: "/api/v2/users/me", wantRes: 401},
	{name: "users/me with a malformed token", as: malformed, method: "GET", path: "/api/v2/users/me", wantRes: 401},
	{name: "users/me with an unknown token", as: unknown, method: "GET", path: "/api/v2/users/me", wantRes: 401},

	// AI Gateway keys.
	{name: "list keys, none yet", as: owner, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 200},
	{name: "create key b", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"contract-b"}`,
		save: map[string]string{"keyB": "id"}, wantRes: 201},
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
	{name: "delete key b", as: owner, method: "DELETE", path: "/api/v2/ai-gateway/keys/{keyB}", wantRes: 204},

	// AI providers.
	{name: "list providers, none yet", as: owner, method: "GET", path: "/api/v2/ai/providers", wantRes: 200},
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

// TestFakeHonoursCoderContract sends every request provider-coder makes to
// the fake and to the real Coder server, and fails wherever they answer
// differently: status, error message, detail and validations, and the
// fields and types of the body (values too, where they are not generated).
func TestFakeHonoursCoderContract(t *testing.T) {
	coder := realcoder.StartOrSkip(t, realcoder.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	fake := fakecoder.New(fakecoder.Options{})
	fakeMember := fakecoder.New(fakecoder.Options{Member: true})
	for _, s := range []*fakecoder.Server{fake, fakeMember} {
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
	}
	memberClient, err := coder.NewMember(ctx, "member")
	if err != nil {
		t.Fatal(err)
	}
	// A well-formed token no user has: 10 and 22 alphanumerics.
	unknownToken := rand.Text()[:10] + "-" + rand.Text()[:22]
	targets := []*target{
		{name: "fake", url: fake.URL(), member: fakeMember.URL(), vars: map[string]string{},
			tokens: map[session]string{owner: fake.Token(), member: fakeMember.Token(), malformed: "nope", unknown: unknownToken}},
		{name: "real", url: coder.URL.String(), member: coder.URL.String(), vars: map[string]string{},
			tokens: map[session]string{owner: coder.Token, member: memberClient.SessionToken(), malformed: "nope", unknown: unknownToken}},
	}

	for _, s := range contract {
		compare(ctx, t, targets, s)
	}

	// Without a license the keys API is a Premium feature; providers are
	// not licensed.
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
	compare(ctx, t, targets, step{name: "list keys without a license", as: owner, method: "GET", path: "/api/v2/ai-gateway/keys", wantRes: 403})
	compare(ctx, t, targets, step{name: "create key without a license", as: owner, method: "POST", path: "/api/v2/ai-gateway/keys", body: `{"name":"contract-u"}`, wantRes: 403})
	compare(ctx, t, targets, step{name: "list providers without a license", as: owner, method: "GET", path: "/api/v2/ai/providers", wantRes: 200})
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
