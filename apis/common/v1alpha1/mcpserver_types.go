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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MCPServerTransport is how Coder speaks to an MCP server.
// +kubebuilder:validation:Enum=streamable_http;sse
type MCPServerTransport string

// MCPServerAuthType is how Coder authenticates to an MCP server.
// +kubebuilder:validation:Enum=none;oauth2;api_key;custom_headers;user_oidc
type MCPServerAuthType string

// Auth types of an MCP server, as Coder names them.
const (
	MCPServerAuthNone          MCPServerAuthType = "none"
	MCPServerAuthOAuth2        MCPServerAuthType = "oauth2"
	MCPServerAuthAPIKey        MCPServerAuthType = "api_key"
	MCPServerAuthCustomHeaders MCPServerAuthType = "custom_headers"
	MCPServerAuthUserOIDC      MCPServerAuthType = "user_oidc"
)

// MCPServerAvailability is whether Coder's chats use an MCP server without
// the user turning it on.
// +kubebuilder:validation:Enum=force_on;default_on;default_off
type MCPServerAvailability string

// MCPServerFields are the MCPServer settings that are not secrets; both
// scopes share them. The rules mirror codersdk.CreateMCPServerConfigRequest
// and Coder's handler (coderd/mcp.go); the rules that involve Secrets or
// several fields are on the parameters of each scope.
type MCPServerFields struct {
	// Slug is the server's Coder-wide identifier: lowercase alphanumerics
	// separated by single hyphens or underscores. It defaults to
	// metadata.name. Immutable: the cleanup records and an import find
	// the server by it.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+([-_][a-z0-9]+)*$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="forProvider.slug is immutable: the records and imports find the server by it"
	Slug *string `json:"slug,omitempty"`

	// DisplayName is the label Coder shows. It defaults to the slug.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	DisplayName *string `json:"displayName,omitempty"`

	// Description is what Coder shows about the server.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Description string `json:"description,omitempty"`

	// IconURL is a URL or path of the icon Coder shows.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	IconURL string `json:"iconURL,omitempty"`

	// Transport is how Coder speaks to the server.
	// +optional
	// +kubebuilder:default=streamable_http
	Transport MCPServerTransport `json:"transport,omitempty"`

	// URL is the server's endpoint, an absolute http or https URL.
	// Required unless spec.managementPolicies allow neither Create nor
	// Update: an observe-only import reads it from Coder
	// (status.atProvider.url).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="forProvider.url must be an absolute http or https URL, e.g. https://mcp.example.com/mcp"
	URL string `json:"url,omitempty"`

	// AuthType is how Coder authenticates to the server: none, oauth2
	// (forProvider.oauth2), api_key (forProvider.apiKey), custom_headers
	// (forProvider.customHeaders) or user_oidc (the chatting user's own
	// OIDC token).
	// +optional
	// +kubebuilder:default=none
	AuthType MCPServerAuthType `json:"authType,omitempty"`

	// ToolAllowList, when not empty, are the only tools of the server
	// Coder's agents may call.
	// +optional
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:items:Pattern=`^\S(.*\S)?$`
	// +listType=atomic
	ToolAllowList []string `json:"toolAllowList,omitempty"`

	// ToolDenyList are tools of the server Coder's agents may not call.
	// +optional
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:items:Pattern=`^\S(.*\S)?$`
	// +listType=atomic
	ToolDenyList []string `json:"toolDenyList,omitempty"`

	// Availability is whether chats use the server: force_on (always),
	// default_on (unless the user turns it off) or default_off (when the
	// user turns it on).
	// +optional
	// +kubebuilder:default=default_off
	Availability MCPServerAvailability `json:"availability,omitempty"`

	// Enabled makes the server available to Coder's chats when true.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`

	// ModelIntent asks the model to state its intent with each tool call.
	// +optional
	ModelIntent bool `json:"modelIntent,omitempty"`

	// AllowInPlanMode lets the server's tools be called in plan mode.
	// +optional
	AllowInPlanMode bool `json:"allowInPlanMode,omitempty"`

	// ForwardCoderHeaders forwards Coder's identity headers
	// (X-Coder-Owner-Id, X-Coder-Chat-Id, ...) to the server on every
	// request.
	// +optional
	ForwardCoderHeaders bool `json:"forwardCoderHeaders,omitempty"`
}

// MCPServerOAuth2Fields are the OAuth2 settings that are not secrets.
// Coder's automatic discovery (RFC 7591) would register a client whose
// secret no Secret holds, so the client is configured by hand.
type MCPServerOAuth2Fields struct {
	// ClientID is the OAuth2 client id.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	ClientID string `json:"clientID"`

	// AuthURL is the authorization endpoint.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="forProvider.oauth2.authURL must be an absolute http or https URL"
	AuthURL string `json:"authURL"`

	// TokenURL is the token endpoint.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="forProvider.oauth2.tokenURL must be an absolute http or https URL"
	TokenURL string `json:"tokenURL"`

	// RevocationURL is the RFC 7009 revocation endpoint: https, or http on
	// a loopback host.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getHostname() != '' && (url(self).getScheme() == 'https' || (url(self).getScheme() == 'http' && url(self).getHostname() in ['localhost', '127.0.0.1', '::1']))",message="forProvider.oauth2.revocationURL must be an https URL (loopback hosts may use http)"
	RevocationURL string `json:"revocationURL,omitempty"`

	// Scopes are the OAuth2 scopes to request, space separated.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Scopes string `json:"scopes,omitempty"`
}

// MCPServerObservation is the observed state of an MCP server in Coder,
// plus what this resource last sent there. Coder never returns a secret,
// and none is ever stored here.
type MCPServerObservation struct {
	// ID is the Coder id of the server; it is also the external name.
	ID          string `json:"id,omitempty"`
	Slug        string `json:"slug,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	Description string `json:"description,omitempty"`
	IconURL     string `json:"iconURL,omitempty"`
	Transport   string `json:"transport,omitempty"`
	URL         string `json:"url,omitempty"`
	AuthType    string `json:"authType,omitempty"`

	OAuth2ClientID      string `json:"oauth2ClientID,omitempty"`
	OAuth2AuthURL       string `json:"oauth2AuthURL,omitempty"`
	OAuth2TokenURL      string `json:"oauth2TokenURL,omitempty"`
	OAuth2RevocationURL string `json:"oauth2RevocationURL,omitempty"`
	OAuth2Scopes        string `json:"oauth2Scopes,omitempty"`
	// HasOAuth2Secret is whether Coder holds an OAuth2 client secret.
	HasOAuth2Secret bool   `json:"hasOAuth2Secret,omitempty"`
	APIKeyHeader    string `json:"apiKeyHeader,omitempty"`
	// HasAPIKey is whether Coder holds an API key value.
	HasAPIKey bool `json:"hasAPIKey,omitempty"`
	// HasCustomHeaders is whether Coder holds custom headers.
	HasCustomHeaders bool `json:"hasCustomHeaders,omitempty"`

	// +listType=atomic
	ToolAllowList []string `json:"toolAllowList,omitempty"`
	// +listType=atomic
	ToolDenyList        []string `json:"toolDenyList,omitempty"`
	Availability        string   `json:"availability,omitempty"`
	Enabled             *bool    `json:"enabled,omitempty"`
	ModelIntent         bool     `json:"modelIntent,omitempty"`
	AllowInPlanMode     bool     `json:"allowInPlanMode,omitempty"`
	ForwardCoderHeaders bool     `json:"forwardCoderHeaders,omitempty"`

	// CreatedAt is when Coder created the server.
	CreatedAt *metav1.Time `json:"createdAt,omitempty"`
	// UpdatedAt is when the server last changed in Coder.
	UpdatedAt *metav1.Time `json:"updatedAt,omitempty"`

	// CredentialsFingerprint is an HMAC-SHA256 of the secrets (OAuth2
	// client secret, API key value, custom header names and values) this
	// resource last sent, keyed with a secret only the provider holds (the
	// Secret provider-coder-fingerprint-key in its namespace), so it
	// cannot be checked against guessed values. A changed Secret changes
	// it, so the secrets are sent again; the material itself is stored
	// nowhere.
	CredentialsFingerprint string `json:"credentialsFingerprint,omitempty"`
}

// MCPServerSecretRefs are the Secret keys an MCPServer reads, with their
// namespaces resolved, so one external client serves both scopes. It is
// not part of any API object.
// +kubebuilder:object:generate=false
type MCPServerSecretRefs struct {
	OAuth2ClientSecret *SecretKeySelector
	APIKeyValue        *SecretKeySelector
	// CustomHeaders are the header names with the Secret key of each value.
	CustomHeaders []MCPServerHeaderRef
}

// MCPServerHeaderRef is one custom header: its name and its value's key.
// +kubebuilder:object:generate=false
type MCPServerHeaderRef struct {
	Name  string
	Value SecretKeySelector
}
