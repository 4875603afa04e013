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
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

// Coder's AI Gateway serves the OpenAI-compatible types under the route's
// /v1 (aibridge's OpenAI provider includes the version in its prefix) and
// the Anthropic ones under the route, where their clients add /v1/messages.
func TestGatewayBaseURLIsWhereCoderServesEachType(t *testing.T) {
	const route = "https://coder.example.com/api/v2/ai-gateway/team-x"
	cases := map[codersdk.AIProviderType]string{
		codersdk.AIProviderTypeOpenAI:       route + "/v1",
		codersdk.AIProviderTypeAzure:        route + "/v1",
		codersdk.AIProviderTypeGoogle:       route + "/v1",
		codersdk.AIProviderTypeOpenAICompat: route + "/v1",
		codersdk.AIProviderTypeOpenrouter:   route + "/v1",
		codersdk.AIProviderTypeVercel:       route + "/v1",
		codersdk.AIProviderTypeAnthropic:    route,
		codersdk.AIProviderTypeBedrock:      route,
		codersdk.AIProviderTypeCopilot:      route,
	}
	for typ, want := range cases {
		// A trailing slash and an upper-case host in the ProviderConfig's URL
		// do not reach the base URL.
		if got := GatewayBaseURL("https://Coder.example.com/", typ, "team-x"); got != want {
			t.Errorf("GatewayBaseURL(%s) = %q, want %q", typ, got, want)
		}
	}
}

// observeOnly is an observe-only AIProvider of external name id with
// nothing in its spec: an import.
func observeOnly(id string) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "imported", UID: testUID}}
	p.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	meta.SetExternalName(p, id)
	return p
}

// managedAs is an AIProvider with the default policies and a spec that
// matches got, of external name got's id.
func managedAs(got codersdk.AIProvider) *aiv1alpha1.AIProvider {
	p := observeOnly(got.ID.String())
	p.Spec.ManagementPolicies = nil
	p.Spec.ForProvider.Name = ptr.To(got.Name)
	p.Spec.ForProvider.Type = "openai"
	p.Spec.ForProvider.BaseURL = got.BaseURL
	return p
}

func TestObservePublishesWhatACompositionWires(t *testing.T) {
	const route = "https://coder.example.com/api/v2/ai-gateway/"
	cases := map[string]struct {
		reason string
		// setup makes the provider in Coder and returns the resource.
		setup func(t *testing.T, f *fixture) (*aiv1alpha1.AIProvider, codersdk.AIProvider)
		// want are the details but the id, which Coder chose.
		want map[string]string
	}{
		"OpenAIImported": {
			reason: "An OpenAI provider's clients set the /v1 form; no Bedrock external id.",
			setup: func(t *testing.T, f *fixture) (*aiv1alpha1.AIProvider, codersdk.AIProvider) {
				got := f.createProvider(t, "team-openai")
				return observeOnly(got.ID.String()), got
			},
			want: map[string]string{
				ConnectionGatewayBaseURL: route + "team-openai/v1", ConnectionGatewayURL: route + "team-openai",
				ConnectionGatewayV1URL: route + "team-openai/v1", ConnectionName: "team-openai", ConnectionType: "openai",
				ConnectionURL: testCoderURL,
			},
		},
		"OpenAIManaged": {
			reason: "A managed provider publishes the same, whatever its drift.",
			setup: func(t *testing.T, f *fixture) (*aiv1alpha1.AIProvider, codersdk.AIProvider) {
				got := f.createProvider(t, "team-openai")
				return managedAs(got), got
			},
			want: map[string]string{
				ConnectionGatewayBaseURL: route + "team-openai/v1", ConnectionGatewayURL: route + "team-openai",
				ConnectionGatewayV1URL: route + "team-openai/v1", ConnectionName: "team-openai", ConnectionType: "openai",
				ConnectionURL: testCoderURL,
			},
		},
		"BedrockWithARole": {
			reason: "A Bedrock provider's clients set the route itself, and its role's trust policy needs the external id Coder generated.",
			setup: func(t *testing.T, f *fixture) (*aiv1alpha1.AIProvider, codersdk.AIProvider) {
				got := f.bedrockProvider(t, "team-bedrock")
				if got.Settings.Bedrock == nil || got.Settings.Bedrock.ExternalID == "" {
					t.Fatal("Coder generated no external id for a Bedrock provider with a role")
				}
				return observeOnly(got.ID.String()), got
			},
			want: map[string]string{
				ConnectionGatewayBaseURL: route + "team-bedrock", ConnectionGatewayURL: route + "team-bedrock",
				ConnectionGatewayV1URL: route + "team-bedrock/v1", ConnectionName: "team-bedrock", ConnectionType: "bedrock",
				ConnectionURL: testCoderURL, ConnectionBedrockExternalID: "external id",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			p, got := tc.setup(t, f)
			f.withKube(t, p)
			obs, err := f.ext.Observe(context.Background(), p)
			if err != nil {
				t.Fatalf("%s\nObserve: %v", tc.reason, err)
			}
			want := tc.want
			want[ConnectionID] = got.ID.String()
			if _, ok := want[ConnectionBedrockExternalID]; ok {
				want[ConnectionBedrockExternalID] = got.Settings.Bedrock.ExternalID
			}
			if diff := cmp.Diff(want, asStrings(obs.ConnectionDetails)); diff != "" {
				t.Errorf("%s\nconnection details: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// An observe-only import has neither type nor base URL in its spec: it
// reports what Coder has, and no drift.
func TestObserveOnlyImportWithoutTypeOrBaseURLReportsCoder(t *testing.T) {
	f := newFixture(t)
	got := f.createProvider(t, "openai")
	p := observeOnly(got.ID.String())
	f.withKube(t, p)
	obs, err := f.ext.Observe(context.Background(), p)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	type seen struct {
		Exists, UpToDate bool
		Diff             string
		Type, BaseURL    string
	}
	want := seen{Exists: true, UpToDate: true, Type: "openai", BaseURL: got.BaseURL}
	o := p.Status.AtProvider
	if diff := cmp.Diff(want, seen{obs.ResourceExists, obs.ResourceUpToDate, obs.Diff, o.Type, o.BaseURL}); diff != "" {
		t.Errorf("Observe of an observe-only import: -want, +got:\n%s", diff)
	}
}

func TestCreatePublishesTheGatewayBaseURL(t *testing.T) {
	f := newFixture(t)
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "team-anthropic", UID: testUID}}
	p.Spec.ForProvider.Type = "anthropic"
	p.Spec.ForProvider.BaseURL = "https://api.anthropic.com/"
	f.withKube(t, p)
	c, err := f.ext.Create(context.Background(), p)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := "https://coder.example.com/api/v2/ai-gateway/team-anthropic"
	if got := string(c.ConnectionDetails[ConnectionGatewayBaseURL]); got != want {
		t.Errorf("Create's %s = %q, want %q", ConnectionGatewayBaseURL, got, want)
	}
	if got, want := string(c.ConnectionDetails[ConnectionID]), meta.GetExternalName(p); got != want || got == "" {
		t.Errorf("Create's %s = %q, want the external name %q", ConnectionID, got, want)
	}
}

func asStrings(d managed.ConnectionDetails) map[string]string {
	out := make(map[string]string, len(d))
	for k, v := range d {
		out[k] = string(v)
	}
	return out
}
