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

// Package v1alpha1 holds the API types that both scopes share: the parts of
// a ProviderConfig and of the managed resources that do not depend on whether
// the object is namespaced. It registers no API group of its own.
// +kubebuilder:object:generate=true
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// CredentialsSource is where a ProviderConfig reads its Coder session token.
// +kubebuilder:validation:Enum=Secret
type CredentialsSource string

// CredentialsSourceSecret reads the session token from a Secret key.
const CredentialsSourceSecret CredentialsSource = "Secret"

// A LocalSecretKeySelector names a key of a Secret in the referencing object's
// own namespace.
type LocalSecretKeySelector struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Key within the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// A SecretKeySelector names a key of a Secret in a given namespace.
type SecretKeySelector struct {
	LocalSecretKeySelector `json:",inline"`

	// Namespace of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
}

// DeletionSpec bounds how long a ProviderConfig being deleted holds for the
// managed resources that still use it. Every wait has a bound, so nothing
// stays Terminating forever because of this provider.
type DeletionSpec struct {
	// DependentTimeout is how long, from the ProviderConfig's deletion
	// timestamp, deleting dependents hold it before the grace period starts.
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.deletion.dependentTimeout must be a duration of at least 0s such as 90s or 10m (units h, m, s, ms, us, ns; no d)"
	DependentTimeout *metav1.Duration `json:"dependentTimeout,omitempty"`

	// LiveDependentTimeout is how long dependents that are not being deleted
	// hold it. It covers one command that deletes everything in any order.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.deletion.liveDependentTimeout must be a duration of at least 0s such as 30s or 2m (units h, m, s, ms, us, ns; no d)"
	LiveDependentTimeout *metav1.Duration `json:"liveDependentTimeout,omitempty"`

	// UnreachableTimeout is how long Coder may stop answering during a
	// namespace deletion before the ProviderConfig is released early.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.deletion.unreachableTimeout must be a duration of at least 0s such as 30s or 2m (units h, m, s, ms, us, ns; no d)"
	UnreachableTimeout *metav1.Duration `json:"unreachableTimeout,omitempty"`

	// Grace is the period after DependentTimeout in which each remaining
	// dependent makes its one bounded delete pass while the credentials
	// still work.
	// +optional
	Grace *GraceSpec `json:"grace,omitempty"`
}

// GraceSpec is the grace formula: base + perDependent x remaining dependents
// of the larger kind, at most max.
type GraceSpec struct {
	// Base is the grace period's length before adding per dependent.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.deletion.grace.base must be a duration of at least 0s such as 30s or 1m (units h, m, s, ms, us, ns; no d)"
	Base *metav1.Duration `json:"base,omitempty"`
	// PerDependent is added for each remaining dependent of the kind with
	// the most.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.deletion.grace.perDependent must be a duration of at least 0s such as 10s or 1m (units h, m, s, ms, us, ns; no d)"
	PerDependent *metav1.Duration `json:"perDependent,omitempty"`
	// Max caps the grace period.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.deletion.grace.max must be a duration of at least 0s such as 5m or 1h30m (units h, m, s, ms, us, ns; no d)"
	Max *metav1.Duration `json:"max,omitempty"`
}

// ProviderConfigStatus is the observed state of any ProviderConfig kind.
type ProviderConfigStatus struct {
	xpv2.ProviderConfigStatus `json:",inline"`

	// DeploymentID is Coder's deployment id from /api/v2/buildinfo. Cleanup
	// records are swept only by a ProviderConfig of the same deployment.
	// +optional
	DeploymentID string `json:"deploymentID,omitempty"`

	// Version is the Coder server version from /api/v2/buildinfo.
	// +optional
	Version string `json:"version,omitempty"`

	// Hold shows, while the ProviderConfig is being deleted, whom it waits
	// for and until when at the latest.
	// +optional
	Hold *HoldStatus `json:"hold,omitempty"`
}

// HoldStatus is the dependent hold of a ProviderConfig being deleted.
type HoldStatus struct {
	// Phase is Holding (dependents delete normally), Grace (each makes one
	// bounded pass) or Released.
	Phase string `json:"phase,omitempty"`
	// Since is the ProviderConfig's deletion timestamp.
	Since *metav1.Time `json:"since,omitempty"`
	// Until is when the current phase ends at the latest.
	Until *metav1.Time `json:"until,omitempty"`
	// GraceUntil is the end of the grace period once it has started; it
	// does not move while dependents finish.
	GraceUntil *metav1.Time `json:"graceUntil,omitempty"`
	// Dependents are the managed resources it waits for (at most ten).
	Dependents []string `json:"dependents,omitempty"`
	// Remaining is how many dependents it waits for.
	Remaining int `json:"remaining,omitempty"`
}

// LocalProviderConfigSpec configures a namespaced ProviderConfig. Its Secrets
// are always in its own namespace.
type LocalProviderConfigSpec struct {
	// URL is Coder's access URL.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="spec.url must be an absolute http or https URL, e.g. https://coder.example.com"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*@') && !self.matches('^[^#]*[?][^#]') && !self.matches('#.')",message="spec.url must not carry user credentials, a query or a fragment, e.g. https://coder.example.com: the session token comes from spec.credentials"
	URL string `json:"url"`

	// Credentials locate the Coder session token.
	Credentials LocalCredentials `json:"credentials"`

	// TLS configures how Coder's certificate is verified.
	// +optional
	TLS *LocalTLSConfig `json:"tls,omitempty"`

	// Deletion bounds the dependent hold.
	// +optional
	// +kubebuilder:default={}
	Deletion *DeletionSpec `json:"deletion,omitempty"`

	// Sweep lets this ProviderConfig sweep the Abandoned cleanup records of
	// its Coder deployment. Defaults to true.
	// +optional
	// +kubebuilder:default=true
	Sweep *bool `json:"sweep,omitempty"`
}

// ProviderConfigSpec configures a cluster-scoped ProviderConfig. Its Secrets
// name their namespace.
type ProviderConfigSpec struct {
	// URL is Coder's access URL.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="spec.url must be an absolute http or https URL, e.g. https://coder.example.com"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*@') && !self.matches('^[^#]*[?][^#]') && !self.matches('#.')",message="spec.url must not carry user credentials, a query or a fragment, e.g. https://coder.example.com: the session token comes from spec.credentials"
	URL string `json:"url"`

	// Credentials locate the Coder session token.
	Credentials Credentials `json:"credentials"`

	// TLS configures how Coder's certificate is verified.
	// +optional
	TLS *TLSConfig `json:"tls,omitempty"`

	// Deletion bounds the dependent hold.
	// +optional
	// +kubebuilder:default={}
	Deletion *DeletionSpec `json:"deletion,omitempty"`

	// Sweep lets this ProviderConfig sweep the Abandoned cleanup records of
	// its Coder deployment. Defaults to true.
	// +optional
	// +kubebuilder:default=true
	Sweep *bool `json:"sweep,omitempty"`
}

// LocalCredentials locate a session token in the ProviderConfig's namespace.
// The token belongs to a Coder user allowed to manage AI providers and keys
// (an Owner).
// +kubebuilder:validation:XValidation:rule="self.source != 'Secret' || has(self.secretRef)",message="spec.credentials.secretRef is required when source is Secret"
type LocalCredentials struct {
	// Source of the credentials.
	// +kubebuilder:default=Secret
	Source CredentialsSource `json:"source"`

	// SecretRef names the Secret key that holds the session token.
	// +optional
	SecretRef *LocalSecretKeySelector `json:"secretRef,omitempty"`
}

// Credentials locate a session token in a named namespace.
// +kubebuilder:validation:XValidation:rule="self.source != 'Secret' || has(self.secretRef)",message="spec.credentials.secretRef is required when source is Secret"
type Credentials struct {
	// Source of the credentials.
	// +kubebuilder:default=Secret
	Source CredentialsSource `json:"source"`

	// SecretRef names the Secret key that holds the session token.
	// +optional
	SecretRef *SecretKeySelector `json:"secretRef,omitempty"`
}

// LocalTLSConfig trusts a CA bundle from a Secret in the same namespace.
type LocalTLSConfig struct {
	// CASecretRef names a Secret key holding PEM CA certificates. When set,
	// only these roots are trusted.
	// +optional
	CASecretRef *LocalSecretKeySelector `json:"caSecretRef,omitempty"`

	// InsecureSkipVerify disables certificate verification. Only for tests.
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
}

// TLSConfig trusts a CA bundle from a Secret in a named namespace.
type TLSConfig struct {
	// CASecretRef names a Secret key holding PEM CA certificates. When set,
	// only these roots are trusted.
	// +optional
	CASecretRef *SecretKeySelector `json:"caSecretRef,omitempty"`

	// InsecureSkipVerify disables certificate verification. Only for tests.
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
}
