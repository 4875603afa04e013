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
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

const (
	errFmtRecordedUnread  = "cannot read whether what the cleanup record %s names is gone from Coder; the resource goes only once it is"
	errDeleteRecordedLeft = "cannot delete what this resource's cleanup records name and its external name and annotations did not lead it to; the resource goes only once it is gone from Coder"
	errNoClientVerify     = "no Coder client to verify that what the cleanup records name is gone"
)

// Leftovers are the objects in Coder a deleting resource's records name
// and its own look did not find: a read finds them, Delete deletes them,
// and the next reconcile's read verifies.
type Leftovers struct {
	Keys      []uuid.UUID
	Providers []string
	// Budgets are group ids whose budget is still the one a record's PUT
	// wrote; Overrides the same of users' overrides.
	Budgets, Overrides []string
}

func (l Leftovers) empty() bool {
	return len(l.Keys)+len(l.Providers)+len(l.Budgets)+len(l.Overrides) == 0
}

// ids are the Coder ids of l.
func (l Leftovers) ids() []string {
	ids := slices.Concat(l.Providers, l.Budgets, l.Overrides)
	for _, k := range l.Keys {
		ids = append(ids, k.String())
	}
	return ids
}

// recordsLeft reads what the records of the deleting mg name and is still
// in the Coder the resource reaches now (now, with the deployment asked),
// by the records read at the start of the reconcile (recs). The resource's
// external name and annotations steer its own look, and anyone editing the
// resource can set them (to a sibling's id, an unknown one, a forged
// refusal); the records are the provider's. Objects another live resource
// holds by a record of its own are left to it. It only reads.
func (p Pass) recordsLeft(ctx context.Context, mg resource.Managed, recs Set, now Origin, since time.Time) (Leftovers, error) {
	if p.Records == nil {
		return Leftovers{}, nil
	}
	c, err := recs.Claims(now)
	if err != nil || c.Empty() {
		return Leftovers{}, err
	}
	if p.Coder == nil {
		return Leftovers{}, errors.New(errNoClientVerify)
	}
	held, lookup := p.Records.HeldByAnother(ctx, mg, now)
	var left Leftovers
	for i, pc := range c.Providers {
		found, err := FindProviders(ctx, p.Coder, pc, held)
		if err != nil {
			return Leftovers{}, errors.Wrapf(err, errFmtRecordedUnread, c.ProviderOf[i])
		}
		for _, f := range found {
			left.Providers = append(left.Providers, f.ID.String())
		}
	}
	for i, bc := range c.Budgets {
		ours, err := FindBudget(ctx, p.Coder, bc, held)
		if err != nil {
			return Leftovers{}, errors.Wrapf(err, errFmtRecordedUnread, c.BudgetOf[i])
		}
		to := &left.Budgets
		if bc.Override {
			to = &left.Overrides
		}
		if ours && !slices.Contains(*to, bc.ID) {
			*to = append(*to, bc.ID)
		}
	}
	if len(c.Keys) > 0 {
		ids, errs := p.findKeys(ctx, mg, c.Keys, held, since)
		for i, err := range errs {
			if err != nil {
				return Leftovers{}, errors.Wrapf(err, errFmtRecordedUnread, c.KeyOf[i])
			}
			left.Keys = append(left.Keys, ids[i]...)
		}
	}
	return left, lookup()
}

// keysDeletedAt is when Coder answered the resource's last delete of keys,
// while its look has not yet found them gone.
func (p Pass) keysDeletedAt(mg resource.Managed) (time.Time, bool) {
	if p.Keys == nil {
		return time.Time{}, false
	}
	return p.Keys.Pending(p.Scope, string(mg.GetUID()))
}

// findKeys finds the keys of claims on the shared key list of the
// resource's ProviderConfig, one sent at since or later (see seek): the
// list its own look just read, not one more request. Without a shared list
// it lists.
func (p Pass) findKeys(ctx context.Context, mg resource.Managed, claims []KeyClaim, held Held, since time.Time) ([][]uuid.UUID, []error) {
	if p.Keys == nil {
		return FindKeys(ctx, p.Coder, claims, held)
	}
	owner := string(mg.GetUID())
	list, err := p.Keys.ListFor(ctx, p.Scope, owner, p.Coder, since)
	if err != nil {
		return ListFailed(len(claims), err)
	}
	return FindKeysIn(list.Keys(), p.Coder.Clock(), claims, held)
}

// deleteLeft deletes what recordsLeft found, all of it, and returns the
// first failure.
func (p Pass) deleteLeft(ctx context.Context, mg resource.Managed, l Leftovers) error {
	if l.empty() {
		return nil
	}
	if p.Coder == nil {
		return errors.New(errNoClientVerify)
	}
	var first error
	for _, id := range l.Providers {
		first = cmp.Or(first, DeleteProvider(ctx, p.Coder, id))
	}
	for _, id := range l.Budgets {
		first = cmp.Or(first, DeleteGroupBudget(ctx, p.Coder, id))
	}
	for _, id := range l.Overrides {
		first = cmp.Or(first, DeleteUserOverride(ctx, p.Coder, id))
	}
	if len(l.Keys) > 0 {
		first = cmp.Or(first, DeleteKeys(ctx, p.Coder, l.Keys...))
		if p.Keys != nil {
			// The next look verifies on a list sent after this answer.
			p.Keys.Deleted(p.Scope, string(mg.GetUID()), time.Now(), l.Keys...)
		}
	}
	return errors.Wrap(first, errDeleteRecordedLeft)
}
