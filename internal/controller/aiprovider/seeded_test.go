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
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

func TestGuardSeededRefusesOnlyTheFieldsCoderHashes(t *testing.T) {
	seedsIt := coder.EnvSeeded{Names: map[string]string{"openai": coder.SeedIndexed, "bedrock": coder.SeedIndexed}}
	seedsOther := coder.EnvSeeded{Names: map[string]string{"other": coder.SeedIndexed}}
	unknown := coder.EnvSeeded{Unknown: "GET /api/v2/deployment/config: 403"}
	bedrockSettings := func(region, model string, pair bool) *codersdk.AIProviderSettings {
		s := &codersdk.AIProviderBedrockSettings{Region: region, Model: model, SmallFastModel: "haiku", RoleARN: "arn:aws:iam::1:role/r"}
		if pair {
			s.AccessKey, s.AccessKeySecret = ptr.To("AKIA"), ptr.To("secret")
		}
		return &codersdk.AIProviderSettings{Bedrock: s}
	}
	type want struct {
		patch            codersdk.UpdateAIProviderRequest
		refused          string // "" when nothing is refused
		unchecked        bool
		sendsAPIKeys     bool
		sendsCredentials bool
	}
	cases := map[string]struct {
		reason string
		setup  func() (Desired, codersdk.AIProvider, Applied)
		seeded coder.EnvSeeded
		want   want
	}{
		"DisplayNameAndBaseURL": {
			reason: "the display name is not hashed and still goes; the base URL is hashed and is refused",
			setup: edit(openAI, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.DisplayName, g.BaseURL = "Edited", "https://proxy.example.com/v1"
			}),
			seeded: seedsIt,
			want:   want{patch: codersdk.UpdateAIProviderRequest{DisplayName: ptr.To("OpenAI")}, refused: "baseURL"},
		},
		"SeededUnderCodersName": {
			reason: "Coder seeds by the name its provider has, which an external name may make another than the spec's",
			setup: edit(openAI, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.Name, g.DisplayName, g.BaseURL = "env-openai", "OpenAI", "https://proxy.example.com/v1"
			}),
			seeded: coder.EnvSeeded{Names: map[string]string{"env-openai": coder.SeedIndexed}},
			want:   want{refused: "baseURL"},
		},
		"KeyRotated": {
			reason: "a rotated key changes the keys hash: nothing is sent, and neither ids nor fingerprint count as applied",
			setup:  edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) { *w = desiredKeys(keyA, keyB2, keyC) }),
			seeded: seedsIt,
			want:   want{refused: "API keys"},
		},
		"KeyAddedInCoder": {
			reason: "dropping a key added in Coder changes the hash too",
			setup: edit(threeKeys, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.APIKeys = append(g.APIKeys, coderKey(keyX, keyD))
			}),
			seeded: seedsIt,
			want:   want{refused: "API keys"},
		},
		"KeyRotatedOnAProviderNotSeeded": {
			reason: "Coder seeds another provider: the keys go",
			setup:  edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) { *w = desiredKeys(keyA, keyB2, keyC) }),
			seeded: seedsOther,
			want: want{patch: codersdk.UpdateAIProviderRequest{APIKeys: &[]codersdk.AIProviderKeyMutation{keep(key1), send(keyB2), keep(key3)}},
				sendsAPIKeys: true, sendsCredentials: true},
		},
		"KeyRotatedUnknown": {
			reason: "Coder would not say: the keys go, and that is reported",
			setup:  edit(threeKeys, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) { *w = desiredKeys(keyA, keyB2, keyC) }),
			seeded: unknown,
			want: want{patch: codersdk.UpdateAIProviderRequest{APIKeys: &[]codersdk.AIProviderKeyMutation{keep(key1), send(keyB2), keep(key3)}},
				unchecked: true, sendsAPIKeys: true, sendsCredentials: true},
		},
		"NothingHashedUnknown": {
			reason: "a PATCH of nothing hashed needs no answer, and reports nothing",
			setup:  edit(openAI, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) { g.Icon = "" }),
			seeded: unknown,
			want:   want{patch: codersdk.UpdateAIProviderRequest{Icon: ptr.To("/icon/openai.svg")}},
		},
		"BedrockRegionAndModel": {
			reason: "the model is not hashed and goes; the region stays Coder's",
			setup: edit(bedrock, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) {
				g.Settings.Bedrock.Region, g.Settings.Bedrock.Model = "eu-west-1", "by-hand"
			}),
			seeded: seedsIt,
			want:   want{patch: codersdk.UpdateAIProviderRequest{Settings: bedrockSettings("eu-west-1", "claude", false)}, refused: "bedrock region"},
		},
		"BedrockRegionOnly": {
			reason: "without the region the settings change nothing: none are sent",
			setup:  edit(bedrock, func(_ *Desired, g *codersdk.AIProvider, _ *Applied) { g.Settings.Bedrock.Region = "eu-west-1" }),
			seeded: seedsIt,
			want:   want{refused: "bedrock region"},
		},
		"BedrockAccessKeyRotated": {
			reason: "the access key pair is hashed: not sent, so the fingerprint is not applied",
			setup:  edit(bedrock, func(w *Desired, _ *codersdk.AIProvider, _ *Applied) { w.Fingerprint = "hmac-sha256:rotated" }),
			seeded: seedsIt,
			want:   want{refused: "bedrock access key pair"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, g, a := tc.setup()
			d, unchecked := GuardSeeded(Diff(w, g, a), tc.seeded)
			if diff := cmp.Diff(tc.want.patch, d.Patch); diff != "" {
				t.Errorf("%s\nPatch: -want, +got:\n%s", tc.reason, diff)
			}
			msg := strings.Join(d.Unfixable, "; ")
			if refused := strings.Contains(msg, "seeded from "+coder.SeedIndexed); refused != (tc.want.refused != "") || !strings.Contains(msg, tc.want.refused) {
				t.Errorf("%s\nUnfixable = %q, want it to refuse %q", tc.reason, msg, tc.want.refused)
			}
			if unchecked != tc.want.unchecked || d.SendsAPIKeys != tc.want.sendsAPIKeys || d.SendsCredentials != tc.want.sendsCredentials {
				t.Errorf("%s\nunchecked, SendsAPIKeys, SendsCredentials = %t, %t, %t, want %+v", tc.reason, unchecked, d.SendsAPIKeys, d.SendsCredentials, tc.want)
			}
			for _, s := range []string{keyB2, "AKIA", "secret\""} {
				if strings.Contains(msg, s) {
					t.Errorf("the refusal carries key material: %q", msg)
				}
			}
		})
	}
}

// recorder keeps the events of a test.
type recorder struct{ events []event.Event }

func (r *recorder) Event(_ runtime.Object, e event.Event)    { r.events = append(r.events, e) }
func (r *recorder) WithAnnotations(...string) event.Recorder { return r }

// seededFixture is the tests' AIProvider managing the provider "openai"
// that Coder seeds from its environment with another key and base URL.
func seededFixture(t *testing.T) (*fixture, *recorder, fakecoder.ProviderRow) {
	t.Helper()
	f := newFixture(t, liveProvider(""), keySecret(apiKey))
	rec := &recorder{}
	f.ext.record = rec
	if err := f.srv.SetEnvProviders([]fakecoder.EnvProvider{{Type: "openai", BaseURL: "https://env.example.com/v1", Keys: []string{"sk-env-seeded-0123456789"}}}); err != nil {
		t.Fatal(err)
	}
	return f, rec, f.srv.Providers(false)[0]
}

func TestAnEnvSeededProviderKeepsWhatCoderHashesAndSaysWhy(t *testing.T) {
	ctx := context.Background()
	f, rec, seeded := seededFixture(t)
	for i := range 2 {
		p := f.stored(t)
		meta.SetExternalName(p, seeded.ID.String())
		if _, err := f.ext.Observe(ctx, p); err != nil {
			t.Fatal(err)
		}
		_, err := f.ext.Update(ctx, p)
		if err == nil || !strings.Contains(err.Error(), `provider "openai" is seeded from CODER_AI_GATEWAY_PROVIDER_<N>_*`) ||
			!strings.Contains(err.Error(), "baseURL and API keys") || !strings.Contains(err.Error(), "remove them and restart Coder") {
			t.Fatalf("reconcile %d: Update error %v, want the refusal naming the env vars, the fields and the remedy", i, err)
		}
		if strings.Contains(err.Error(), apiKey) || strings.Contains(err.Error(), "sk-env") {
			t.Errorf("the refusal carries key material")
		}
		assertNoAPIKey(t, "refused", p)
	}
	row := f.srv.Providers(false)[0]
	if row.DisplayName != "OpenAI" || row.BaseURL != seeded.BaseURL || !cmp.Equal(keyIDsOfRow(row), keyIDsOfRow(seeded)) {
		t.Errorf("Coder has display name %q, base URL %q, keys %v: want the spec's display name, and the seeded base URL and keys", row.DisplayName, row.BaseURL, keyIDsOfRow(row))
	}
	if err := f.srv.SeedFromEnv(); err != nil {
		t.Errorf("coderd would refuse to start: %v", err)
	}
	if n := f.srv.Requests(fakecoder.EndpointDeploymentConfig); n != 1 {
		t.Errorf("two reconciles read the deployment config %d times, want once", n)
	}
	if len(rec.events) != 0 {
		t.Errorf("events %v, want none: the refusal is the Synced condition", rec.events)
	}
}

func TestAProviderCoderWillNotSaySeedsIsUpdatedAndThatIsReported(t *testing.T) {
	ctx := context.Background()
	f, rec, seeded := seededFixture(t)
	if err := f.srv.SetFault(fakecoder.EndpointDeploymentConfig, fakecoder.Fault{Status: http.StatusForbidden}); err != nil {
		t.Fatal(err)
	}
	p := f.stored(t)
	meta.SetExternalName(p, seeded.ID.String())
	if _, err := f.ext.Observe(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ext.Update(ctx, p); err != nil {
		t.Fatalf("Update: %v, want the update made: a config Coder will not show never fails a reconcile", err)
	}
	if row := f.srv.Providers(false)[0]; !cmp.Equal(row.PlaintextKeys(), []string{apiKey}) || row.BaseURL != "https://api.openai.com/v1" {
		t.Errorf("Coder has base URL %q and %d keys, want the spec's", row.BaseURL, len(row.APIKeys))
	}
	if len(rec.events) != 1 || rec.events[0].Reason != ReasonEnvSeedUnchecked || rec.events[0].Type != event.TypeWarning ||
		!strings.Contains(rec.events[0].Message, "403") || strings.Contains(rec.events[0].Message, apiKey) {
		t.Errorf("events %+v, want one %s warning that says why", rec.events, ReasonEnvSeedUnchecked)
	}
	// What the guard is for: this change makes coderd refuse to start.
	if err := f.srv.SeedFromEnv(); err == nil {
		t.Errorf("the fake's coderd would start after the seeded provider's key and base URL changed")
	}
}

func keyIDsOfRow(r fakecoder.ProviderRow) []string {
	out := []string{}
	for _, k := range r.APIKeys {
		out = append(out, k.ID.String())
	}
	return out
}
