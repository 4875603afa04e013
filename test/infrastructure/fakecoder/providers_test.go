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
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	"k8s.io/utils/ptr"

	"github.com/coder/coder/v2/codersdk"
)

const (
	keyA = "sk-test-aaaaaaaaaaaaaaaaaaaa-1111"
	keyB = "sk-test-bbbbbbbbbbbbbbbbbbbb-2222"
	keyC = "sk-test-cccccccccccccccccccc-3333"
)

func openAIRequest(name string, keys ...string) codersdk.CreateAIProviderRequest {
	return codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeOpenAI, Name: name, Enabled: true,
		BaseURL: "https://api.openai.com/v1", APIKeys: keys,
	}
}

func TestAProviderKeepsItsNameAndIsSoftDeletedFreeingTheName(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)

	created := must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("openai", keyA)))
	if created.DisplayName != "openai" {
		t.Errorf("display name = %q, want the name as fallback", created.DisplayName)
	}
	if !created.CreatedAt.Equal(created.UpdatedAt) {
		t.Errorf("created_at %v != updated_at %v", created.CreatedAt, created.UpdatedAt)
	}
	byID := must[codersdk.AIProvider](t)(c.AIProvider(ctx, created.ID.String()))
	byName := must[codersdk.AIProvider](t)(c.AIProvider(ctx, "openai"))
	if diff := cmp.Diff(created, byID); diff != "" {
		t.Errorf("get by id (-create +get):\n%s", diff)
	}
	if diff := cmp.Diff(created, byName); diff != "" {
		t.Errorf("get by name (-create +get):\n%s", diff)
	}

	updated := must[codersdk.AIProvider](t)(c.UpdateAIProvider(ctx, "openai", codersdk.UpdateAIProviderRequest{
		DisplayName: ptr.To("OpenAI"), Enabled: ptr.To(false),
	}))
	if updated.DisplayName != "OpenAI" || updated.Enabled || !updated.UpdatedAt.After(created.UpdatedAt) {
		t.Errorf("update = %+v", updated)
	}

	// Name is immutable: PATCH ignores it like any unknown field.
	res, err := c.Request(ctx, http.MethodPatch, "/api/v2/ai/providers/openai", json.RawMessage(`{"name":"renamed","icon":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if got := must[codersdk.AIProvider](t)(c.AIProvider(ctx, created.ID.String())); got.Name != "openai" || got.Icon != "x" {
		t.Errorf("after rename attempt: name %q icon %q", got.Name, got.Icon)
	}

	// Soft delete: gone from the API, kept (disabled) in storage.
	if err := c.DeleteAIProvider(ctx, "openai"); err != nil {
		t.Fatal(err)
	}
	notFound := notFoundReply.body.(codersdk.Response)
	_, err = c.AIProvider(ctx, created.ID.String())
	wantAPIError(t, err, http.StatusNotFound, notFound)
	_, err = c.UpdateAIProvider(ctx, created.ID.String(), codersdk.UpdateAIProviderRequest{Icon: ptr.To("y")})
	wantAPIError(t, err, http.StatusNotFound, notFound)
	wantAPIError(t, c.DeleteAIProvider(ctx, "openai"), http.StatusNotFound, notFound)
	if list := must[[]codersdk.AIProvider](t)(c.AIProviders(ctx)); len(list) != 0 {
		t.Errorf("list after delete = %v", list)
	}
	rows := s.Providers(true)
	if len(rows) != 1 || !rows[0].Deleted || rows[0].Enabled || rows[0].PlaintextKeys()[0] != keyA {
		t.Errorf("soft-deleted row = %+v", rows)
	}
	if live := s.Providers(false); len(live) != 0 {
		t.Errorf("live rows = %+v", live)
	}

	// The name is free again.
	again := must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("openai")))
	if again.ID == created.ID {
		t.Error("re-created provider reused the deleted row's id")
	}
}

func TestProviderListOrderedByName(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{})
	ctx := testContext(t)
	for _, name := range []string{"zeta", "alpha", "mid"} {
		must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest(name)))
	}
	var names []string
	for _, p := range must[[]codersdk.AIProvider](t)(c.AIProviders(ctx)) {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"alpha", "mid", "zeta"}, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestAnInvalidProviderCreateGetsCodersValidationErrors(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{})
	ctx := testContext(t)

	bedrock := func(b codersdk.AIProviderBedrockSettings) codersdk.AIProviderSettings {
		return codersdk.AIProviderSettings{Bedrock: &b}
	}
	invalid := func(field, detail string) codersdk.Response {
		return codersdk.Response{Message: "Invalid AI provider request.",
			Validations: []codersdk.ValidationError{{Field: field, Detail: detail}}}
	}
	tests := []struct {
		name   string
		modify func(*codersdk.CreateAIProviderRequest)
		want   codersdk.Response
	}{
		{"missing type", func(r *codersdk.CreateAIProviderRequest) { r.Type = "" },
			invalid("type", "type is required")},
		{"bad name", func(r *codersdk.CreateAIProviderRequest) { r.Name = "Bad_Name" },
			invalid("name", "name must match ^[a-z0-9]+(-[a-z0-9]+)*$ (lowercase alphanumeric, hyphens between words)")},
		{"missing base url", func(r *codersdk.CreateAIProviderRequest) { r.BaseURL = "" },
			invalid("base_url", "base_url is required")},
		{"ftp base url", func(r *codersdk.CreateAIProviderRequest) { r.BaseURL = "ftp://example.com" },
			invalid("base_url", `base_url scheme must be http or https, got "ftp"`)},
		{"empty key", func(r *codersdk.CreateAIProviderRequest) { r.APIKeys = []string{""} },
			invalid("api_keys[0]", "api_keys entries must not be empty")},
		{"bedrock without settings", func(r *codersdk.CreateAIProviderRequest) {
			r.Type = codersdk.AIProviderTypeBedrock
		}, invalid("settings", "type=bedrock requires bedrock settings")},
		{"client external id", func(r *codersdk.CreateAIProviderRequest) {
			r.Type = codersdk.AIProviderTypeBedrock
			r.Settings = bedrock(codersdk.AIProviderBedrockSettings{Region: "us-east-1", ExternalID: "mine"})
		}, invalid("settings.external_id", "external_id is server-generated and cannot be set")},
		{"copilot keys", func(r *codersdk.CreateAIProviderRequest) {
			r.Type = codersdk.AIProviderTypeCopilot
			r.APIKeys = []string{keyA}
		}, invalid("api_keys", "type=copilot does not accept api_keys")},
		{"anthropic bedrock keys", func(r *codersdk.CreateAIProviderRequest) {
			r.Type = codersdk.AIProviderTypeAnthropic
			r.Settings = bedrock(codersdk.AIProviderBedrockSettings{Region: "us-east-1"})
			r.APIKeys = []string{keyA}
		}, codersdk.Response{Message: "Bedrock providers do not accept api_keys; configure access credentials via settings."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := openAIRequest("p")
			tt.modify(&req)
			_, err := c.CreateAIProvider(ctx, req)
			wantAPIError(t, err, http.StatusBadRequest, tt.want)
		})
	}

	t.Run("settings without discriminator", func(t *testing.T) {
		res, err := c.Request(ctx, http.MethodPost, "/api/v2/ai/providers",
			json.RawMessage(`{"type":"anthropic","name":"p","base_url":"https://x.example","settings":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		got := apiError(t, codersdk.ReadBodyAsError(res))
		if got.StatusCode() != http.StatusBadRequest || got.Message != "Request body must be valid JSON." ||
			!strings.Contains(got.Detail, "_type discriminator") {
			t.Errorf("got %v", got)
		}
	})
}

func TestCreatingATakenProviderNameConflictsLikeCoder(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{})
	ctx := testContext(t)
	must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("dup")))
	_, err := c.CreateAIProvider(ctx, openAIRequest("dup"))
	wantAPIError(t, err, http.StatusConflict, codersdk.Response{
		Message: `AI provider "dup" already exists.`,
		Detail:  `execute transaction: pq: duplicate key value violates unique constraint "ai_providers_name_unique"`,
	})
}

func TestProviderLookupRejectsBadNamesAndForbidsNonOwners(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("p")))

	_, err := c.AIProvider(ctx, "Bad_Name")
	wantAPIError(t, err, http.StatusBadRequest, codersdk.Response{
		Message: "Invalid provider id or name: must be a UUID or match ^[a-z0-9]+(-[a-z0-9]+)*$.",
	})
	_, err = c.AIProvider(ctx, uuid.NewString())
	wantAPIError(t, err, http.StatusNotFound, notFoundReply.body.(codersdk.Response))

	s.SetOwner(false)
	forbidden := forbiddenReply.body.(codersdk.Response)
	_, err = c.AIProviders(ctx)
	wantAPIError(t, err, http.StatusForbidden, forbidden)
	_, err = c.AIProvider(ctx, "p")
	wantAPIError(t, err, http.StatusForbidden, forbidden)
	_, err = c.CreateAIProvider(ctx, openAIRequest("q"))
	wantAPIError(t, err, http.StatusForbidden, forbidden)
	wantAPIError(t, c.DeleteAIProvider(ctx, "p"), http.StatusForbidden, forbidden)
}

func TestProviderKeysAreKeptByIDAddedAsPlaintextAndDroppedWhenLeftOut(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	created := must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("p", keyA, keyB)))
	idOf := func(p codersdk.AIProvider, masked string) uuid.UUID {
		for _, k := range p.APIKeys {
			if k.Masked == masked {
				return k.ID
			}
		}
		t.Fatalf("no key masked as %q in %+v", masked, p.APIKeys)
		return uuid.Nil
	}
	// aibridge's MaskSecret reveals 4 runes at each end of 20+ rune secrets.
	idA := idOf(created, "sk-t...1111")

	// Keep A by id, drop B by leaving it out, add C as plaintext.
	muts := []codersdk.AIProviderKeyMutation{{ID: &idA}, {APIKey: ptr.To(keyC)}}
	updated := must[codersdk.AIProvider](t)(c.UpdateAIProvider(ctx, "p", codersdk.UpdateAIProviderRequest{APIKeys: &muts}))
	if idOf(updated, "sk-t...1111") != idA {
		t.Error("kept key changed id")
	}
	idOf(updated, "sk-t...3333")
	if diff := cmp.Diff([]string{keyA, keyC}, s.Providers(false)[0].PlaintextKeys(), sortStrings); diff != "" {
		t.Errorf("stored keys (-want +got):\n%s", diff)
	}

	// A patch without api_keys leaves them alone.
	if got := must[codersdk.AIProvider](t)(c.UpdateAIProvider(ctx, "p", codersdk.UpdateAIProviderRequest{Icon: ptr.To("i")})); len(got.APIKeys) != 2 {
		t.Errorf("keys after icon patch = %+v", got.APIKeys)
	}

	bogus := uuid.New()
	muts = []codersdk.AIProviderKeyMutation{{ID: &bogus}, {APIKey: ptr.To(keyB)}}
	_, err := c.UpdateAIProvider(ctx, "p", codersdk.UpdateAIProviderRequest{APIKeys: &muts, Icon: ptr.To("changed")})
	wantAPIError(t, err, http.StatusBadRequest, codersdk.Response{
		Message: "api_keys references an unknown id for this provider",
		Detail: "execute transaction: api_keys references an unknown id for this provider: " + bogus.String() +
			": api_keys references an unknown id for this provider",
	})
	if row := s.Providers(false)[0]; row.Icon != "i" || len(row.APIKeys) != 2 {
		t.Errorf("failed patch changed the row: %+v", row)
	}

	muts = []codersdk.AIProviderKeyMutation{{ID: &idA, APIKey: ptr.To(keyB)}}
	_, err = c.UpdateAIProvider(ctx, "p", codersdk.UpdateAIProviderRequest{APIKeys: &muts})
	wantAPIError(t, err, http.StatusBadRequest, codersdk.Response{
		Message:     "Invalid AI provider request.",
		Validations: []codersdk.ValidationError{{Field: "api_keys[0]", Detail: "exactly one of id or api_key must be set"}},
	})

	_, err = c.UpdateAIProvider(ctx, "p", codersdk.UpdateAIProviderRequest{})
	wantAPIError(t, err, http.StatusBadRequest, codersdk.Response{Message: "At least one field must be provided."})

	// An empty list clears every key.
	muts = []codersdk.AIProviderKeyMutation{}
	if got := must[codersdk.AIProvider](t)(c.UpdateAIProvider(ctx, "p", codersdk.UpdateAIProviderRequest{APIKeys: &muts})); len(got.APIKeys) != 0 {
		t.Errorf("keys after clear = %+v", got.APIKeys)
	}
}

func TestProviderNeverServesSecrets(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	const roleARN = "arn:aws:iam::123456789012:role/BedrockRole"
	created := must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeBedrock, Name: "bedrock", BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com",
		Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
			Region: "us-east-1", AccessKey: ptr.To("AKIAEXAMPLE"), AccessKeySecret: ptr.To("s3cr3t-value"), RoleARN: roleARN,
		}},
	}))
	must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("openai", keyA)))

	b := created.Settings.Bedrock
	if b == nil || b.AccessKey != nil || b.AccessKeySecret != nil || b.ExternalID == "" {
		t.Fatalf("bedrock settings in response = %+v, want no credentials and a generated external id", b)
	}
	res, err := c.Request(ctx, http.MethodGet, "/api/v2/ai/providers", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	for _, secret := range []string{"AKIAEXAMPLE", "s3cr3t-value", keyA} {
		if strings.Contains(string(body), secret) {
			t.Errorf("list response contains %q", secret)
		}
	}

	// Omitted credentials are kept; the external id survives.
	patched := must[codersdk.AIProvider](t)(c.UpdateAIProvider(ctx, "bedrock", codersdk.UpdateAIProviderRequest{
		Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{Region: "eu-west-1", RoleARN: roleARN}},
	}))
	if patched.Settings.Bedrock.ExternalID != b.ExternalID {
		t.Error("external id changed on patch")
	}
	stored := s.Providers(false)[0].Settings.Bedrock
	if stored.Region != "eu-west-1" || *stored.AccessKey != "AKIAEXAMPLE" || *stored.AccessKeySecret != "s3cr3t-value" {
		t.Errorf("stored settings = %+v", stored)
	}

	_, err = c.UpdateAIProvider(ctx, "bedrock", codersdk.UpdateAIProviderRequest{
		Settings: &codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{Region: "eu-west-1", ExternalID: "other"}},
	})
	wantAPIError(t, err, http.StatusBadRequest, codersdk.Response{Message: "The Bedrock external ID is server-generated and cannot be changed."})

	muts := []codersdk.AIProviderKeyMutation{{APIKey: ptr.To(keyB)}}
	_, err = c.UpdateAIProvider(ctx, "bedrock", codersdk.UpdateAIProviderRequest{APIKeys: &muts})
	wantAPIError(t, err, http.StatusBadRequest, codersdk.Response{Message: "Bedrock providers do not accept api_keys; configure access credentials via settings."})
}

func TestAHandEditOfAProviderShowsInTheAPI(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	created := must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("p", keyA)))

	row, err := s.EditProvider("p", ProviderEdit{DisplayName: ptr.To("Renamed by hand"), APIKeys: &[]string{keyA, keyB}}.Apply)
	if err != nil {
		t.Fatal(err)
	}
	got := must[codersdk.AIProvider](t)(c.AIProvider(ctx, "p"))
	if got.DisplayName != "Renamed by hand" || len(got.APIKeys) != 2 || !got.UpdatedAt.After(created.UpdatedAt) {
		t.Errorf("after edit = %+v", got)
	}
	if diff := cmp.Diff([]string{keyA, keyB}, row.PlaintextKeys(), sortStrings); diff != "" {
		t.Errorf("stored keys (-want +got):\n%s", diff)
	}
	if _, err := s.EditProvider("missing", func(*ProviderRow) {}); !errors.Is(err, ErrNotFound) {
		t.Errorf("edit missing = %v, want ErrNotFound", err)
	}
}

// sortStrings makes cmp.Diff ignore the order of string slices; keys added
// in one request are ordered by their random IDs, as in Coder.
var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })
