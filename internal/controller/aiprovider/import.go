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

package aiprovider

import (
	"context"
	"fmt"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// ReasonImportedByName is the event reason when an external name that is a
// provider's Coder name settles to that provider's id.
const ReasonImportedByName event.Reason = "ImportedByName"

const (
	errNotIDOrName       = "external name is neither a Coder provider id nor a Coder provider name (lowercase alphanumerics separated by single hyphens)"
	errRecordImport      = "cannot record the imported provider's id as the external name"
	msgFmtImportedByName = "Imported Coder provider %q by its name; the external name is now its id, %s"
)

// observeByName handles an external name that is a provider's Coder name,
// as someone importing a provider writes it. The provider Coder finds by
// that name is imported under the same rules as one named by id: not when
// another resource owns it by its records or its external name, nor when
// another resource's lost create may have written it. Then the external
// name settles to the id, which every later reconcile, the records and the
// ownership checks go by.
func (e *external) observeByName(ctx context.Context, p Resource, name string) (managed.ExternalObservation, error) {
	if !codersdk.AIProviderNameRegex.MatchString(name) {
		return managed.ExternalObservation{}, errors.New(errNotIDOrName)
	}
	got, err := e.coder.GetProvider(ctx, name)
	if coder.IsNotFound(err) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGetProvider)
	}
	taken, err := e.records.TakenByAnother(ctx, p, e.kind, got.ID.String(), got.Name, e.origin)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if taken != nil {
		// Nothing of the provider is observed: its status would be shown to
		// whoever reads this resource's.
		p.SetConditions(xpv2.Unavailable().WithMessage(taken.Error()))
		return managed.ExternalObservation{}, taken
	}
	meta.SetExternalName(p, got.ID.String())
	// Persisted now, as an adoption is: the reconciler would persist it
	// only with LateInitialize among the policies.
	if err := e.kube.Update(ctx, p); err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errRecordImport)
	}
	e.record.Event(p, event.Normal(ReasonImportedByName, fmt.Sprintf(msgFmtImportedByName, name, got.ID)))
	return e.observeExisting(ctx, p, got)
}
