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

// AIGatewayKeySpec is the desired state of an AIGatewayKey.
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || self.providerConfigRef.kind in ['ProviderConfig', 'ClusterProviderConfig']",message="spec.providerConfigRef.kind must be ProviderConfig or ClusterProviderConfig"
// +kubebuilder:validation:XValidation:rule="(has(self.forProvider) && has(self.forProvider.namePrefix)) == (has(oldSelf.forProvider) && has(oldSelf.forProvider.namePrefix))",message="forProvider.namePrefix cannot be added or removed: a Coder key cannot be renamed"
type AIGatewayKeySpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	// +optional
	ForProvider common.AIGatewayKeyParameters `json:"forProvider,omitempty"`
}

// AIGatewayKeyStatus is the observed state of an AIGatewayKey.
type AIGatewayKeyStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 common.AIGatewayKeyObservation `json:"atProvider,omitempty"`
}

// An AIGatewayKey is a Coder AI Gateway key that standalone gateway replicas
// use to authenticate. Its plaintext is written to the connection Secret only.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,coder},shortName={gwkey,gwkeys}
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="KEY-PREFIX",type="string",JSONPath=".status.atProvider.keyPrefix"
// +kubebuilder:printcolumn:name="LAST-HEARTBEAT",type="date",JSONPath=".status.atProvider.lastHeartbeatAt"
// +kubebuilder:printcolumn:name="RETIRING-PREFIX",type="string",JSONPath=".status.atProvider.rotation.retiringKeyPrefix",priority=1
// +kubebuilder:printcolumn:name="RETIRES-AT",type="string",JSONPath=".status.atProvider.rotation.retiresAt",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type AIGatewayKey struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AIGatewayKeySpec   `json:"spec"`
	Status AIGatewayKeyStatus `json:"status,omitempty"`
}

// AIGatewayKeyList is a list of AIGatewayKeys.
// +kubebuilder:object:root=true
type AIGatewayKeyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AIGatewayKey `json:"items"`
}
