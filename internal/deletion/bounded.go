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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/hold"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
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
	if Next(hold.ModeBoundedPass, r) == StepDelete {
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
