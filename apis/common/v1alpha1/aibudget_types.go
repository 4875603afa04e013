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

// MaxAISpendLimitMicros is Coder's highest AI spend limit
// (codersdk.MaxAISpendLimitMicros): $1,000,000 per member per budget period.
const MaxAISpendLimitMicros int64 = 1_000_000_000_000

// AIBudgetGroup names the Coder group a budget applies to: by name within an
// organization, or by id. A group's budget and an override both name one;
// the rules that need exactly one are on the parameters that hold it.
type AIBudgetGroup struct {
	// GroupName is the group's name in Coder, e.g. Everyone.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$`
	GroupName *string `json:"groupName,omitempty"`

	// Organization holds the group named by groupName: an organization id
	// or name. Unset, Coder's default organization.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*)$`
	Organization *string `json:"organization,omitempty"`

	// GroupID is the group's id in Coder.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	GroupID *string `json:"groupID,omitempty"`
}

// GroupAIBudgetParameters are the configurable fields of a GroupAIBudget:
// which group (immutable), and its limit. A group has at most one budget
// in Coder; deleting the resource removes it, which restores Coder's
// default (no budget).
// +kubebuilder:validation:XValidation:rule="has(self.groupName) != has(self.groupID)",message="forProvider: set exactly one of groupName and groupID"
// +kubebuilder:validation:XValidation:rule="!has(self.organization) || has(self.groupName)",message="forProvider.organization names where groupName is; it cannot go with groupID"
// +kubebuilder:validation:XValidation:rule="has(self.groupName) == has(oldSelf.groupName) && has(self.groupID) == has(oldSelf.groupID) && has(self.organization) == has(oldSelf.organization) && (!has(self.groupName) || self.groupName == oldSelf.groupName) && (!has(self.groupID) || self.groupID == oldSelf.groupID) && (!has(self.organization) || self.organization == oldSelf.organization)",message="forProvider: the group is immutable: budget another group with another resource"
type GroupAIBudgetParameters struct {
	AIBudgetGroup `json:",inline"`

	// SpendLimitMicros is the AI spend limit of each member of the group per
	// budget period (a calendar month by default), in millionths of a
	// dollar: 5000000 is $5. Required unless spec.managementPolicies allow
	// neither Create nor Update: an observe-only import reads it from Coder.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000000000
	SpendLimitMicros *int64 `json:"spendLimitMicros,omitempty"`

	// WarnAt is a percentage of the group's combined limit, that of the
	// members whose spend is attributed to the group
	// (status.atProvider.totalSpendLimitMicros): when the group's spend
	// this budget period reaches it, the SpendWarning condition turns True and one Warning
	// event is sent for the period. Unset, no warning.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	WarnAt *int32 `json:"warnAt,omitempty"`
}

// UserAIBudgetOverrideParameters are the configurable fields of a
// UserAIBudgetOverride: whose limit, the group its spend is attributed to,
// and the limit. A user has at most one override in Coder, and must be a
// member of the group.
// +kubebuilder:validation:XValidation:rule="has(self.groupName) != has(self.groupID)",message="forProvider: set exactly one of groupName and groupID"
// +kubebuilder:validation:XValidation:rule="!has(self.organization) || has(self.groupName)",message="forProvider.organization names where groupName is; it cannot go with groupID"
type UserAIBudgetOverrideParameters struct {
	// User is the Coder user: a username or a user id. Immutable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:Pattern=`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*)$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="forProvider.user is immutable: override another user with another resource"
	// +kubebuilder:validation:XValidation:rule="self != 'me'",message="forProvider.user: name the user, not me (the ProviderConfig's token user)"
	User string `json:"user"`

	// The group the user's spend is attributed to while the override
	// applies. Unlike a group budget's, it may change: Coder moves the
	// override.
	AIBudgetGroup `json:",inline"`

	// SpendLimitMicros is the user's own AI spend limit per budget period,
	// in millionths of a dollar. Required unless spec.managementPolicies
	// allow neither Create nor Update.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000000000
	SpendLimitMicros *int64 `json:"spendLimitMicros,omitempty"`

	// WarnAt is a percentage of the user's limit: when the user's spend
	// this budget period reaches it, the SpendWarning condition turns True
	// and one Warning event is sent for the period. Unset, no warning.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	WarnAt *int32 `json:"warnAt,omitempty"`
}

// AISpendPeriod is the budget period Coder measures spend over.
type AISpendPeriod struct {
	// PeriodStart is the first instant of the current period.
	// +optional
	PeriodStart *metav1.Time `json:"periodStart,omitempty"`
	// PeriodEnd is the first instant of the next period.
	// +optional
	PeriodEnd *metav1.Time `json:"periodEnd,omitempty"`
}

// AISpendWarningStatus is what the provider remembers of the spend warning
// (spec.forProvider.warnAt) between polls and restarts.
type AISpendWarningStatus struct {
	// WarnedPeriodStart is the start of the budget period whose
	// SpendReachedWarnAt event was sent: one event per period.
	// +optional
	WarnedPeriodStart *metav1.Time `json:"warnedPeriodStart,omitempty"`
}

// GroupAIBudgetObservation is a group's budget and spend as Coder showed
// them at the last reconcile.
type GroupAIBudgetObservation struct {
	// GroupID is the group's id in Coder.
	GroupID string `json:"groupID,omitempty"`
	// SpendLimitMicros is the limit per member Coder holds; unset when the
	// group has no budget.
	SpendLimitMicros *int64 `json:"spendLimitMicros,omitempty"`
	// TotalSpendLimitMicros is the combined limit of the members whose spend
	// is attributed to the group, each override replacing its member's
	// share.
	TotalSpendLimitMicros *int64 `json:"totalSpendLimitMicros,omitempty"`
	// CurrentSpendMicros is the spend attributed to the group this period.
	CurrentSpendMicros int64 `json:"currentSpendMicros,omitempty"`
	// UpdatedAt is when Coder last changed the budget, by Coder's clock.
	UpdatedAt *metav1.Time `json:"updatedAt,omitempty"`

	AISpendPeriod        `json:",inline"`
	AISpendWarningStatus `json:",inline"`
}

// UserAIBudgetOverrideObservation is a user's override and spend as Coder
// showed them at the last reconcile.
type UserAIBudgetOverrideObservation struct {
	// UserID is the user's id in Coder.
	UserID string `json:"userID,omitempty"`
	// GroupID is the group the user's spend is attributed to.
	GroupID string `json:"groupID,omitempty"`
	// SpendLimitMicros is the user's limit Coder holds; unset when the user
	// has no override.
	SpendLimitMicros *int64 `json:"spendLimitMicros,omitempty"`
	// CurrentSpendMicros is the user's spend this period, attributed to the
	// user's effective group.
	CurrentSpendMicros int64 `json:"currentSpendMicros,omitempty"`
	// Member is whether the user is a member of the group: Coder drops the
	// override when the user leaves it.
	Member bool `json:"member,omitempty"`
	// UpdatedAt is when Coder last changed the override, by Coder's clock.
	UpdatedAt *metav1.Time `json:"updatedAt,omitempty"`

	AISpendPeriod        `json:",inline"`
	AISpendWarningStatus `json:",inline"`
}
