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

package deletion

import (
	"cmp"
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/hold"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

const (
	errCreateThroughDeletingPC = "refusing to create in Coder: the ProviderConfig is being deleted"
	errCreateRefused           = "refusing to create in Coder"
	errDeleting                = "the managed resource is being deleted"
	errVerifyDeployment        = "cannot ask Coder which deployment it is"
	errDeleteAgain             = "Coder accepted this resource's last delete of the object but still shows it; deleted again"

	// ReasonCredentialsUnavailable is the failure reason when no Coder
	// client could be built (ProviderConfig or its Secret gone).
	ReasonCredentialsUnavailable = "CredentialsUnavailable"
	reasonStillPresent           = "StillPresent"
	// ReasonOtherDeployment is the release reason when the ProviderConfig
	// reaches another Coder deployment than the one that made the object.
	ReasonOtherDeployment = "OtherDeployment"
)

// DeleteFailureReasons are every reason a failed delete in Coder is
// counted under: the error classes and the reasons of the bounded pass.
func DeleteFailureReasons() []string {
	r := []string{ReasonCredentialsUnavailable, reasonStillPresent, ReasonOtherDeployment}
	for _, c := range coder.Classes() {
		r = append(r, string(c))
	}
	return r
}

// A Pass is how a managed resource reaches Coder on this reconcile: its
// ProviderConfig's state decides between the normal path and the bounded
// pass (see hold.DependentMode).
type Pass struct {
	Kind     string
	Mode     hold.Mode
	Releases *Releases
	// CreateRefused, when set, says why creates through the ProviderConfig
	// are refused (providerconfig.CreateRefused).
	CreateRefused string
	// Records writes the cleanup record before anything is created.
	Records *Store
	// Origin is where a create goes now: the ProviderConfig, its canonical
	// URL and the deployment it last reported. Records name it.
	Origin Origin
	// CoderName is the name the object will have in Coder.
	CoderName func(resource.Managed) string
	// Refused, if set, notes on the resource that a create attempt was
	// refused before anything was sent to Coder, so the next Observe does
	// not take it for a create whose outcome is unknown.
	Refused func(resource.Managed)
	// Deployment asks the Coder the client reaches now for its deployment
	// id; nil without a client. A delete is verified only in the
	// deployment that made the object (see otherDeployment).
	Deployment func(context.Context) (string, error)
	// Coder is the client the resource reaches now, which verifies that
	// what a deleting resource's records name is gone; nil without one.
	Coder *coder.Client
	// Keys, if set, is the key list the resource's ProviderConfig shares
	// (its scope: Scope): a deleting resource's records are looked up on
	// the list its own look read.
	Keys  *coder.KeyLister
	Scope string
}

// otherDeployment returns an error when a record of mg names another Coder
// than the client reaches now: another deployment, or another URL (a
// ProviderConfig repointed to another Coder, or a resource moved to a
// ProviderConfig of one). That Coder not listing the object says nothing
// about the Coder that holds it, so no answer of this client may count as
// gone. The deployment is asked now, not taken from the ProviderConfig's
// status, which may predate a change of URL.
//
// It returns mg's records, read once for the whole reconcile, and where
// the client reaches now, with the deployment asked when a record names
// one.
func (p Pass) otherDeployment(ctx context.Context, mg resource.Managed) (Set, Origin, error) {
	now := p.Origin
	if p.Records == nil {
		return Set{}, now, nil
	}
	recs, err := p.Records.Of(ctx, mg)
	if err != nil || p.Deployment == nil {
		return recs, now, err
	}
	named := recs.Origins()
	if len(named) == 0 {
		return recs, now, nil
	}
	if now.DeploymentID, err = p.Deployment(ctx); err != nil {
		return recs, now, errors.Wrap(err, errVerifyDeployment)
	}
	for _, o := range named {
		if !o.SameCoder(now) {
			return recs, now, &otherDeploymentError{Recorded: o, Now: now}
		}
	}
	return recs, now, nil
}

// Wrap returns the external client the managed reconciler uses for a
// resource of type R. inner may be nil in a bounded pass when no Coder
// client could be built: the resource then releases without a delete.
//
// Observe only reads Coder and Delete only deletes, as crossplane-runtime's
// contract asks: a deleting resource's Observe reports its object as
// existing while anything it or its records name is left in Coder, the
// reconciler calls Delete, and the next reconcile's Observe verifies. The
// reconciler calls neither for a deleting resource whose policies exclude
// Delete (it lets go at once), so the pass does not ask again.
func Wrap[R resource.Managed](p Pass, inner managed.TypedExternalClient[R]) managed.TypedExternalClient[R] {
	n := &untilGone[R]{inner: inner, pass: p}
	if p.Mode == hold.ModeBoundedPass {
		return &boundedPass[R]{n: n}
	}
	return n
}

// untilGone is the normal path: failures are errors, so the reconciler keeps the
// finalizer and retries while the ProviderConfig holds.
type untilGone[R resource.Managed] struct {
	inner managed.TypedExternalClient[R]
	pass  Pass
	// found is what a deleting resource's Observe found for Delete.
	found lookResult
}

// A finding is what a deleting resource's Observe found left in Coder.
type lookResult struct {
	// obs is the resource's own look.
	obs managed.ExternalObservation
	// left is what its records name that its own look did not find.
	left Leftovers
}

func (f lookResult) exists() bool { return f.obs.ResourceExists || !f.left.empty() }

// ids are the Coder ids of what f found: the resource's own object by its
// external name, and what its records name.
func (f lookResult) ids(mg resource.Managed) []string {
	ids := f.left.ids()
	if f.obs.ResourceExists {
		ids = append(ids, meta.GetExternalName(mg))
	}
	return ids
}

func (n *untilGone[R]) Observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	if !meta.WasDeleted(mg) {
		return n.observe(ctx, mg)
	}
	// A bounded pass of an earlier reconcile may have given up; this one
	// deletes for real.
	n.pass.Releases.forget(mg.GetUID())
	if gone, err := n.neverAttempted(ctx, mg); gone || err != nil {
		return managed.ExternalObservation{}, err
	}
	f, observeErr, recordsErr := n.lookLeft(ctx, mg, false)
	o := f.obs
	switch Next(hold.ModeNormal, PassResult{ObserveErr: observeErr, RecordsErr: recordsErr, Existed: f.exists()}) {
	case StepRetry:
		return managed.ExternalObservation{}, cmp.Or(observeErr, recordsErr)
	case StepDelete:
		n.found = f
		o.ResourceExists = true
	default:
		n.pass.Releases.verified(mg.GetUID())
		o.ResourceExists = false
	}
	return o, nil
}

// seek is a deleting resource's look: its own, then, when that finds
// nothing or all is set, what its records name. The first error is of the
// own look (or of finding which Coder made the object), the second of the
// records' look.
func (n *untilGone[R]) lookLeft(ctx context.Context, mg R, all bool) (lookResult, error, error) {
	// The list the records' look may go by: one sent during this look,
	// or after Coder answered the resource's last delete (a deleting
	// resource makes none since).
	since, deleted := n.pass.deletedAt(mg)
	if !deleted {
		since = time.Now()
	}
	recs, now, err := n.pass.otherDeployment(ctx, mg)
	if err != nil {
		return lookResult{}, err, nil
	}
	o, err := n.observe(ctx, mg)
	if err != nil {
		return lookResult{}, err, nil
	}
	f := lookResult{obs: o}
	if o.ResourceExists && !all {
		return f, nil, nil
	}
	// The resource's own look found nothing, or is not all: its external
	// name and annotations, which anyone editing it may have set, decided
	// where it looked. Its records decide whether it is gone.
	if o.ResourceExists {
		// The object is there, so a delete follows, and whether all is
		// gone is decided by the look after it, on a list sent after
		// Coder answered the delete. The shared list serves this look:
		// a key it predates is found then. One sent now cost a list per
		// key deleted with its namespace (issue 33).
		since = time.Time{}
	}
	f.left, err = n.pass.recordsLeft(ctx, mg, recs, now, since)
	if o.ResourceExists {
		// A budget is keyed by its group, an override by its user: the
		// own look found the one its records name, and its Delete
		// deletes it once.
		f.left.drop(meta.GetExternalName(mg))
	}
	return f, nil, err
}

func (n *untilGone[R]) observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	before := meta.GetExternalName(mg)
	if owned, err := n.ownedByAnother(ctx, mg, before); owned || err != nil {
		// Another resource owns the object this one names: nothing is
		// read, changed or deleted in Coder. A deleting resource lets go
		// of it without a delete.
		return managed.ExternalObservation{}, err
	}
	o, err := n.inner.Observe(ctx, mg)
	if after := meta.GetExternalName(mg); err == nil && after != before {
		// Observe adopted an object (a create whose answer was lost): it
		// must not be one another resource owns either.
		if owned, err := n.ownedByAnother(ctx, mg, after); owned || err != nil {
			meta.SetExternalName(mg, before)
			return managed.ExternalObservation{}, err
		}
	}
	if err == nil && o.ResourceExists {
		if err := n.recordID(ctx, mg); err != nil {
			return o, err
		}
	}
	if err == nil && o.ResourceExists && !meta.WasDeleted(mg) && MayDelete(mg) {
		// An object this resource may delete but did not create (imported
		// by external name) has no record yet; a release without delete
		// must leave one the sweep can act on.
		if id := meta.GetExternalName(mg); id != "" {
			if err := n.pass.Records.EnsureAdopted(ctx, mg, n.pass.Kind, n.pass.Origin, id); err != nil {
				return o, err
			}
		}
	}
	return o, err
}

// recordID writes the id of the object mg observed onto its create's
// record when no record of mg holds it yet: a create whose answer was lost
// and whose object Observe then adopted by name, or whose best-effort
// SetExternalID failed. The id is what ownership checks and the sweep's
// protection of managed objects go by. A resource whose records already
// hold the id costs one cache read and no write; one with rotation records
// is left alone, since its external name is a rotation's key.
func (n *untilGone[R]) recordID(ctx context.Context, mg resource.Managed) error {
	id := meta.GetExternalName(mg)
	if id == "" || n.pass.Records == nil {
		return nil
	}
	recs, err := n.pass.Records.Of(ctx, mg)
	if err != nil || !recs.LacksID(n.pass.Kind, id) {
		return err
	}
	return n.pass.Records.SetExternalID(ctx, mg, n.pass.Kind, id)
}

// neverAttempted reports whether a deleting mg has nothing in Coder by our
// own records: it names no object and no create was ever sent for it. Its
// delete then needs no answer from Coder, which may refuse every call (a
// deployment without the licence AI Gateway keys need) or be down: the
// resource goes at once and holds nothing, and nothing is counted, since
// nothing was left behind. A tenant can strip the external name but not
// our records, so a resource that created anything never takes this path.
func (n *untilGone[R]) neverAttempted(ctx context.Context, mg resource.Managed) (bool, error) {
	if meta.GetExternalName(mg) != "" {
		return false, nil
	}
	begun, err := n.pass.Records.Attempted(ctx, mg)
	return !begun, err
}

// ownedByAnother reports whether another managed resource owns the Coder
// object id, with the error that names it; false for no id. A resource
// that is not deleting says so in its Ready condition.
func (n *untilGone[R]) ownedByAnother(ctx context.Context, mg resource.Managed, id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	owned, err := n.pass.Records.OwnedByAnother(ctx, mg, id, n.pass.Origin)
	if err != nil {
		return false, err
	}
	if owned == nil {
		return false, nil
	}
	if meta.WasDeleted(mg) {
		return true, nil
	}
	mg.SetConditions(xpv2.Unavailable().WithMessage(owned.Error()))
	return true, owned
}

func (n *untilGone[R]) Create(ctx context.Context, mg R) (managed.ExternalCreation, error) {
	if n.pass.CreateRefused != "" {
		return managed.ExternalCreation{}, n.refuse(mg, errors.New(errCreateRefused+": "+n.pass.CreateRefused))
	}
	// The record comes first: whatever happens next, what may exist in
	// Coder is written down somewhere a namespace deletion cannot reach.
	if err := n.pass.Records.Ensure(ctx, mg, n.pass.Kind, n.pass.Origin, n.pass.CoderName(mg), attemptOf(mg)); err != nil {
		return managed.ExternalCreation{}, n.refuse(mg, err)
	}
	c, err := n.inner.Create(ctx, mg)
	if err != nil && !coder.Timeout(err) {
		// Coder answered: this attempt wrote nothing, and no object found
		// by name later may be taken for its result. Best effort: a record
		// that keeps the attempt only makes the sweep look once more.
		_ = n.pass.Records.NothingWritten(ctx, mg, n.pass.Kind)
	}
	if err == nil {
		if id := meta.GetExternalName(mg); id != "" {
			// Best effort: a key record finds its key by name too, and a
			// provider record by name within the attempt's window.
			_ = n.pass.Records.SetExternalID(ctx, mg, n.pass.Kind, id)
		}
	}
	return c, err
}

// attemptOf is when the reconciler began this create attempt: it notes the
// time on the resource just before calling Create.
func attemptOf(mg resource.Managed) time.Time {
	if t, err := time.Parse(time.RFC3339, mg.GetAnnotations()[meta.AnnotationKeyExternalCreatePending]); err == nil {
		return t
	}
	return time.Now()
}

func (n *untilGone[R]) refuse(mg resource.Managed, err error) error {
	if n.pass.Refused != nil {
		n.pass.Refused(mg)
	}
	return err
}

func (n *untilGone[R]) Update(ctx context.Context, mg R) (managed.ExternalUpdate, error) {
	return n.inner.Update(ctx, mg)
}

// Delete deletes what Observe found: the resource's own object, through
// the kind's client, and what its records name. A delete of an object Coder
// accepted before, in this resource's last delete, is an error the
// resource's condition shows: Coder keeps what it said it deleted.
func (n *untilGone[R]) Delete(ctx context.Context, mg R) (managed.ExternalDelete, error) {
	uid, ids, start := mg.GetUID(), n.found.ids(mg), time.Now()
	again := n.pass.Releases.acceptedBefore(uid, ids)
	d, err := n.remove(ctx, mg)
	n.pass.Releases.deleted(uid, start, ids, err)
	if err == nil && again {
		err = errors.Wrap(ErrStillPresent, errDeleteAgain)
	}
	if err != nil {
		metrics.ExternalDeleteFailed(n.pass.Kind, failureClass(err))
	}
	return d, err
}

// remove deletes what Observe found. Called without an Observe that found
// anything, it deletes the resource's own object, as the kind's client
// does.
func (n *untilGone[R]) remove(ctx context.Context, mg R) (managed.ExternalDelete, error) {
	f := n.found
	if !f.exists() {
		f.obs.ResourceExists = true
	}
	var d managed.ExternalDelete
	if f.obs.ResourceExists && n.inner != nil {
		var err error
		if d, err = n.inner.Delete(ctx, mg); err != nil {
			return d, err
		}
	}
	return d, n.pass.deleteLeft(ctx, f.left)
}

func (n *untilGone[R]) Disconnect(ctx context.Context) error {
	if n.inner == nil {
		return nil
	}
	return n.inner.Disconnect(ctx)
}
