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

// AIGatewayKeyParameters are the configurable fields of an AIGatewayKey.
// The Coder-side name is derived from the object's namespace, name and UID,
// so a re-created object never adopts an earlier incarnation's key.
type AIGatewayKeyParameters struct {
	// NamePrefix shapes the start of the derived Coder key name. It must be
	// lowercase alphanumerics separated by single hyphens.
	// +optional
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+(-[a-z0-9]+)*$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="namePrefix is immutable: a Coder key cannot be renamed"
	NamePrefix string `json:"namePrefix,omitempty"`

	// Rotation replaces the key with a new one while the old one stays valid
	// for a settle window, so gateway replicas move to the new key without
	// an outage. A rotation also starts, with or without this field, when
	// the annotation coder.crossplane.io/rotate changes value.
	// +optional
	Rotation *AIGatewayKeyRotation `json:"rotation,omitempty"`
}

// AIGatewayKeyRotation says when a key is rotated and how long the old key
// stays valid after the new one is published.
// +kubebuilder:validation:XValidation:rule="!has(self.every) || !has(self.settleWindow) || duration(self.every) > duration(self.settleWindow)",message="rotation.every must be longer than rotation.settleWindow"
type AIGatewayKeyRotation struct {
	// Every rotates the key when this much time has passed since the current
	// key was created. Unset: rotate only on demand, through the annotation
	// coder.crossplane.io/rotate.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.forProvider.rotation.every must be a duration of at least 0s such as 24h or 720h (units h, m, s, ms, us, ns; no d)"
	Every *metav1.Duration `json:"every,omitempty"`

	// SettleWindow is how long the old key stays valid after the new key is
	// published to the connection Secret. It ends early when Coder shows that
	// the gateway replicas moved: the new key has a heartbeat after the
	// rotation began and the old key has had none for two heartbeat periods.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.forProvider.rotation.settleWindow must be a duration of at least 0s such as 5m or 1h (units h, m, s, ms, us, ns; no d)"
	SettleWindow *metav1.Duration `json:"settleWindow,omitempty"`

	// MaxSettleWindow is how long a retiring key that gateway replicas still
	// use is kept past the settle window. A key is in use while Coder shows a
	// heartbeat from it within the last two heartbeat periods (120 s, by
	// Coder's clock); the provider then keeps it, sets the condition
	// RetiringKeyInUse and says which key and what to do. At this maximum the
	// key is deleted anyway, with the Warning event RetiringKeyRevokedInUse.
	// Unset: 1h. A maximum shorter than the settle window is the settle
	// window: the window is never cut short.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="spec.forProvider.rotation.maxSettleWindow must be a duration of at least 0s such as 1h or 24h (units h, m, s, ms, us, ns; no d)"
	MaxSettleWindow *metav1.Duration `json:"maxSettleWindow,omitempty"`

	// Restart lists the workloads in the connection Secret's namespace that
	// read the key: after a rotation publishes the new key, the provider
	// restarts each the way kubectl rollout restart does (it sets the pod
	// template annotation coder.crossplane.io/restarted-for-key to the new
	// key's id), then keeps the retiring key until its heartbeats stop. The
	// provider needs get and patch on these workloads, which its default
	// RBAC does not grant (docs/how-to/rotate-gateway-keys.md).
	// +optional
	// +listType=map
	// +listMapKey=kind
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Restart []WorkloadReference `json:"restart,omitempty"`
}

// WorkloadKind is a kind of workload a rotation restarts.
// +kubebuilder:validation:Enum=Deployment;StatefulSet;DaemonSet
type WorkloadKind string

// The workload kinds a rotation restarts, all of group apps/v1.
const (
	WorkloadDeployment  WorkloadKind = "Deployment"
	WorkloadStatefulSet WorkloadKind = "StatefulSet"
	WorkloadDaemonSet   WorkloadKind = "DaemonSet"
)

// A WorkloadReference names a workload in the connection Secret's namespace.
type WorkloadReference struct {
	// Kind of the workload, of group apps/v1.
	Kind WorkloadKind `json:"kind"`
	// Name of the workload.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// AIGatewayKeyObservation is the observed state of a key in Coder. The key's
// plaintext is never part of it: it goes to the connection Secret only.
type AIGatewayKeyObservation struct {
	// ID is the Coder key id.
	ID string `json:"id,omitempty"`
	// Name is the Coder key name.
	Name string `json:"name,omitempty"`
	// KeyPrefix is the non-secret prefix Coder shows for the key.
	KeyPrefix string `json:"keyPrefix,omitempty"`
	// CreatedAt is when Coder created the key.
	CreatedAt *metav1.Time `json:"createdAt,omitempty"`
	// LastHeartbeatAt is the last time a gateway replica using the key
	// checked in, which shows whether the key is in use.
	LastHeartbeatAt *metav1.Time `json:"lastHeartbeatAt,omitempty"`

	// Rotation shows the rotation in progress, if any, and the last one.
	// +optional
	Rotation *AIGatewayKeyRotationObservation `json:"rotation,omitempty"`
}

// AIGatewayKeyRotationObservation is the rotation state of a key. Coder and
// the connection Secret are the source of truth; this is what they showed
// at the last reconcile.
type AIGatewayKeyRotationObservation struct {
	// Counter of the current key: 0 for the first key, one more per
	// rotation. The Coder key name carries it as a -r<counter> suffix.
	// +optional
	Counter int `json:"counter,omitempty"`
	// RetiringKeyID is the Coder id of the key being retired.
	// +optional
	RetiringKeyID string `json:"retiringKeyID,omitempty"`
	// RetiringKeyPrefix is the non-secret prefix of the key being retired.
	// +optional
	RetiringKeyPrefix string `json:"retiringKeyPrefix,omitempty"`
	// StartedAt is when the rotation in progress began: when Coder created
	// the current key.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// RetiresAt is when the settle window ends: the retiring key is deleted
	// then, unless gateway replicas still use it.
	// +optional
	RetiresAt *metav1.Time `json:"retiresAt,omitempty"`
	// RevokeBy is when the retiring key is deleted at the latest, in use or
	// not: the end of rotation.maxSettleWindow.
	// +optional
	RevokeBy *metav1.Time `json:"revokeBy,omitempty"`
	// RetiringKeyLastHeartbeatAt is the last heartbeat Coder showed for the
	// retiring key: recent means gateway replicas still use it.
	// +optional
	RetiringKeyLastHeartbeatAt *metav1.Time `json:"retiringKeyLastHeartbeatAt,omitempty"`
	// LastRotatedAt is when the last rotation finished: its retiring key
	// was verified gone from Coder.
	// +optional
	LastRotatedAt *metav1.Time `json:"lastRotatedAt,omitempty"`
	// NextRotationAt is when rotation.every starts the next rotation.
	// +optional
	NextRotationAt *metav1.Time `json:"nextRotationAt,omitempty"`
}

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
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="forProvider.type is immutable"
	Type AIProviderType `json:"type"`

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
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="forProvider.baseURL must be an absolute http or https URL, e.g. https://api.example.com/"
	BaseURL string `json:"baseURL"`
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
