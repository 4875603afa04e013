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

// AIProviderParameters are the configurable fields of an AIProvider. API keys
// only ever come from Secrets, each in the namespace its reference names.
// The rules mirror codersdk.CreateAIProviderRequest.Validate and Coder's
// handler; a canonical Bedrock base URL stands in for the region.
// +kubebuilder:validation:XValidation:rule="has(self.name) == has(oldSelf.name)",message="forProvider.name is immutable: Coder provider names cannot change"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || !(self.type in ['bedrock', 'copilot']) || !has(self.apiKeySecretRefs) || size(self.apiKeySecretRefs) == 0",message="forProvider.apiKeySecretRefs: type bedrock and copilot do not accept API keys"
// +kubebuilder:validation:XValidation:rule="!has(self.bedrock) || !has(self.apiKeySecretRefs) || size(self.apiKeySecretRefs) == 0",message="forProvider.apiKeySecretRefs: a provider with bedrock settings authenticates with them, not with API keys"
// +kubebuilder:validation:XValidation:rule="!has(self.bedrock) || !has(self.type) || self.type in ['anthropic', 'bedrock']",message="forProvider.bedrock: bedrock settings are only valid for type anthropic or bedrock"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'bedrock' || (has(self.bedrock) && ((has(self.bedrock.region) && size(self.bedrock.region) > 0) || (has(self.bedrock.roleARN) && size(self.bedrock.roleARN) > 0) || has(self.bedrock.accessKeyIDSecretRef) || (has(self.baseURL) && self.baseURL.matches('(?i)^https://bedrock-(runtime(-fips)?[.][a-z0-9-]+[.]amazonaws[.]com([.]cn)?|mantle[.][a-z0-9-]+[.]api[.]aws(/anthropic)?)/?$'))))",message="forProvider.bedrock: type bedrock requires bedrock settings with a region (or a canonical Bedrock baseURL), a roleARN or an access key pair"
// +kubebuilder:validation:XValidation:rule="!has(self.bedrock) || !has(self.bedrock.protocol) || self.bedrock.protocol != 'mantle' || (has(self.bedrock.region) && size(self.bedrock.region) > 0) || (has(self.baseURL) && self.baseURL.matches('(?i)^https://bedrock-(runtime(-fips)?[.][a-z0-9-]+[.]amazonaws[.]com([.]cn)?|mantle[.][a-z0-9-]+[.]api[.]aws(/anthropic)?)/?$'))",message="forProvider.bedrock.region is required for the mantle protocol unless baseURL is a canonical Bedrock endpoint"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.bedrock) || has(self.bedrock)",message="forProvider.bedrock cannot be removed: Coder's API cannot clear a provider's Bedrock settings"
type AIProviderParameters struct {
	common.AIProviderFields `json:",inline"`

	// APIKeySecretRefs name the Secret keys holding the provider's API keys.
	// Surrounding whitespace (such as a trailing newline) is removed. Coder
	// gets exactly these keys; changing a Secret rotates the key in Coder.
	// At most 5, Coder's documented maximum per provider (Coder's
	// docs/ai-coder/ai-gateway/providers.md, "Key failover"). An object
	// stored with more under the earlier limit of 16 keeps them while the
	// list is unchanged (CRD validation ratcheting); an edit of the list
	// must bring it to 5.
	// +optional
	// +kubebuilder:validation:MaxItems=5
	// +listType=atomic
	APIKeySecretRefs []common.SecretKeySelector `json:"apiKeySecretRefs,omitempty"`

	// Bedrock configures AWS Bedrock. Only for type anthropic or bedrock;
	// once set it cannot be removed.
	// +optional
	Bedrock *BedrockParameters `json:"bedrock,omitempty"`
}

// BedrockParameters configure a provider that authenticates against AWS
// Bedrock. The access key pair comes from Secrets; without it Coder uses its
// own AWS identity (instance profile, IRSA, environment).
// +kubebuilder:validation:XValidation:rule="has(self.accessKeyIDSecretRef) == has(self.secretAccessKeySecretRef)",message="forProvider.bedrock: set both accessKeyIDSecretRef and secretAccessKeySecretRef, or neither"
type BedrockParameters struct {
	common.BedrockFields `json:",inline"`

	// AccessKeyIDSecretRef names the Secret key holding the AWS access key id.
	// +optional
	AccessKeyIDSecretRef *common.SecretKeySelector `json:"accessKeyIDSecretRef,omitempty"`

	// SecretAccessKeySecretRef names the Secret key holding the AWS secret
	// access key.
	// +optional
	SecretAccessKeySecretRef *common.SecretKeySelector `json:"secretAccessKeySecretRef,omitempty"`
}

// AIProviderSpec is the desired state of an AIProvider. Type and base URL
// are needed only to create or update a provider: an observe-only import
// leaves them out.
// +kubebuilder:validation:XValidation:rule="(has(self.managementPolicies) && !('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies)) || has(self.forProvider.type)",message="spec.forProvider.type is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as [\"Observe\"]"
// +kubebuilder:validation:XValidation:rule="(has(self.managementPolicies) && !('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies)) || has(self.forProvider.baseURL)",message="spec.forProvider.baseURL is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as [\"Observe\"]"
type AIProviderSpec struct {
	xpv2.ClusterManagedResourceSpec `json:",inline"`
	ForProvider                     AIProviderParameters `json:"forProvider"`
}

// AIProviderStatus is the observed state of an AIProvider.
type AIProviderStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 common.AIProviderObservation `json:"atProvider,omitempty"`
}

// An AIProvider is an upstream AI provider that Coder routes to.
// +kubebuilder:validation:XValidation:rule="has(self.spec.forProvider.name) || (size(self.metadata.name) <= 64 && self.metadata.name.matches('^[a-z0-9]+(-[a-z0-9]+)*$'))",message="metadata.name is not a valid Coder provider name (lowercase alphanumerics separated by single hyphens, at most 64 characters): set spec.forProvider.name"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories={crossplane,managed,coder-cluster}
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="TYPE",type="string",JSONPath=".spec.forProvider.type"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type AIProvider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AIProviderSpec   `json:"spec"`
	Status AIProviderStatus `json:"status,omitempty"`
}

// AIProviderList is a list of AIProviders.
// +kubebuilder:object:root=true
type AIProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AIProvider `json:"items"`
}

// ProviderFields returns the provider's settings that are not secrets,
// shared by both scopes.
func (mg *AIProvider) ProviderFields() *common.AIProviderFields {
	return &mg.Spec.ForProvider.AIProviderFields
}

// ProviderBedrock returns the Bedrock settings that are not secrets, or nil
// when the provider has none.
func (mg *AIProvider) ProviderBedrock() *common.BedrockFields {
	if mg.Spec.ForProvider.Bedrock == nil {
		return nil
	}
	return &mg.Spec.ForProvider.Bedrock.BedrockFields
}

// ProviderSecretRefs returns the Secret keys the provider reads, each in the
// namespace its reference names.
func (mg *AIProvider) ProviderSecretRefs() common.AIProviderSecretRefs {
	refs := common.AIProviderSecretRefs{APIKeys: append([]common.SecretKeySelector(nil), mg.Spec.ForProvider.APIKeySecretRefs...)}
	if b := mg.Spec.ForProvider.Bedrock; b != nil {
		refs.AccessKeyID = b.AccessKeyIDSecretRef
		refs.SecretAccessKey = b.SecretAccessKeySecretRef
	}
	return refs
}
