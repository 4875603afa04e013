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
