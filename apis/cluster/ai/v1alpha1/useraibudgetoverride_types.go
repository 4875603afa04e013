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

// UserAIBudgetOverride type metadata.
var (
	UserAIBudgetOverrideKind             = "UserAIBudgetOverride"
	UserAIBudgetOverrideGroupVersionKind = SchemeGroupVersion.WithKind(UserAIBudgetOverrideKind)
)

func init() {
	SchemeBuilder.Register(&UserAIBudgetOverride{}, &UserAIBudgetOverrideList{})
}

// UserAIBudgetOverrideSpec is the desired state of a UserAIBudgetOverride. The limit is needed
// only to create or update: an observe-only import leaves it out.
// +kubebuilder:validation:XValidation:rule="(has(self.managementPolicies) && !('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies)) || has(self.forProvider.spendLimitMicros)",message="spec.forProvider.spendLimitMicros is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as [\"Observe\"]"
type UserAIBudgetOverrideSpec struct {
	xpv2.ClusterManagedResourceSpec `json:",inline"`
	ForProvider                     common.UserAIBudgetOverrideParameters `json:"forProvider"`
}

// UserAIBudgetOverrideStatus is the observed state of a UserAIBudgetOverride.
type UserAIBudgetOverrideStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 common.UserAIBudgetOverrideObservation `json:"atProvider,omitempty"`
}

// A UserAIBudgetOverride is a Coder user's own AI spend limit per budget
// period, in place of its groups' budgets, and the group its spend is
// attributed to. A user has one override or none: deleting the resource
// removes it, so the user's group budgets apply again.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories={crossplane,managed,coder-cluster}
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="USER",type="string",JSONPath=".spec.forProvider.user"
// +kubebuilder:printcolumn:name="LIMIT-MICROS",type="integer",JSONPath=".status.atProvider.spendLimitMicros"
// +kubebuilder:printcolumn:name="SPEND-MICROS",type="integer",JSONPath=".status.atProvider.currentSpendMicros"
// +kubebuilder:printcolumn:name="MEMBER",type="boolean",JSONPath=".status.atProvider.member",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type UserAIBudgetOverride struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   UserAIBudgetOverrideSpec   `json:"spec"`
	Status UserAIBudgetOverrideStatus `json:"status,omitempty"`
}

// UserAIBudgetOverrideList is a list of UserAIBudgetOverrides.
// +kubebuilder:object:root=true
type UserAIBudgetOverrideList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []UserAIBudgetOverride `json:"items"`
}

// OverrideParameters returns the desired state, shared by both scopes.
func (mg *UserAIBudgetOverride) OverrideParameters() *common.UserAIBudgetOverrideParameters {
	return &mg.Spec.ForProvider
}

// OverrideObservation returns the observed state, shared by both scopes.
func (mg *UserAIBudgetOverride) OverrideObservation() *common.UserAIBudgetOverrideObservation {
	return &mg.Status.AtProvider
}

// StatusConditions returns the conditions, for the spend warning to remove
// its own when spec.forProvider.warnAt is unset.
func (mg *UserAIBudgetOverride) StatusConditions() *xpv2.ConditionedStatus {
	return &mg.Status.ConditionedStatus
}
