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

// GroupAIBudget type metadata.
var (
	GroupAIBudgetKind             = "GroupAIBudget"
	GroupAIBudgetGroupVersionKind = SchemeGroupVersion.WithKind(GroupAIBudgetKind)
)

func init() {
	SchemeBuilder.Register(&GroupAIBudget{}, &GroupAIBudgetList{})
}

// GroupAIBudgetSpec is the desired state of a GroupAIBudget. The limit is needed
// only to create or update: an observe-only import leaves it out.
// +kubebuilder:validation:XValidation:rule="(has(self.managementPolicies) && !('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies)) || has(self.forProvider.spendLimitMicros)",message="spec.forProvider.spendLimitMicros is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as [\"Observe\"]"
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || self.providerConfigRef.kind in ['ProviderConfig', 'ClusterProviderConfig']",message="spec.providerConfigRef.kind must be ProviderConfig or ClusterProviderConfig"
type GroupAIBudgetSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              common.GroupAIBudgetParameters `json:"forProvider"`
}

// GroupAIBudgetStatus is the observed state of a GroupAIBudget.
type GroupAIBudgetStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 common.GroupAIBudgetObservation `json:"atProvider,omitempty"`
}

// A GroupAIBudget is the AI spend limit of each member of a Coder group per
// budget period. A group has one budget or none: deleting the resource
// removes the budget, which restores Coder's default (no limit).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,coder},shortName={aibudget,aibudgets}
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="GROUP",type="string",JSONPath=".spec.forProvider.groupName"
// +kubebuilder:printcolumn:name="LIMIT-MICROS",type="integer",JSONPath=".status.atProvider.spendLimitMicros"
// +kubebuilder:printcolumn:name="SPEND-MICROS",type="integer",JSONPath=".status.atProvider.currentSpendMicros"
// +kubebuilder:printcolumn:name="GROUP-ID",type="string",JSONPath=".status.atProvider.groupID",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type GroupAIBudget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GroupAIBudgetSpec   `json:"spec"`
	Status GroupAIBudgetStatus `json:"status,omitempty"`
}

// GroupAIBudgetList is a list of GroupAIBudgets.
// +kubebuilder:object:root=true
type GroupAIBudgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GroupAIBudget `json:"items"`
}

// BudgetParameters returns the desired state, shared by both scopes.
func (mg *GroupAIBudget) BudgetParameters() *common.GroupAIBudgetParameters {
	return &mg.Spec.ForProvider
}

// BudgetObservation returns the observed state, shared by both scopes.
func (mg *GroupAIBudget) BudgetObservation() *common.GroupAIBudgetObservation {
	return &mg.Status.AtProvider
}

// StatusConditions returns the conditions, for the spend warning to remove
// its own when spec.forProvider.warnAt is unset.
func (mg *GroupAIBudget) StatusConditions() *xpv2.ConditionedStatus {
	return &mg.Status.ConditionedStatus
}
