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

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// MCPServer type metadata.
var (
	MCPServerKind             = "MCPServer"
	MCPServerGroupVersionKind = SchemeGroupVersion.WithKind(MCPServerKind)
)

func init() {
	SchemeBuilder.Register(&MCPServer{}, &MCPServerList{})
}

// MCPServerParameters are the configurable fields of an MCPServer. Secrets
// (the OAuth2 client secret, the API key value, custom header values) only
// ever come from Secrets in the MCPServer's namespace.
// +kubebuilder:validation:XValidation:rule="!has(self.oauth2) || (has(self.authType) && self.authType == 'oauth2')",message="forProvider.oauth2 is only for authType oauth2"
// +kubebuilder:validation:XValidation:rule="!has(self.authType) || self.authType != 'oauth2' || has(self.oauth2)",message="forProvider.oauth2 is required for authType oauth2: clientID, authURL and tokenURL, and the client secret from a Secret"
// +kubebuilder:validation:XValidation:rule="!has(self.apiKey) || (has(self.authType) && self.authType == 'api_key')",message="forProvider.apiKey is only for authType api_key"
// +kubebuilder:validation:XValidation:rule="!has(self.authType) || self.authType != 'api_key' || has(self.apiKey)",message="forProvider.apiKey is required for authType api_key: the header and the value from a Secret"
// +kubebuilder:validation:XValidation:rule="!has(self.customHeaders) || size(self.customHeaders) == 0 || (has(self.authType) && self.authType == 'custom_headers')",message="forProvider.customHeaders are only for authType custom_headers"
// +kubebuilder:validation:XValidation:rule="!has(self.authType) || self.authType != 'custom_headers' || (has(self.customHeaders) && size(self.customHeaders) > 0)",message="forProvider.customHeaders needs at least one header for authType custom_headers"
type MCPServerParameters struct {
	common.MCPServerFields `json:",inline"`

	// OAuth2 configures authType oauth2.
	// +optional
	OAuth2 *MCPServerOAuth2 `json:"oauth2,omitempty"`

	// APIKey configures authType api_key.
	// +optional
	APIKey *MCPServerAPIKey `json:"apiKey,omitempty"`

	// CustomHeaders configure authType custom_headers: each header's value
	// comes from a Secret.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	CustomHeaders []MCPServerCustomHeader `json:"customHeaders,omitempty"`
}

// MCPServerOAuth2 is an MCP server's OAuth2 client.
type MCPServerOAuth2 struct {
	common.MCPServerOAuth2Fields `json:",inline"`

	// ClientSecretSecretRef names the Secret key holding the client secret;
	// none for a public client.
	// +optional
	ClientSecretSecretRef *common.LocalSecretKeySelector `json:"clientSecretSecretRef,omitempty"`
}

// MCPServerAPIKey is the header Coder sends an API key in.
type MCPServerAPIKey struct {
	// Header is the HTTP header the key is sent in.
	// +optional
	// +kubebuilder:default=Authorization
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9-]*$`
	Header string `json:"header,omitempty"`

	// ValueSecretRef names the Secret key holding the header's value.
	ValueSecretRef common.LocalSecretKeySelector `json:"valueSecretRef"`
}

// MCPServerCustomHeader is one header Coder sends to the server.
type MCPServerCustomHeader struct {
	// Name is the HTTP header's name.
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9-]*$`
	Name string `json:"name"`

	// ValueSecretRef names the Secret key holding the header's value.
	ValueSecretRef common.LocalSecretKeySelector `json:"valueSecretRef"`
}

// MCPServerSpec is the desired state of an MCPServer. The URL is needed
// only to create or update a server: an observe-only import leaves it out.
// +kubebuilder:validation:XValidation:rule="(has(self.managementPolicies) && !('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies)) || has(self.forProvider.url)",message="spec.forProvider.url is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as [\"Observe\"]"
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || self.providerConfigRef.kind in ['ProviderConfig', 'ClusterProviderConfig']",message="spec.providerConfigRef.kind must be ProviderConfig or ClusterProviderConfig"
type MCPServerSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              MCPServerParameters `json:"forProvider"`
}

// MCPServerStatus is the observed state of an MCPServer.
type MCPServerStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 common.MCPServerObservation `json:"atProvider,omitempty"`
}

// An MCPServer is an MCP server Coder's agents may call, with its tool
// allow and deny lists.
// +kubebuilder:validation:XValidation:rule="has(self.spec.forProvider.slug) || (size(self.metadata.name) <= 64 && self.metadata.name.matches('^[a-z0-9]+([-_][a-z0-9]+)*$'))",message="metadata.name is not a valid MCP server slug (lowercase alphanumerics separated by single hyphens or underscores, at most 64 characters): set spec.forProvider.slug"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,coder},shortName={mcp,mcps}
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="AUTH",type="string",JSONPath=".spec.forProvider.authType"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type MCPServer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MCPServerSpec   `json:"spec"`
	Status MCPServerStatus `json:"status,omitempty"`
}

// MCPServerList is a list of MCPServers.
// +kubebuilder:object:root=true
type MCPServerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MCPServer `json:"items"`
}

// MCPServerFields returns the server's settings that are not secrets,
// shared by both scopes.
func (mg *MCPServer) MCPServerFields() *common.MCPServerFields {
	return &mg.Spec.ForProvider.MCPServerFields
}

// MCPServerOAuth2 returns the OAuth2 settings that are not secrets, or nil.
func (mg *MCPServer) MCPServerOAuth2() *common.MCPServerOAuth2Fields {
	if mg.Spec.ForProvider.OAuth2 == nil {
		return nil
	}
	return &mg.Spec.ForProvider.OAuth2.MCPServerOAuth2Fields
}

// MCPServerAPIKeyHeader returns the API key's header; "" without one.
func (mg *MCPServer) MCPServerAPIKeyHeader() string {
	if mg.Spec.ForProvider.APIKey == nil {
		return ""
	}
	return mg.Spec.ForProvider.APIKey.Header
}

// MCPServerSecretRefs returns the Secret keys the server reads. They are
// all in the MCPServer's own namespace.
func (mg *MCPServer) MCPServerSecretRefs() common.MCPServerSecretRefs {
	in := func(s common.LocalSecretKeySelector) *common.SecretKeySelector {
		return &common.SecretKeySelector{LocalSecretKeySelector: s, Namespace: mg.GetNamespace()}
	}
	var refs common.MCPServerSecretRefs
	p := mg.Spec.ForProvider
	if p.OAuth2 != nil && p.OAuth2.ClientSecretSecretRef != nil {
		refs.OAuth2ClientSecret = in(*p.OAuth2.ClientSecretSecretRef)
	}
	if p.APIKey != nil {
		refs.APIKeyValue = in(p.APIKey.ValueSecretRef)
	}
	for _, h := range p.CustomHeaders {
		refs.CustomHeaders = append(refs.CustomHeaders, common.MCPServerHeaderRef{Name: h.Name, Value: *in(h.ValueSecretRef)})
	}
	return refs
}

// MCPServerObservation returns the server's observed state, shared by both
// scopes.
func (mg *MCPServer) MCPServerObservation() *common.MCPServerObservation {
	return &mg.Status.AtProvider
}
