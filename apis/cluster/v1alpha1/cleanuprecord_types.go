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

// Phases of a cleanup record.
const (
	// CleanupPhaseActive: the managed resource owns the object in Coder.
	CleanupPhaseActive = "Active"
	// CleanupPhaseAbandoned: the managed resource let go without a verified
	// delete; a sweep deletes the object in Coder.
	CleanupPhaseAbandoned = "Abandoned"
)

// ManagedResourceUIDLabel carries the UID of the managed resource on each of
// its cleanup records, so all of them are found (and deleted) together.
const ManagedResourceUIDLabel = "coder.crossplane.io/managed-resource-uid"

// ManagedResourceReference names a managed resource exactly, UID included.
type ManagedResourceReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
}

// RecordedProviderConfig is the ProviderConfig a create was sent through,
// and the Coder URL it named then.
type RecordedProviderConfig struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// URL is the Coder URL, canonical: lower-case scheme and host, no
	// default port, no trailing slash.
	URL string `json:"url"`
}

// CleanupRecordSpec says whose record it is: the managed resource, the kind
// of object it creates in Coder, the ProviderConfig the create went through
// and the Coder deployment. It is immutable.
// What the sweep acts on (the object's name and id, the phase) is in the
// status, which only the provider writes.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: the provider writes cleanup records"
type CleanupRecordSpec struct {
	// Kind of the object in Coder: AIGatewayKey, AIProvider, GroupAIBudget,
	// UserAIBudgetOverride or MCPServer.
	// +kubebuilder:validation:Enum=AIGatewayKey;AIProvider;GroupAIBudget;UserAIBudgetOverride;MCPServer
	Kind string `json:"kind"`
	// ManagedResource is the managed resource that created it.
	ManagedResource ManagedResourceReference `json:"managedResource"`
	// DeploymentID of the Coder deployment it lives in (from buildinfo).
	DeploymentID string `json:"deploymentID"`
	// ProviderConfig the create was sent through. The object is deleted,
	// and its absence believed, only through a ProviderConfig that reaches
	// this URL and deployment; the sweep uses this one or a cluster-scoped
	// one of the same URL and deployment. Records written by earlier
	// releases have none, and are swept by deployment alone.
	// +optional
	ProviderConfig *RecordedProviderConfig `json:"providerConfig,omitempty"`
}

// CleanupRecordStatus is what the provider wrote about the object: its name
// and id in Coder, and whether it still needs deleting. The provider writes
// it before it creates anything in Coder, so a record without a status
// names nothing there: the sweep never acts on one, and removes it once
// its managed resource is gone.
type CleanupRecordStatus struct {
	// Phase is Active or Abandoned.
	// +optional
	// +kubebuilder:validation:Enum=Active;Abandoned
	Phase string `json:"phase,omitempty"`
	// CoderName is the object's name in Coder, known before it is created;
	// empty for an object the managed resource imported by external name.
	// +optional
	CoderName string `json:"coderName,omitempty"`
	// ExternalID is the Coder id, once known.
	// +optional
	ExternalID string `json:"externalID,omitempty"`
	// CreateAttemptedAt is when the last create of the object was sent to
	// Coder. An object found by a name its owner does not derive from its
	// UID (an AIProvider's) is taken for the result of that attempt only if
	// Coder created it within the attempt's request timeout.
	// +optional
	CreateAttemptedAt *metav1.Time `json:"createAttemptedAt,omitempty"`
	// CoderUpdatedAt is, for a budget or an override, the updated_at Coder
	// answered the provider's last write with, by Coder's clock (RFC 3339,
	// to the nanosecond). The row in Coder is the provider's exactly while
	// it shows this time: a later write, by anyone, changes it.
	// +optional
	CoderUpdatedAt string `json:"coderUpdatedAt,omitempty"`
	// SpendLimitMicros is, for a budget or an override, the limit of the
	// provider's last write.
	// +optional
	SpendLimitMicros *int64 `json:"spendLimitMicros,omitempty"`
	// GroupID is, for an override, the group of the provider's last write
	// (externalID is then the user's id).
	// +optional
	GroupID string `json:"groupID,omitempty"`
	// Reason the record was abandoned.
	// +optional
	Reason string `json:"reason,omitempty"`
	// AbandonedAt is when the record turned Abandoned.
	// +optional
	AbandonedAt *metav1.Time `json:"abandonedAt,omitempty"`
	// Attempts counts sweep attempts.
	// +optional
	Attempts int `json:"attempts,omitempty"`
	// LastError of the last failed sweep.
	// +optional
	LastError string `json:"lastError,omitempty"`
}

// A CleanupRecord is written before the provider creates anything in Coder
// and names it. It is cluster-scoped so a namespace deletion cannot remove
// it: `kubectl get cleanuprecords` is an inventory of everything the
// provider created in Coder, and the Abandoned ones are what a sweep still
// has to delete.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories={coder-cluster}
// +kubebuilder:printcolumn:name="KIND",type="string",JSONPath=".spec.kind"
// +kubebuilder:printcolumn:name="PHASE",type="string",JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="MANAGED-RESOURCE",type="string",JSONPath=".spec.managedResource.name"
// +kubebuilder:printcolumn:name="DEPLOYMENT",type="string",JSONPath=".spec.deploymentID"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type CleanupRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CleanupRecordSpec `json:"spec"`
	// +optional
	Status CleanupRecordStatus `json:"status,omitempty"`
}

// CleanupRecordList is a list of CleanupRecords.
// +kubebuilder:object:root=true
type CleanupRecordList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CleanupRecord `json:"items"`
}
