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

// AIProviderType is the protocol Coder uses with an upstream AI provider.
// +kubebuilder:validation:Enum=openai;anthropic;azure;google;openai-compat;openrouter;vercel;bedrock;copilot
type AIProviderType string

// BedrockProtocol is the AWS Bedrock wire protocol.
// +kubebuilder:validation:Enum=invoke-model;mantle
type BedrockProtocol string

// AIProviderObservation is the observed state of a provider in Coder, plus
// what this resource last wrote there. Coder never returns a key's plaintext,
// and none is ever stored here.
type AIProviderObservation struct {
	// ID is the Coder provider id; it is also the external name.
	ID string `json:"id,omitempty"`
	// Name is the provider's Coder-wide name.
	Name string `json:"name,omitempty"`
	// Type is the provider's type in Coder.
	Type string `json:"type,omitempty"`
	// DisplayName is the label Coder shows; Coder reports the name when none
	// is set.
	DisplayName string `json:"displayName,omitempty"`
	// Icon is the icon Coder shows.
	Icon string `json:"icon,omitempty"`
	// Enabled is whether Coder routes traffic to the provider.
	Enabled *bool `json:"enabled,omitempty"`
	// BaseURL is the endpoint Coder calls.
	BaseURL string `json:"baseURL,omitempty"`
	// APIKeys are the key ids and masked values Coder reports.
	// +listType=atomic
	APIKeys []AIProviderKeyObservation `json:"apiKeys,omitempty"`
	// Bedrock are the Bedrock settings Coder reports, without credentials.
	Bedrock *AIProviderBedrockObservation `json:"bedrock,omitempty"`
	// CreatedAt is when Coder created the provider.
	CreatedAt *metav1.Time `json:"createdAt,omitempty"`
	// UpdatedAt is when the provider last changed in Coder.
	UpdatedAt *metav1.Time `json:"updatedAt,omitempty"`

	// AppliedAPIKeyIDs are the key ids Coder reported after this resource
	// last sent the keys. A different set in Coder means someone added or
	// removed a key there, and the keys are sent again.
	// +listType=atomic
	AppliedAPIKeyIDs []string `json:"appliedAPIKeyIDs,omitempty"`
	// AppliedAPIKeys pair the ids of AppliedAPIKeyIDs with a keyed
	// fingerprint of the key sent under each, like CredentialsFingerprint's.
	// When the keys change, every key whose fingerprint is unchanged keeps
	// its id in Coder, and with it its place and cooldowns in the failover
	// pool; only new or changed keys are sent. An id without an entry is
	// sent again at the next change.
	// +listType=atomic
	AppliedAPIKeys []AppliedAPIKey `json:"appliedAPIKeys,omitempty"`
	// CredentialsFingerprint is an HMAC-SHA256 of the API keys and Bedrock
	// access key pair this resource last sent, keyed with a secret only the
	// provider holds (the Secret provider-coder-fingerprint-key in its
	// namespace), so it cannot be checked against guessed keys. A changed
	// Secret changes it, so the keys are sent again; the material itself is
	// stored nowhere.
	CredentialsFingerprint string `json:"credentialsFingerprint,omitempty"`
}

// AIProviderKeyObservation is one API key as Coder reports it.
type AIProviderKeyObservation struct {
	// ID is Coder's id of the key.
	ID string `json:"id"`
	// Masked shows the key's first and last characters only.
	Masked string `json:"masked,omitempty"`
	// CreatedAt is when the key was added in Coder.
	CreatedAt *metav1.Time `json:"createdAt,omitempty"`
}

// AppliedAPIKey is one API key this resource sent to Coder.
type AppliedAPIKey struct {
	// ID is Coder's id of the key.
	ID string `json:"id"`
	// Fingerprint is an HMAC-SHA256 of the key, keyed like
	// credentialsFingerprint; the key itself is stored nowhere.
	Fingerprint string `json:"fingerprint"`
}

// AIProviderBedrockObservation are the Bedrock settings Coder reports.
type AIProviderBedrockObservation struct {
	Region         string `json:"region,omitempty"`
	Model          string `json:"model,omitempty"`
	SmallFastModel string `json:"smallFastModel,omitempty"`
	Protocol       string `json:"protocol,omitempty"`
	RoleARN        string `json:"roleARN,omitempty"`
	// ExternalID is the STS external id Coder generated for the role; the
	// role's trust policy must require it.
	ExternalID string `json:"externalID,omitempty"`
}

// AIProviderFields are the AIProvider settings that are not secrets; both
// scopes share them. The rules mirror codersdk.CreateAIProviderRequest.Validate;
// the rules that involve Secrets or several fields are on the parameters of
// each scope.
type AIProviderFields struct {
	// Type is the protocol Coder speaks with the provider. Immutable.
	// Required unless spec.managementPolicies allow neither Create nor
	// Update: an observe-only import reads it from Coder
	// (status.atProvider.type).
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="forProvider.type is immutable"
	Type AIProviderType `json:"type,omitempty"`

	// Name is the provider's Coder-wide, user-facing name: lowercase
	// alphanumerics separated by single hyphens. It defaults to
	// metadata.name. Immutable.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+(-[a-z0-9]+)*$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="forProvider.name is immutable: Coder provider names cannot change"
	Name *string `json:"name,omitempty"`

	// DisplayName is the label Coder shows. When unset or empty Coder shows
	// the name.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	DisplayName *string `json:"displayName,omitempty"`

	// Icon is a URL or path of the icon Coder shows.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Icon *string `json:"icon,omitempty"`

	// Enabled routes traffic to the provider when true.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`

	// BaseURL is the provider's API endpoint, an absolute http or https URL.
	// A canonical Bedrock endpoint (https://bedrock-runtime.REGION.amazonaws.com
	// or https://bedrock-mantle.REGION.api.aws) also gives the Bedrock region.
	// Required unless spec.managementPolicies allow neither Create nor
	// Update: an observe-only import reads it from Coder
	// (status.atProvider.baseURL).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="forProvider.baseURL must be an absolute http or https URL, e.g. https://api.example.com/"
	BaseURL string `json:"baseURL,omitempty"`
}

// BedrockFields are the AWS Bedrock settings that are not secrets.
type BedrockFields struct {
	// Region is the AWS region. When omitted it is derived from a canonical
	// Bedrock base URL. The mantle protocol needs one either way.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region,omitempty"`

	// Model is the Bedrock model id for primary requests.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Model string `json:"model,omitempty"`

	// SmallFastModel is the Bedrock model id for background tasks.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	SmallFastModel string `json:"smallFastModel,omitempty"`

	// Protocol is the Bedrock wire protocol; empty means invoke-model.
	// +optional
	Protocol BedrockProtocol `json:"protocol,omitempty"`

	// RoleARN is an IAM role to assume before calling Bedrock, e.g.
	// arn:aws:iam::123456789012:role/BedrockRole. Coder generates the STS
	// external id (status.atProvider.bedrock.externalID).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^arn:[^:]*:iam:[^:]*:[^:]*:role/`
	RoleARN string `json:"roleARN,omitempty"`
}

// AIProviderSecretRefs are the Secret keys an AIProvider reads, with their
// namespaces resolved, so one external client serves both scopes. It is not
// part of any API object.
// +kubebuilder:object:generate=false
type AIProviderSecretRefs struct {
	APIKeys         []SecretKeySelector
	AccessKeyID     *SecretKeySelector
	SecretAccessKey *SecretKeySelector
}
