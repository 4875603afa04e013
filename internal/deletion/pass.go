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
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	errCreateThroughDeletingPC = "refusing to create in Coder: the ProviderConfig is being deleted"
	errCreateRefused           = "refusing to create in Coder"
	errDeleting                = "the managed resource is being deleted"
	errVerifyDeployment        = "cannot ask Coder which deployment it is"
	errDeleteAgain             = "Coder accepted this resource's last delete of the object but still shows it; deleted again"

	// ReasonCredentialsUnavailable: no Coder client could be built.
	ReasonCredentialsUnavailable = "CredentialsUnavailable"
	reasonStillPresent           = "StillPresent"
	// ReasonOtherDeployment: the object was made through another Coder.
	ReasonOtherDeployment = "OtherDeployment"
)

// DeleteFailureReasons are every reason a failed delete is counted under.
func DeleteFailureReasons() []string {
	r := []string{ReasonCredentialsUnavailable, reasonStillPresent, ReasonOtherDeployment}
	for _, c := range coder.Classes() {
		r = append(r, string(c))
	}
	return r
}

func failureClass(err error) string {
	if isStillPresent(err) {
		return reasonStillPresent
	}
	return string(coder.ClassOf(err))
}

// A Pass is how a managed resource reaches Coder on this reconcile.
type Pass struct {
	Kind     string
	Mode     providerconfig.Mode
	Releases *Releases
	// CreateRefused says why creates are refused, if they are.
	CreateRefused string
	Records       *Store
	// Origin is where a create goes now; records name it.
	Origin    Origin
	CoderName func(resource.Managed) string
	// Deployment asks the Coder reached now for its id (otherDeployment).
	Deployment func(context.Context) (string, error)
	Coder      *coder.Client
	// Keys is the ProviderConfig's shared key list (scope Scope), if any.
	Keys   *coder.KeyLister
	Scope  string
	Record event.Recorder
}

// Live is a kind's own client; a deleting resource is served by its records.
type Live[R resource.Managed] interface {
	Observe(ctx context.Context, mg R) (managed.ExternalObservation, error)
	Create(ctx context.Context, mg R) (managed.ExternalCreation, error)
	Update(ctx context.Context, mg R) (managed.ExternalUpdate, error)
	Disconnect(ctx context.Context) error
}

// Wrap returns the external client of R: the kind's own while it lives, its
// records once deleting (inner may be nil in a bounded pass). Observe only
// reads and Delete only deletes, as crossplane-runtime asks.
func Wrap[R resource.Managed](p Pass, inner Live[R]) managed.TypedExternalClient[R] {
	n := &untilGone[R]{inner: inner, pass: p}
	if p.Mode == providerconfig.ModeBoundedPass {
		return &boundedPass[R]{n: n}
	}
	return n
}

// untilGone is the normal path: a failure keeps the finalizer, and retries.
type untilGone[R resource.Managed] struct {
	inner Live[R]
	pass  Pass
	left  Leftovers
}

func (n *untilGone[R]) Observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	if !meta.WasDeleted(mg) {
		return n.observe(ctx, mg)
	}
	// An earlier bounded pass may have given up; this one deletes.
	n.pass.Releases.forget(mg.GetUID())
	left, err := n.pass.find(ctx, mg)
	switch Next(providerconfig.ModeNormal, PassResult{ObserveErr: err, Existed: !left.empty()}) {
	case StepRetry:
		return managed.ExternalObservation{}, err
	case StepDelete:
		n.left = left
		return managed.ExternalObservation{ResourceExists: true}, nil
	}
	n.pass.Releases.verified(mg.GetUID())
	return managed.ExternalObservation{}, nil
}

// find is a deleting resource's look at what its records name, never its
// external name or annotations. "Nothing left" counts only on records read
// past the cache and, before any delete, a key list sent now. Without
// records it asks Coder nothing, which may refuse every call or be down.
func (p Pass) find(ctx context.Context, mg resource.Managed) (Leftovers, error) {
	if p.Records == nil {
		return Leftovers{}, nil
	}
	since, deleted := p.Releases.DeletedAt(mg.GetUID())
	recs, err := p.Records.Of(ctx, mg)
	if err != nil {
		return nil, err
	}
	if len(recs.recs) == 0 {
		if err := p.adoptNamed(ctx, mg); err != nil {
			return nil, err
		}
	}
	left, err := p.lookAt(ctx, mg, recs, since)
	if err != nil || !left.empty() {
		return left, err
	}
	past, err := p.Records.Past(ctx, mg)
	if err != nil || (deleted && past.same(recs)) {
		// After a delete the look already used a list sent after it.
		return left, err
	}
	if !deleted {
		since = time.Now()
	}
	return p.lookAt(ctx, mg, past, since)
}

func (p Pass) lookAt(ctx context.Context, mg resource.Managed, recs Set, since time.Time) (Leftovers, error) {
	now, err := p.otherDeployment(ctx, recs)
	if err != nil {
		return nil, err
	}
	return p.recordsLeft(ctx, mg, recs, now, since)
}

// adoptNamed records an import deleted before a live Observe recorded it.
func (p Pass) adoptNamed(ctx context.Context, mg resource.Managed) error {
	id := meta.GetExternalName(mg)
	if _, err := uuid.Parse(id); err != nil || !policy.MayDelete(mg) {
		return nil
	}
	if owned, err := p.Records.OwnedByAnother(ctx, mg, id, p.Origin); owned != nil || err != nil {
		return err
	}
	return p.Records.EnsureAdopted(ctx, mg, p.Kind, p.Origin, id)
}

// Delete deletes what Observe found; an object Coder accepted the last
// delete of is an error: Coder kept what it said it deleted.
func (n *untilGone[R]) Delete(ctx context.Context, mg R) (managed.ExternalDelete, error) {
	uid, ids, start := mg.GetUID(), n.left.ids(), time.Now()
	again := n.pass.Releases.acceptedBefore(uid, ids)
	err := n.pass.deleteLeft(ctx, n.left)
	n.pass.Releases.deleted(uid, start, ids, err)
	if err == nil && again {
		err = errors.Wrap(ErrStillPresent, errDeleteAgain)
	}
	if err != nil {
		metrics.ExternalDeleteFailed(n.pass.Kind, failureClass(err))
	}
	return managed.ExternalDelete{}, err
}

func (n *untilGone[R]) Disconnect(ctx context.Context) error {
	if n.inner == nil {
		return nil
	}
	return n.inner.Disconnect(ctx)
}

// boundedPass makes one attempt over two reconciles (look, delete, verify)
// and always ends with Observe reporting the object gone; anything but a
// verified absence is a release without delete.
type boundedPass[R resource.Managed] struct {
	n *untilGone[R]
}

func (b *boundedPass[R]) Observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	if !meta.WasDeleted(mg) {
		// Only deleting resources take a bounded pass; a live one waits.
		return managed.ExternalObservation{}, errors.New(errCreateThroughDeletingPC)
	}
	// An earlier pass that gave up must not count if this one deletes.
	rel, uid := b.n.pass.Releases, mg.GetUID()
	rel.forget(uid)
	var r PassResult
	var left Leftovers
	if last, sent := rel.lastDelete(uid); sent {
		r = b.verify(ctx, mg, last.err)
		rel.verified(uid)
	} else {
		left, r = b.first(ctx, mg)
	}
	if Next(providerconfig.ModeBoundedPass, r) == StepDelete {
		b.n.left = left
		return managed.ExternalObservation{ResourceExists: true}, nil
	}
	b.end(ctx, mg, r)
	return managed.ExternalObservation{ResourceExists: false}, nil
}

func (b *boundedPass[R]) first(ctx context.Context, mg R) (Leftovers, PassResult) {
	if b.n.pass.Coder == nil {
		return nil, PassResult{NoClient: true}
	}
	left, err := b.n.pass.find(ctx, mg)
	return left, PassResult{ObserveErr: err, Existed: !left.empty()}
}

func (b *boundedPass[R]) verify(ctx context.Context, mg R, deleteErr error) PassResult {
	r := PassResult{Deleted: true, Existed: true, DeleteErr: deleteErr}
	switch {
	case deleteErr != nil:
		return r
	case b.n.pass.Coder == nil:
		r.NoClient = true
		return r
	}
	left, err := b.n.pass.find(ctx, mg)
	r.AfterErr, r.StillThere = err, !left.empty()
	return r
}

// end marks a release without delete, which the finalizer counts.
func (b *boundedPass[R]) end(ctx context.Context, mg R, r PassResult) {
	p := b.n.pass
	r.MayHaveAttempted = meta.GetExternalName(mg) != "" || p.Records.MayHaveAttempted(ctx, mg, p.Kind)
	o := DecidePass(r)
	if o.DeleteFailed != "" {
		metrics.ExternalDeleteFailed(p.Kind, o.DeleteFailed)
	}
	if o.WithoutDelete {
		p.Releases.mark(mg.GetUID(), o.Reason)
	}
}

func (b *boundedPass[R]) Create(context.Context, R) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, errors.New(errDeleting)
}

func (b *boundedPass[R]) Update(context.Context, R) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, errors.New(errDeleting)
}

// Delete sends the pass's one delete; the next Observe ends the pass.
func (b *boundedPass[R]) Delete(ctx context.Context, mg R) (managed.ExternalDelete, error) {
	ids, start := b.n.left.ids(), time.Now()
	err := b.n.pass.deleteLeft(ctx, b.n.left)
	b.n.pass.Releases.deleted(mg.GetUID(), start, ids, err)
	return managed.ExternalDelete{}, err
}

func (b *boundedPass[R]) Disconnect(ctx context.Context) error { return b.n.Disconnect(ctx) }

// A PassResult is what one bounded pass saw, up to the first failure.
type PassResult struct {
	NoClient bool
	// Deleted: the pass sent its one delete before this look.
	Deleted    bool
	ObserveErr error
	Existed    bool
	DeleteErr  error
	// AfterErr and StillThere are the look after the delete.
	AfterErr   error
	StillThere bool
	// MayHaveAttempted: an object is named, or a create may have been lost.
	MayHaveAttempted bool
	// Orphan: its policies keep the object in Coder on purpose.
	Orphan bool
	// Stalled says why the managed reconciler leaves it alone.
	Stalled string
}

// A PassOutcome is how a bounded pass ends.
type PassOutcome struct {
	// WithoutDelete: records turn Abandoned; counted and evented.
	WithoutDelete bool
	Reason        string
	// DeleteFailed is the failure class to count, if any.
	DeleteFailed string
}

// A Step is what a deleting resource does after a look.
type Step string

// The steps.
const (
	StepDelete Step = "Delete"
	// StepRetry: the look failed; the finalizer stays.
	StepRetry Step = "Retry"
	// StepEnd: nothing is left, or the bounded pass ends (DecidePass).
	StepEnd Step = "End"
)

// Next is the one step function of both paths: the normal path retries
// every failure while its ProviderConfig holds; the bounded pass deletes
// once, and ends at the look after or at a first look that fails or is empty.
func Next(mode providerconfig.Mode, r PassResult) Step {
	failed := r.ObserveErr != nil
	if mode != providerconfig.ModeBoundedPass {
		switch {
		case failed:
			return StepRetry
		case r.Existed:
			return StepDelete
		}
		return StepEnd
	}
	if r.Deleted || r.NoClient || failed || !r.Existed {
		return StepEnd
	}
	return StepDelete
}

// DecidePass decides how a bounded pass ends: only a verified absence or an
// orphan is a normal release; anything else releases without delete unless
// nothing can exist in Coder (no object named, no create begun).
func DecidePass(r PassResult) PassOutcome {
	var why string
	switch {
	case r.Orphan:
		return PassOutcome{}
	case r.Stalled != "":
		if !r.MayHaveAttempted {
			return PassOutcome{}
		}
		return PassOutcome{WithoutDelete: true, Reason: r.Stalled}
	case r.NoClient:
		why = ReasonCredentialsUnavailable
	case errors.As(r.ObserveErr, new(*otherDeploymentError)):
		why = ReasonOtherDeployment
	case r.ObserveErr != nil:
		why = failureClass(r.ObserveErr)
	case !r.Existed:
		return PassOutcome{}
	case r.DeleteErr != nil:
		why = string(coder.ClassOf(r.DeleteErr))
	case r.AfterErr != nil:
		why = failureClass(r.AfterErr)
	case r.StillThere:
		why = reasonStillPresent
	default:
		return PassOutcome{}
	}
	o := PassOutcome{DeleteFailed: why}
	if r.MayHaveAttempted {
		o.WithoutDelete, o.Reason = true, why
	}
	return o
}
