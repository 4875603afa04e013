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

// Package aibudget is the one external client of the two budget kinds,
// GroupAIBudget and UserAIBudgetOverride, in both scopes. Each is a row in
// Coder that nobody names, a singleton per group or per user, so a resource
// owns its row exactly while Coder shows the updated_at its own last PUT
// was answered with, which its cleanup record holds (deletion.Decide). It
// must not write over a row it cannot prove its own; a deleting resource
// never reaches this client (its records serve it, in package deletion).
// What differs between the kinds (whose row, how Coder reads and writes
// it, what the status shows) is a kind; the rest is written once.
package aibudget

import (
	"context"
	"time"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/internal/spendwarning"
)

// A Resource is a GroupAIBudget or a UserAIBudgetOverride of either scope.
type Resource interface {
	resource.Managed
	StatusConditions() *xpv2.ConditionedStatus
}

// A row is a budget or an override as Coder answered it.
type row struct {
	// subject is the group (budget) or user (override) the row is of.
	subject string
	limit   int64
	// updatedAt is what ownership is proven by (deletion.BudgetIsClaims).
	updatedAt time.Time
	// group is an override's group; empty for a budget.
	group string
}

// A kind is what differs between the two budget kinds.
type kind[R Resource] interface {
	// subject is the id of the group or user whose row r writes: its
	// external name, or, before its first write, what its spec names.
	subject(ctx context.Context, c *coder.Client, r R) (string, error)
	// group is the group a write attributes the row to: an override's
	// group, or "" for a budget, whose subject is its group.
	group(ctx context.Context, c *coder.Client, r R) (string, error)
	// get reads the row of subject; found is false only when Coder's 404
	// means the row is absent (deletion.RowFound).
	get(ctx context.Context, c *coder.Client, subject string) (got row, found bool, err error)
	// put writes the spec's limit as the row of subject in group, and
	// says a refusal in r's conditions.
	put(ctx context.Context, c *coder.Client, r R, subject, group string, limit int64) (row, error)
	// limit is the spec's limit; nil when it sets none.
	limit(r R) *int64
	// taken is the error, also set as r's Ready condition, of a row in
	// Coder that r did not write and may not write over.
	taken(r R, got row) error
	// observe writes the row and its spend into r's status; a failure to
	// read the spend changes nothing else.
	observe(ctx context.Context, c *coder.Client, r R, got row)
	// spend is what the spend warning is decided from, read from the
	// status observe wrote, and where its state is kept.
	spend(r R) (spendwarning.Spend, *common.AISpendWarningStatus)
	// what names the row in errors: "group's AI budget".
	what() string
}

// setup adds a controller for the budget kind k, of GroupVersionKind gvk.
func setup[R Resource](mgr ctrl.Manager, gvk schema.GroupVersionKind, o managedkind.Options, k kind[R]) error {
	return managedkind.Setup(mgr, gvk, o, managedkind.Kind[R]{
		// A row has no name in Coder: its record names the group or user.
		CoderName: func(R) string { return "" },
		Gone:      func(n types.NamespacedName) { spendwarning.Forget(gvk.Kind, n.Namespace, n.Name) },
		External: func(s providerconfig.Session, _ logging.Logger, record event.Recorder) deletion.Live[R] {
			return &external[R]{kind: k, coder: s.Client, records: o.Records, name: gvk.Kind, origin: managedkind.OriginOf(s), record: record}
		},
	})
}

// external talks to Coder for one budget or override during one reconcile.
type external[R Resource] struct {
	kind    kind[R]
	coder   *coder.Client
	records *deletion.Store
	// name is the Kubernetes kind, which the records and metrics name.
	name   string
	origin deletion.Origin
	record event.Recorder

	// subject and group are what Observe resolved, for Create and Update in
	// the same reconcile.
	subject, group string
}

// errNotObserved is a write without the Observe of the same reconcile.
const errNotObserved = "cannot write a row that was not observed first"

func (e *external[R]) Observe(ctx context.Context, r R) (managed.ExternalObservation, error) {
	id, err := e.kind.subject(ctx, e.coder, r)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	got, present, err := e.kind.get(ctx, e.coder, id)
	if err != nil {
		return managed.ExternalObservation{}, refused(r, errors.Wrapf(err, "cannot get the %s", e.kind.what()))
	}
	if e.group, err = e.kind.group(ctx, e.coder, r); err != nil {
		return managed.ExternalObservation{}, err
	}
	e.subject = id
	l, err := e.look(ctx, r, got, present)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	v := deletion.Decide(l)
	switch {
	case v.Refuse:
		return managed.ExternalObservation{}, e.kind.taken(r, got)
	case v.Adopt:
		err := e.records.EnsureAdoptedBudget(ctx, r, e.name, e.origin, id, deletion.FormatUpdatedAt(got.updatedAt), got.limit, got.group)
		if err != nil {
			return managed.ExternalObservation{}, err
		}
	}
	if v.Exists && present {
		e.kind.observe(ctx, e.coder, r, got)
		r.SetConditions(xpv2.Available())
		s, st := e.kind.spend(r)
		spendwarning.Apply(r, e.name, st, e.record, spendwarning.Decide(s))
	} else {
		spendwarning.Forget(e.name, r.GetNamespace(), r.GetName())
	}
	return managed.ExternalObservation{ResourceExists: v.Exists, ResourceUpToDate: v.UpToDate}, nil
}

// look gathers what deletion.Decide needs: the row Coder holds and what
// r's record says r wrote there.
func (e *external[R]) look(ctx context.Context, r R, got row, present bool) (deletion.Look, error) {
	p := policy.Of(r)
	want := e.kind.limit(r)
	l := deletion.Look{
		Named: meta.GetExternalName(r) != "", Present: present,
		Matches:  want != nil && *want == got.limit && e.group == got.group,
		MayWrite: p.ShouldUpdate() || p.ShouldDelete(), ObserveOnly: !p.ShouldCreate() && !p.ShouldUpdate() && !p.ShouldDelete(),
	}
	var err error
	if l.Recorded, l.Ours, err = e.ours(ctx, r, got, present, e.records.Of); err != nil || l.Ours || !l.Recorded {
		return l, err
	}
	// The cache may not show the updated_at of the last PUT yet: a row is
	// someone else's change only by the record as the API server has it.
	l.Recorded, l.Ours, err = e.ours(ctx, r, got, present, e.records.Past)
	return l, err
}

// ours reads r's records through read and reports whether one names the
// subject with a PUT's answer (recorded), and whether the row Coder holds
// is that PUT's (ours).
func (e *external[R]) ours(ctx context.Context, r R, got row, present bool,
	read func(context.Context, resource.Managed) (deletion.Set, error)) (recorded, ours bool, err error) {
	recs, err := read(ctx, r)
	if err != nil {
		return false, false, err
	}
	claim, ok := recs.BudgetClaim(e.name, e.subject)
	if ok && present {
		if ours, err = deletion.BudgetIsClaims(claim, got.updatedAt, e.coder.Timeout(), e.coder.Clock()); err != nil {
			return false, false, errors.Wrapf(err, "cannot get the %s", e.kind.what())
		}
	}
	return ok && claim.UpdatedAt != "", ours, nil
}

// Create writes the row of a group or user that has none. The pass wrote
// r's cleanup record before; the record names the subject before the PUT,
// and r goes on only while no other's record names it
// (deletion.BudgetOwner): of two racing, at most one writes.
func (e *external[R]) Create(ctx context.Context, r R) (managed.ExternalCreation, error) {
	if e.subject == "" {
		return managed.ExternalCreation{}, errors.New(errNotObserved)
	}
	if err := e.records.NameGroup(ctx, r, e.name, e.origin, e.subject); err != nil {
		return managed.ExternalCreation{}, err
	}
	claims, err := e.records.ActiveOwners(ctx, e.subject, e.origin)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	if owner, ok := deletion.BudgetOwner(string(r.GetUID()), claims); ok {
		// Nothing was sent to Coder: the record names nothing there.
		if err := e.records.DeleteBudgetRecord(ctx, r, e.name, e.subject); err != nil {
			return managed.ExternalCreation{}, err
		}
		err := deletion.ErrOwned(e.subject, owner)
		r.SetConditions(xpv2.Unavailable().WithMessage(err.Error()))
		return managed.ExternalCreation{}, err
	}
	meta.SetExternalName(r, e.subject)
	return managed.ExternalCreation{}, e.put(ctx, r)
}

// Update puts the spec back: it changed, or someone wrote the row in
// Coder since r's last PUT.
func (e *external[R]) Update(ctx context.Context, r R) (managed.ExternalUpdate, error) {
	if e.subject == "" {
		return managed.ExternalUpdate{}, errors.New(errNotObserved)
	}
	return managed.ExternalUpdate{}, e.put(ctx, r)
}

// put sends the spec and records Coder's answer, whose updated_at is the
// proof that the row is r's.
func (e *external[R]) put(ctx context.Context, r R) error {
	want := e.kind.limit(r)
	if want == nil {
		return errors.Errorf("spec.forProvider.spendLimitMicros is required to write the %s", e.kind.what())
	}
	got, err := e.kind.put(ctx, e.coder, r, e.subject, e.group, *want)
	if err != nil {
		return err
	}
	if err := e.records.SetCoderUpdatedAt(ctx, r, e.name, e.subject, deletion.FormatUpdatedAt(got.updatedAt), got.limit, got.group); err != nil {
		return errors.Wrapf(err, "cannot record Coder's answer to the PUT of the %s", e.kind.what())
	}
	e.kind.observe(ctx, e.coder, r, got)
	return nil
}

func (e *external[R]) Disconnect(context.Context) error { return nil }

// named is r's external name, the id of its group or user; "" before its
// first write.
func named(r Resource, errInvalid string) (string, error) {
	id := meta.GetExternalName(r)
	if id == "" {
		return "", nil
	}
	if _, err := parseID(id, errInvalid); err != nil {
		return "", err
	}
	return id, nil
}

// parseID parses a group or user id the resource names.
func parseID(s, errInvalid string) (uuid.UUID, error) {
	u, err := uuid.Parse(s)
	if err != nil {
		return uuid.UUID{}, errors.New(errInvalid)
	}
	return u, nil
}
