package v1alpha1

import (
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// KeyParameters returns the key's desired state, shared by both scopes.
func (mg *AIGatewayKey) KeyParameters() *common.AIGatewayKeyParameters {
	return &mg.Spec.ForProvider
}

// KeyObservation returns the key's observed state, shared by both scopes.
func (mg *AIGatewayKey) KeyObservation() *common.AIGatewayKeyObservation {
	return &mg.Status.AtProvider
}

// ProviderObservation returns the provider's observed state, shared by both
// scopes.
func (mg *AIProvider) ProviderObservation() *common.AIProviderObservation {
	return &mg.Status.AtProvider
}
