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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// observeUncreated handles a resource without an external name. Only a
// create attempt whose outcome is unknown can have left a provider of ours
// in Coder; it is found by name and adopted when Coder created it within
// the attempt's window (deletion.AdoptByName). Any other provider of that
// name belongs to someone else.
func (e *external) observeUncreated(ctx context.Context, p Resource) (managed.ExternalObservation, error) {
	// The proof of an attempt is our own record, written before the
	// create, with its time; not the annotations, which anyone who may
	// edit the resource can set, and whose last refused attempt says
	// nothing of an earlier lost one.
	attempt, err := deletion.LastAttempt(ctx, e.reader, p, e.kind)
	if err != nil || attempt.IsZero() {
		// No attempt, or only ones that certainly wrote nothing: there is
		// nothing of ours to look for.
		return managed.ExternalObservation{ResourceExists: false}, err
	}
	name := ProviderName(p)
	got, err := e.coder.GetProvider(ctx, name)
	found := !coder.IsNotFound(err)
	if err != nil && found {
		return managed.ExternalObservation{}, errors.Wrap(err, errGetProvider)
	}
	ours := false
	if found {
		// The attempt is ours, by our clock; Coder dated the provider by
		// its own, which the answer just read places the attempt on.
		if ours, err = deletion.CreatedByAttempt(got.CreatedAt, attempt, e.coder.Timeout(), e.coder.Clock()); err != nil {
			// Neither adopted nor someone else's: a deleting resource must
			// not take the provider for absent.
			return managed.ExternalObservation{}, errors.Wrapf(err, errFmtCannotDate, name, got.ID)
		}
	}
	switch deletion.AdoptByName(attempt, found, ours) {
	case deletion.AdoptNone:
		return managed.ExternalObservation{ResourceExists: false}, nil
	case deletion.RefuseTaken:
		return managed.ExternalObservation{}, errors.Errorf(errFmtNameTaken, name, got.ID, got.CreatedAt.UTC().Format(time.RFC3339))
	}
	meta.SetExternalName(p, got.ID.String())
	// Record the id now rather than return ResourceLateInitialized:
	// the reconciler persists that only when the management policies
	// include LateInitialize, and an id not persisted would be looked
	// for by name, and adopted, again on every reconcile.
	if err := e.kube.Update(ctx, p); err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errRecordAdoption)
	}
	e.record.Event(p, event.Normal(ReasonAdoptedUncertainCreate, fmt.Sprintf(msgFmtAdopted, got.ID)))
	return e.observeExisting(ctx, p, got)
}
