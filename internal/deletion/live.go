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
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
)

// observe is a live resource's look, through the kind's own client.
func (n *untilGone[R]) observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	if err := n.otherCoder(ctx, mg); err != nil {
		// Its objects live in the Coder its records name: nothing is read
		// or changed in the one its ProviderConfig reaches now, and it is
		// not Ready while it reaches no object of its own.
		return managed.ExternalObservation{}, err
	}
	before := meta.GetExternalName(mg)
	if owned, err := n.ownedByAnother(ctx, mg, before); owned || err != nil {
		// Another resource owns the object this one names: nothing is
		// read or changed in Coder.
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
	if err == nil && o.ResourceExists && policy.MayDelete(mg) {
		// An object this resource may delete but did not create (imported
		// by external name) has no record yet; its deletion and a release
		// without delete go by the record.
		if id := meta.GetExternalName(mg); id != "" {
			if err := n.pass.Records.EnsureAdopted(ctx, mg, n.pass.Kind, n.pass.Origin, id); err != nil {
				return o, err
			}
		}
	}
	return o, err
}

// otherCoder is the error of a live resource whose records were made
// through another Coder than its ProviderConfig reaches now (OtherCoder),
// which its Ready condition says. The Coder now is the ProviderConfig's
// URL and the deployment it last reported: a URL changed since makes the
// two disagree with the record until the ProviderConfig reports again,
// which only delays the resource.
func (n *untilGone[R]) otherCoder(ctx context.Context, mg resource.Managed) error {
	if n.pass.Records == nil {
		return nil
	}
	recs, err := n.pass.Records.Of(ctx, mg)
	if err != nil {
		return err
	}
	if err := OtherCoder(recs, n.pass.Origin); err != nil {
		mg.SetConditions(xpv2.Unavailable().WithMessage(err.Error()))
		return err
	}
	return nil
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

// ownedByAnother reports whether another managed resource owns the Coder
// object id, with the error that names it, which the resource's Ready
// condition says; false for no id.
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
	mg.SetConditions(xpv2.Unavailable().WithMessage(owned.Error()))
	return true, owned
}

func (n *untilGone[R]) Create(ctx context.Context, mg R) (managed.ExternalCreation, error) {
	if n.pass.CreateRefused != "" {
		return managed.ExternalCreation{}, errors.New(errCreateRefused + ": " + n.pass.CreateRefused)
	}
	// The record comes first: whatever happens next, what may exist in
	// Coder is written down somewhere a namespace deletion cannot reach.
	if err := n.pass.Records.Ensure(ctx, mg, n.pass.Kind, n.pass.Origin, n.pass.CoderName(mg), attemptOf(mg)); err != nil {
		return managed.ExternalCreation{}, err
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

func (n *untilGone[R]) Update(ctx context.Context, mg R) (managed.ExternalUpdate, error) {
	return n.inner.Update(ctx, mg)
}
