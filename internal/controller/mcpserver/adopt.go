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

package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// Event reasons of an MCP server found by its slug.
const (
	// ReasonAdoptedUncertainCreate: a server an earlier create attempt
	// wrote, although its answer was lost, became this resource's.
	ReasonAdoptedUncertainCreate event.Reason = "AdoptedUncertainCreate"
	// ReasonImportedBySlug: an external name that is a slug settled to
	// that server's id.
	ReasonImportedBySlug event.Reason = "ImportedBySlug"
)

const (
	errListServers     = "cannot list MCP servers"
	errRecordAdoption  = "cannot record the adopted MCP server's id as the external name"
	errRecordImport    = "cannot record the imported MCP server's id as the external name"
	errFmtSlugTaken    = "the slug %q is taken in Coder by MCP server %s, created %s, which this resource did not create; it is not adopted: choose another spec.forProvider.slug, delete that server in Coder, or import it (external name set to its slug)"
	errFmtCannotDate   = "cannot tell whether MCP server %q (%s) in Coder is the result of this resource's create attempt"
	msgFmtAdopted      = "Adopted Coder MCP server %s: an earlier create attempt wrote it, although its answer was lost"
	msgFmtImportedSlug = "Imported Coder MCP server %q by its slug; the external name is now its id, %s"
)

// bySlug finds the server of a slug on Coder's list; ok is false when
// there is none.
func (e *external) bySlug(ctx context.Context, slug string) (codersdk.MCPServerConfig, bool, error) {
	all, err := e.coder.ListMCPServers(ctx)
	if err != nil {
		return codersdk.MCPServerConfig{}, false, errors.Wrap(err, errListServers)
	}
	for _, s := range all {
		if s.Slug == slug {
			return s, true, nil
		}
	}
	return codersdk.MCPServerConfig{}, false, nil
}

// observeUncreated handles a resource without an external name. Only a
// create attempt whose outcome is unknown can have left a server of ours in
// Coder; it is found by slug and adopted when the record proves the attempt
// and Coder created the server within its window (deletion.AdoptByName).
// Any other server of that slug belongs to someone else.
func (e *external) observeUncreated(ctx context.Context, r Resource) (managed.ExternalObservation, error) {
	// The proof of an attempt is our own record, not the annotations,
	// which anyone may write and whose last refused attempt says nothing
	// of an earlier lost one.
	attempt, err := deletion.LastAttempt(ctx, e.reader, r, e.kind)
	if err != nil || attempt.IsZero() {
		// No attempt, or only ones that certainly wrote nothing: the
		// create that follows meets a taken slug with Coder's 409.
		return managed.ExternalObservation{ResourceExists: false}, err
	}
	slug := Slug(r)
	got, found, err := e.bySlug(ctx, slug)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	ours := false
	if found {
		// Coder dated the server by its own clock, which the answer just
		// read places the attempt on.
		if ours, err = deletion.CreatedByAttempt(got.CreatedAt, attempt, e.coder.Timeout(), e.coder.Clock()); err != nil {
			return managed.ExternalObservation{}, errors.Wrapf(err, errFmtCannotDate, slug, got.ID)
		}
	}
	switch deletion.AdoptByName(attempt, found, ours) {
	case deletion.AdoptNone:
		return managed.ExternalObservation{ResourceExists: false}, nil
	case deletion.RefuseTaken:
		err := errors.Errorf(errFmtSlugTaken, slug, got.ID, got.CreatedAt.UTC().Format(time.RFC3339))
		r.SetConditions(xpv2.Unavailable().WithMessage(err.Error()))
		return managed.ExternalObservation{}, err
	}
	meta.SetExternalName(r, got.ID.String())
	// Persisted now: the reconciler persists a late external name
	// only with LateInitialize among the policies, and one not
	// persisted would be looked for, and adopted, again.
	if err := e.kube.Update(ctx, r); err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errRecordAdoption)
	}
	e.record.Event(r, event.Normal(ReasonAdoptedUncertainCreate, fmt.Sprintf(msgFmtAdopted, got.ID)))
	return e.observeExisting(ctx, r, got)
}

// observeBySlug handles an external name that is a server's slug, as
// someone importing a server writes it. The server of that slug is imported
// unless another resource owns it by its records or external name, or
// another resource's lost create may have written it. Then the external
// name settles to the id, which every later reconcile, the records and the
// ownership checks go by.
func (e *external) observeBySlug(ctx context.Context, r Resource, slug string) (managed.ExternalObservation, error) {
	got, found, err := e.bySlug(ctx, slug)
	if err != nil || !found {
		return managed.ExternalObservation{ResourceExists: false}, err
	}
	taken, err := e.records.TakenByAnother(ctx, r, e.kind, got.ID.String(), got.Slug, e.origin)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if taken != nil {
		r.SetConditions(xpv2.Unavailable().WithMessage(taken.Error()))
		return managed.ExternalObservation{}, taken
	}
	meta.SetExternalName(r, got.ID.String())
	if err := e.kube.Update(ctx, r); err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errRecordImport)
	}
	e.record.Event(r, event.Normal(ReasonImportedBySlug, fmt.Sprintf(msgFmtImportedSlug, slug, got.ID)))
	return e.observeExisting(ctx, r, got)
}
