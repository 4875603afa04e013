package providerconfig

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/index"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const errListDependents = "cannot list dependents"

// A Dependent is a managed resource that uses a ProviderConfig.
type Dependent struct {
	Kind      string
	Namespace string
	Name      string
	// Deleting is true when the resource has a deletion timestamp.
	Deleting bool
	// Object is the resource as read.
	Object resource.Managed
}

// ListDependents returns every managed resource, of every kind, whose
// providerConfigRef resolves to ref.
func ListDependents(ctx context.Context, r client.Reader, ref providerconfig.Ref) ([]Dependent, error) {
	var out []Dependent
	for _, k := range apis.ManagedKinds() {
		l := k.NewList()
		if err := r.List(ctx, l, client.MatchingFields{index.ManagedProviderConfig: ref.IndexValue()}); err != nil {
			return nil, errors.Wrapf(err, "%s of kind %s", errListDependents, k.Kind)
		}
		for _, mg := range l.GetItems() {
			out = append(out, Dependent{
				Kind:      k.Kind,
				Namespace: mg.GetNamespace(),
				Name:      mg.GetName(),
				Deleting:  mg.GetDeletionTimestamp() != nil,
				Object:    mg,
			})
		}
	}
	return out, nil
}
