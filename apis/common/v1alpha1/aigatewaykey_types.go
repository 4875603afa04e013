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
	// SecretLosses is how many times in a row the connection Secret lost
	// the key's plaintext (deleted, or edited by hand or by a sync), each
	// within an hour of the one before; a rotation answered each. Two or
	// more set the ConnectionSecretLost condition.
	// +optional
	SecretLosses int `json:"secretLosses,omitempty"`
	// FirstSecretLossAt is the first of those losses.
	// +optional
	FirstSecretLossAt *metav1.Time `json:"firstSecretLossAt,omitempty"`
	// LastSecretLossAt is the last of those losses.
	// +optional
	LastSecretLossAt *metav1.Time `json:"lastSecretLossAt,omitempty"`
}
