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

package apis_test

import (
	"context"
	"strings"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// Admission refuses an MCPServer Coder would refuse, naming the field:
// enums, URLs, a secret field for another auth type. Checked on a real API
// server with the generated CRDs.
func TestMCPServerAdmissionRefusesWhatCoderWouldNamingTheField(t *testing.T) {
	cp := controlplane.StartOrSkip(t, controlplane.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := crds.Install(ctx, cp.Config); err != nil {
		t.Fatal(err)
	}
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	ref := common.LocalSecretKeySelector{Name: "mcp", Key: "value"}
	oauth2 := &aiv1alpha1.MCPServerOAuth2{MCPServerOAuth2Fields: common.MCPServerOAuth2Fields{
		ClientID: "client", AuthURL: "https://idp.example.com/authorize", TokenURL: "https://idp.example.com/token",
	}, ClientSecretSecretRef: &ref}
	cases := map[string]struct {
		reason string
		edit   func(*aiv1alpha1.MCPServer)
		obj    client.Object
		want   []string
	}{
		"None": {
			reason: "The defaults: streamable_http, no auth, default_off.",
			edit:   func(*aiv1alpha1.MCPServer) {},
		},
		"OAuth2": {
			reason: "OAuth2 with its client and the secret from a Secret.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Spec.ForProvider.AuthType, m.Spec.ForProvider.OAuth2 = common.MCPServerAuthOAuth2, oauth2
			},
		},
		"APIKey": {
			reason: "An API key from a Secret.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Spec.ForProvider.AuthType = common.MCPServerAuthAPIKey
				m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref}
			},
		},
		"CustomHeaders": {
			reason: "Custom headers, each from a Secret.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Spec.ForProvider.AuthType = common.MCPServerAuthCustomHeaders
				m.Spec.ForProvider.CustomHeaders = []aiv1alpha1.MCPServerCustomHeader{{Name: "X-Token", ValueSecretRef: ref}}
			},
		},
		"UserOIDC": {
			reason: "The user's own OIDC token: nothing else.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.AuthType = common.MCPServerAuthUserOIDC },
		},
		"UnknownTransport": {
			reason: "Coder knows streamable_http and sse.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.Transport = "websocket" },
			want:   []string{"spec.forProvider.transport", "streamable_http"},
		},
		"UnknownAuthType": {
			reason: "Coder knows five auth types.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.AuthType = "basic" },
			want:   []string{"spec.forProvider.authType"},
		},
		"UnknownAvailability": {
			reason: "Coder knows three availabilities.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.Availability = "always" },
			want:   []string{"spec.forProvider.availability"},
		},
		"URLNotHTTP": {
			reason: "Coder calls the server over http or https.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.URL = "ftp://mcp.example.com" },
			want:   []string{"forProvider.url must be an absolute http or https URL"},
		},
		"NoURL": {
			reason: "Creating needs the URL.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.URL = "" },
			want:   []string{"spec.forProvider.url is required"},
		},
		"NoURLObserveOnly": {
			reason: "An observe-only import reads the URL from Coder.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Spec.ForProvider.URL = ""
				m.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
			},
		},
		"OAuth2ForAPIKey": {
			reason: "An OAuth2 client secret for another auth type is refused.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Spec.ForProvider.AuthType = common.MCPServerAuthAPIKey
				m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref}
				m.Spec.ForProvider.OAuth2 = oauth2
			},
			want: []string{"forProvider.oauth2 is only for authType oauth2"},
		},
		"APIKeyForNone": {
			reason: "An API key for auth type none is refused.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref}
			},
			want: []string{"forProvider.apiKey is only for authType api_key"},
		},
		"HeadersForUserOIDC": {
			reason: "Custom headers for user_oidc are refused.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Spec.ForProvider.AuthType = common.MCPServerAuthUserOIDC
				m.Spec.ForProvider.CustomHeaders = []aiv1alpha1.MCPServerCustomHeader{{Name: "X-Token", ValueSecretRef: ref}}
			},
			want: []string{"forProvider.customHeaders are only for authType custom_headers"},
		},
		"OAuth2WithoutClient": {
			reason: "Coder's discovery would register a client no Secret holds.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.AuthType = common.MCPServerAuthOAuth2 },
			want:   []string{"forProvider.oauth2 is required for authType oauth2"},
		},
		"APIKeyWithout": {
			reason: "Coder needs the header and the value.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.AuthType = common.MCPServerAuthAPIKey },
			want:   []string{"forProvider.apiKey is required for authType api_key"},
		},
		"CustomHeadersWithout": {
			reason: "Coder needs at least one header.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Spec.ForProvider.AuthType = common.MCPServerAuthCustomHeaders },
			want:   []string{"forProvider.customHeaders needs at least one header"},
		},
		"RevocationURLPlainHTTP": {
			reason: "Coder's revocation policy: https, or http on loopback.",
			edit: func(m *aiv1alpha1.MCPServer) {
				o := *oauth2
				o.RevocationURL = "http://idp.example.com/revoke"
				m.Spec.ForProvider.AuthType, m.Spec.ForProvider.OAuth2 = common.MCPServerAuthOAuth2, &o
			},
			want: []string{"forProvider.oauth2.revocationURL must be an https URL"},
		},
		"TokenURLNotURL": {
			reason: "Coder validates the OAuth2 URLs.",
			edit: func(m *aiv1alpha1.MCPServer) {
				o := *oauth2
				o.TokenURL = "token"
				m.Spec.ForProvider.AuthType, m.Spec.ForProvider.OAuth2 = common.MCPServerAuthOAuth2, &o
			},
			want: []string{"forProvider.oauth2.tokenURL must be an absolute http or https URL"},
		},
		"SlugFromInvalidName": {
			reason: "metadata.name is the slug unless one is set.",
			edit:   func(m *aiv1alpha1.MCPServer) { m.Name = "github.mcp" },
			want:   []string{"metadata.name is not a valid MCP server slug"},
		},
		"SlugSet": {
			reason: "A slug of its own frees metadata.name.",
			edit: func(m *aiv1alpha1.MCPServer) {
				m.Name = "github.mcp"
				m.Spec.ForProvider.Slug = ptr.To("github")
			},
		},
		"ClusterSecretForAnotherAuthType": {
			reason: "The cluster-scoped kind has the same rules.",
			obj: &clusteraiv1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Name: "github"}, Spec: clusteraiv1alpha1.MCPServerSpec{
				ForProvider: clusteraiv1alpha1.MCPServerParameters{
					MCPServerFields: common.MCPServerFields{URL: "https://mcp.example.com/mcp"},
					APIKey:          &clusteraiv1alpha1.MCPServerAPIKey{ValueSecretRef: common.SecretKeySelector{LocalSecretKeySelector: ref, Namespace: "default"}},
				},
			}},
			want: []string{"forProvider.apiKey is only for authType api_key"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := tc.obj
			if obj == nil {
				m := &aiv1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "github"}}
				m.Spec.ForProvider.URL = "https://mcp.example.com/mcp"
				tc.edit(m)
				obj = m
			}
			err := kube.Create(ctx, obj, client.DryRunAll)
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("%s\ndry-run create: %v, want admitted", tc.reason, err)
				}
				return
			}
			if !kerrors.IsInvalid(err) {
				t.Fatalf("%s\ndry-run create: %v, want Invalid", tc.reason, err)
			}
			if strings.Contains(err.Error(), "evaluating rule") {
				t.Errorf("%s\na rule failed to evaluate: %v", tc.reason, err)
			}
			for _, msg := range tc.want {
				if !strings.Contains(err.Error(), msg) {
					t.Errorf("%s\ndry-run create refused with %q, want it to say %q", tc.reason, err, msg)
				}
			}
		})
	}
}
