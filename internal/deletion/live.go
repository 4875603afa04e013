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
		// Its objects live in the Coder its records name, not this one.
		return managed.ExternalObservation{}, err
	}
	before := meta.GetExternalName(mg)
	if owned, err := n.ownedByAnother(ctx, mg, before); owned || err != nil {
		return managed.ExternalObservation{}, err
	}
	o, err := n.inner.Observe(ctx, mg)
	if after := meta.GetExternalName(mg); err == nil && after != before {
		// Observe adopted a lost create's object: not another's either.
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
		// An import it may delete needs a record to be deleted by.
		if id := meta.GetExternalName(mg); id != "" {
			if err := n.pass.Records.EnsureAdopted(ctx, mg, n.pass.Kind, n.pass.Origin, id); err != nil {
				return o, err
			}
		}
	}
	return o, err
}

// otherCoder is OtherCoder for a live resource, shown on its Ready
// condition. Now is the deployment the ProviderConfig last reported: after
// a change of URL that only delays the resource until it reports again.
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

// recordID writes the observed id onto the create's record when no record
// holds it (a lost create adopted by name, or a failed SetExternalID):
// ownership and the sweep go by it. Rotation records are left alone.
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

// ownedByAnother reports whether another resource owns id, with the error
// naming it, shown on the Ready condition.
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
	// The record first, where a namespace deletion cannot reach it.
	if err := n.pass.Records.Ensure(ctx, mg, n.pass.Kind, n.pass.Origin, n.pass.CoderName(mg), attemptOf(mg)); err != nil {
		return managed.ExternalCreation{}, err
	}
	c, err := n.inner.Create(ctx, mg)
	if err != nil && !coder.Timeout(err) {
		// Coder answered, so nothing was written; best effort, as a kept
		// attempt only makes the sweep look once more.
		_ = n.pass.Records.NothingWritten(ctx, mg, n.pass.Kind)
	}
	if err == nil {
		if id := meta.GetExternalName(mg); id != "" {
			// Best effort: records also find their object by name.
			_ = n.pass.Records.SetExternalID(ctx, mg, n.pass.Kind, id)
		}
	}
	return c, err
}

// attemptOf is the time the reconciler noted just before calling Create.
func attemptOf(mg resource.Managed) time.Time {
	if t, err := time.Parse(time.RFC3339, mg.GetAnnotations()[meta.AnnotationKeyExternalCreatePending]); err == nil {
		return t
	}
	return time.Now()
}

func (n *untilGone[R]) Update(ctx context.Context, mg R) (managed.ExternalUpdate, error) {
	return n.inner.Update(ctx, mg)
}
