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
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// boundedPass makes one attempt to delete, over two reconciles: the first
// Observe looks, Delete deletes what it found, and the next Observe looks
// again, each at what the resource's records name. A verified absence is
// a normal release; anything else a release without delete. Either way the pass ends with Observe reporting the
// object gone, so the reconciler lets the finalizer go. A pass that finds
// nothing, or cannot look, ends at its first Observe.
type boundedPass[R resource.Managed] struct {
	n *untilGone[R]
}

func (b *boundedPass[R]) Observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	if !meta.WasDeleted(mg) {
		// Only deleting resources take a bounded pass; a live one waits.
		return managed.ExternalObservation{}, errors.New(errCreateThroughDeletingPC)
	}
	// Each pass decides afresh: an earlier pass that gave up, then failed
	// to remove the finalizer, must not count if this one deletes.
	rel, uid := b.n.pass.Releases, mg.GetUID()
	rel.forget(uid)
	var r PassResult
	var left Leftovers
	if last, sent := rel.lastDelete(uid); sent {
		// An earlier reconcile sent this pass's one delete: this look
		// verifies it.
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

// first is the pass's first look at what the resource's records name.
func (b *boundedPass[R]) first(ctx context.Context, mg R) (Leftovers, PassResult) {
	if b.n.pass.Coder == nil {
		return nil, PassResult{NoClient: true}
	}
	left, err := b.n.pass.find(ctx, mg)
	return left, PassResult{ObserveErr: err, Existed: !left.empty()}
}

// verify is the look after the pass's delete, which failed with deleteErr
// or was accepted.
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

// end decides how the pass ends, counts a failed delete and marks a
// release without delete for the finalizer to count.
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

// Delete sends the pass's one delete, of what its first look found. Its
// failure is the reconcile's error; the next Observe ends the pass either
// way.
func (b *boundedPass[R]) Delete(ctx context.Context, mg R) (managed.ExternalDelete, error) {
	ids, start := b.n.left.ids(), time.Now()
	err := b.n.pass.deleteLeft(ctx, b.n.left)
	b.n.pass.Releases.deleted(mg.GetUID(), start, ids, err)
	return managed.ExternalDelete{}, err
}

func (b *boundedPass[R]) Disconnect(ctx context.Context) error { return b.n.Disconnect(ctx) }

// A PassResult is what one bounded pass saw of a resource's object in
// Coder: the outcome of each step it took, up to the first failure.
type PassResult struct {
	// NoClient: no Coder client could be built (ProviderConfig or its
	// credentials gone).
	NoClient bool
	// Deleted: the bounded pass sent its one delete before this look.
	Deleted bool
	// ObserveErr is the failure of the first look; Existed its answer.
	ObserveErr error
	Existed    bool
	// DeleteErr is the failure of the delete.
	DeleteErr error
	// AfterErr is the failure of the look after the delete; StillThere its
	// answer.
	AfterErr   error
	StillThere bool
	// MayHaveAttempted: the resource names an object in Coder, or a create
	// for it was begun whose answer may have been lost.
	MayHaveAttempted bool
	// Orphan: the resource's policies keep its object in Coder on purpose
	// (deletionPolicy Orphan, or management policies without Delete).
	Orphan bool
	// Stalled says why the managed reconciler leaves the resource alone
	// (see Stalled); nothing was asked of Coder.
	Stalled string
}

// A PassOutcome is how a bounded pass ends.
type PassOutcome struct {
	// WithoutDelete: the resource releases without a verified delete; its
	// records turn Abandoned, and the release is counted and evented.
	WithoutDelete bool
	// Reason is why, for the record, the event and the metric.
	Reason string
	// DeleteFailed is the failure class to count as a failed external
	// delete; empty when no delete failed.
	DeleteFailed string
}

// A Step is what a deleting resource does after a look.
type Step string

// The steps.
const (
	// StepDelete: something of the resource's is left in Coder; Delete
	// deletes it, and the next reconcile's look verifies.
	StepDelete Step = "Delete"
	// StepRetry: the look failed; the finalizer stays and the reconciler
	// retries.
	StepRetry Step = "Retry"
	// StepEnd: the look found nothing left, a verified absence, or the
	// bounded pass ends; DecidePass says whether without a delete.
	StepEnd Step = "End"
)

// Next decides, for the normal path and the bounded pass alike, what a
// deleting resource does after a look (r). The normal path deletes what
// is left and retries every failure, for as long as its ProviderConfig
// holds. The bounded pass deletes once what its first look found, and ends
// after the look that follows its delete, or at a first look that fails or
// finds nothing: DecidePass then decides between a verified absence and a
// release without delete.
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

// DecidePass decides how a bounded pass ends. Only a verified absence (a
// look that finds nothing, first or after the delete) is a normal release,
// and so is an intentional orphan. Anything else releases without a delete,
// a stalled resource's release included, unless nothing can exist in Coder:
// no object is named and no create was ever begun.
func DecidePass(r PassResult) PassOutcome {
	var why string
	switch {
	case r.Orphan:
		return PassOutcome{}
	case r.Stalled != "":
		// Nothing was tried, so nothing failed to delete.
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

// Releases remembers, per managed resource, what spans its reconciles:
// whether it is letting go of its object in Coder without a verified
// delete, until the removal of its finalizer is persisted (only then is the
// release counted, so a retry that then deletes is not); and the last
// delete sent for it, which the next look verifies on a list sent after
// Coder answered it. Observe only reads Coder and Delete only deletes, so a
// delete and the look that verifies it are two reconciles apart. It is the
// one memory of sent deletes: the pass's, and a kind client's own (a
// rotation's retire, a create's discards: Deleted). It is memory only:
// after a restart a resource's delete is sent again, once.
type Releases struct {
	mu sync.Mutex
	m  map[types.UID]string
	// sent is the last delete of each resource: what it named and how it
	// ended.
	sent map[types.UID]sentDelete
	// counted is when each resource's release without delete was counted,
	// so a reconcile that read the resource from a cache not yet past its
	// removal (it decides the release again, and its removal finds the
	// resource gone) does not count it twice. Forgotten after
	// countedMemory, far longer than a cache lags.
	counted   map[types.UID]time.Time
	lastPrune time.Time
}

// countedMemory is how long a counted release is remembered.
const countedMemory = 10 * time.Minute

// A sentDelete is one delete for a resource: the ids of the Coder objects
// it deleted, when Coder answered, and its failure, nil when Coder
// accepted it all. pass: the pass's Delete sent it (which the bounded pass
// verifies, and whose acceptance a later Delete checks); a kind client's
// own delete outside it (Deleted) only dates the next look's list.
type sentDelete struct {
	ids  []string
	at   time.Time
	err  error
	pass bool
}

// NewReleases returns an empty registry.
func NewReleases() *Releases {
	return &Releases{m: map[types.UID]string{}, sent: map[types.UID]sentDelete{}, counted: map[types.UID]time.Time{}}
}

// mark notes that uid releases without a delete, and why.
func (r *Releases) mark(uid types.UID, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[uid] = why
}

// peek returns why uid releases without a delete, if it does.
func (r *Releases) peek(uid types.UID) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.m[uid]
	return why, ok
}

// take returns and forgets why uid released without a delete, and forgets
// its deletes: its finalizer is gone. It reports a release once: a uid
// whose release was taken already is not reported again.
func (r *Releases) take(uid types.UID) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.m[uid]
	delete(r.m, uid)
	delete(r.sent, uid)
	if !ok {
		return "", false
	}
	now := time.Now()
	r.prune(now)
	if _, done := r.counted[uid]; done {
		return why, false
	}
	r.counted[uid] = now
	return why, true
}

// prune forgets, at most once a minute, counted releases older than
// countedMemory, and a kind client's deletes as old: any list sent since
// serves the resource's look, and one that lacks a deleted object is sent
// again, once.
func (r *Releases) prune(now time.Time) {
	if now.Sub(r.lastPrune) < time.Minute {
		return
	}
	r.lastPrune = now
	for uid, at := range r.counted {
		if now.Sub(at) > countedMemory {
			delete(r.counted, uid)
		}
	}
	for uid, d := range r.sent {
		if !d.pass && now.Sub(d.at) > countedMemory {
			delete(r.sent, uid)
		}
	}
}

// forget drops a mark: the resource deleted after all.
func (r *Releases) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, uid)
}

// deleted notes the pass's delete of uid, begun at start and just
// answered: the objects it named, with those the kind's client noted
// deleting meanwhile (Deleted), and its failure.
func (r *Releases) deleted(uid types.UID, start time.Time, ids []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.sent[uid]
	if d.at.Before(start) {
		// An earlier delete's.
		d.ids = nil
	}
	for _, id := range ids {
		if !slices.Contains(d.ids, id) {
			d.ids = append(d.ids, id)
		}
	}
	r.sent[uid] = sentDelete{ids: d.ids, at: time.Now(), err: err, pass: true}
}

// Deleted notes that Coder answered, at at, uid's delete of the objects of
// ids, sent by the kind's client: within the pass's Delete (the pass then
// notes it as its own), or outside it (a rotation's retire). The
// resource's next look lists after at (DeletedAt), and the absence of ids
// on such a list is verified (DeletedBefore); every other resource goes on
// with the shared list, which the delete did not change for it.
func (r *Releases) Deleted(uid types.UID, at time.Time, ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune(time.Now())
	r.sent[uid] = sentDelete{ids: ids, at: at}
}

// DeletedAt returns when Coder answered uid's last delete, while no look
// has verified it yet.
func (r *Releases) DeletedAt(uid types.UID) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return d.at, ok
}

// DeletedBefore reports whether Coder answered uid's delete of id before a
// list sent at sent: that list not showing the object verifies it gone.
func (r *Releases) DeletedBefore(uid types.UID, sent time.Time, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return ok && !sent.Before(d.at) && slices.Contains(d.ids, id)
}

// lastDelete returns the last delete the pass sent for uid, if one awaits
// its verification.
func (r *Releases) lastDelete(uid types.UID) (sentDelete, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return d, ok && d.pass
}

// verified forgets uid's last delete: a look after it decided.
func (r *Releases) verified(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sent, uid)
}

// acceptedBefore reports whether Coder accepted the delete of one of ids
// for uid already, in the delete before this one: the object outlived it.
func (r *Releases) acceptedBefore(uid types.UID, ids []string) bool {
	d, ok := r.lastDelete(uid)
	return ok && d.err == nil && slices.ContainsFunc(ids, func(id string) bool { return id != "" && slices.Contains(d.ids, id) })
}
