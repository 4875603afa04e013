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

package providerconfig

// The provider's finalizers. Each is qualified, as Kubernetes asks, and ours
// alone: the provider never removes anyone else's.
const (
	// HoldFinalizer keeps a ProviderConfig while its dependents may still
	// need its credentials to delete their objects in Coder.
	HoldFinalizer = "coder.crossplane.io/dependent-hold"
	// CredentialsFinalizer keeps a Secret a ProviderConfig reads, so a
	// namespace deletion cannot take the credentials away before the
	// dependents have deleted their objects. A Secret being deleted still
	// serves its data. The ProviderConfig reconcilers add it; the
	// credentials controller, keyed on the Secret, alone removes it.
	CredentialsFinalizer = "coder.crossplane.io/credentials-in-use"
	// ManagedFinalizer is the finalizer every managed resource of the
	// provider carries while its object may exist in Coder. A dependent
	// with a deletion timestamp holds its ProviderConfig only while it
	// still carries this finalizer.
	ManagedFinalizer = "ai.coder.crossplane.io/external-cleanup"
)
