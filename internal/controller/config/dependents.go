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

package config

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

// ListDependents returns every managed resource, of the kinds given,
// whose providerConfigRef resolves to ref. Callers pass the kinds that
// exist (activation.Kinds.Managed): under Crossplane's SafeStart an
// inactive kind has no CRD, so no resources to count, and no informer to
// ask.
func ListDependents(ctx context.Context, r client.Reader, ref providerconfig.Ref, kinds []apis.ManagedKind) ([]Dependent, error) {
	var out []Dependent
	for _, k := range kinds {
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
