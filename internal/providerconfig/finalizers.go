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
