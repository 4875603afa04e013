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

package cleanup

import (
	"cmp"
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/coderobj"
)

const (
	errFmtRecordedUnread  = "cannot read whether what the cleanup record %s names is gone from Coder; the resource goes only once it is"
	errDeleteRecordedLeft = "cannot delete what this resource's cleanup records name and its external name and annotations did not lead it to; the resource goes only once it is gone from Coder"
	errNoClientVerify     = "no Coder client to verify that what the cleanup records name is gone"
)

// RecordClaims is what the records of a deleting resource name in Coder, as
// the sweep would look for it through the ProviderConfig the resource
// reaches now, with the name of the record each claim comes from.
type RecordClaims struct {
	Keys      []coderobj.KeyClaim
	KeyOf     []string
	Providers []coderobj.ProviderClaim
	// ProviderOf names the record of each provider claim.
	ProviderOf []string
}

// ClaimsOf decides what a deleting resource's records name, through a
// client that reaches now (which otherDeployment found to be the Coder
// every record names). A record the provider never wrote a status to names
// nothing. A key is named by its recorded id and UID-derived name; a
// provider by its recorded id and, through the ProviderConfig that made it,
// by the name its last create attempt may have written. A provider known
// by that name only, through another ProviderConfig, cannot be verified
// gone: the error says so, and the record waits for its creator's sweep.
func ClaimsOf(recs []clusterv1alpha1.CleanupRecord, now Origin) (RecordClaims, error) {
	var c RecordClaims
	for i := range recs {
		rec := &recs[i]
		if rec.Status.Phase == "" {
			continue
		}
		if rec.Spec.Kind == kindKey {
			c.Keys = append(c.Keys, keyClaim(rec))
			c.KeyOf = append(c.KeyOf, rec.Name)
			continue
		}
		o := OriginOf(rec)
		byName := o.MadeBy(now) || (o.legacy() && o.SameCoder(now))
		pc := providerClaim(rec, byName)
		if pc.ID == "" && !byName && rec.Status.CreateAttemptedAt != nil {
			return RecordClaims{}, errors.Errorf(errFmtOnlyCreatorFinds, o)
		}
		c.Providers = append(c.Providers, pc)
		c.ProviderOf = append(c.ProviderOf, rec.Name)
	}
	return c, nil
}

// Leftovers are the objects in Coder a deleting resource's records name
// and its own look did not find: a read finds them, Delete deletes them,
// and the next reconcile's read verifies.
type Leftovers struct {
	Keys      []uuid.UUID
	Providers []string
}

func (l Leftovers) empty() bool { return len(l.Keys)+len(l.Providers) == 0 }

// ids are the Coder ids of l.
func (l Leftovers) ids() []string {
	ids := slices.Clone(l.Providers)
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
func (p Pass) recordsLeft(ctx context.Context, mg resource.Managed, recs RecordSet, now Origin) (Leftovers, error) {
	if p.Records == nil {
		return Leftovers{}, nil
	}
	c, err := ClaimsOf(recs.recs, now)
	if err != nil || len(c.Keys)+len(c.Providers) == 0 {
		return Leftovers{}, err
	}
	if p.Coder == nil {
		return Leftovers{}, errors.New(errNoClientVerify)
	}
	held, lookup := p.Records.heldByAnother(ctx, mg)
	var left Leftovers
	for i, pc := range c.Providers {
		found, err := coderobj.FindProviders(ctx, p.Coder, pc, held)
		if err != nil {
			return Leftovers{}, errors.Wrapf(err, errFmtRecordedUnread, c.ProviderOf[i])
		}
		for _, f := range found {
			left.Providers = append(left.Providers, f.ID.String())
		}
	}
	if len(c.Keys) > 0 {
		ids, errs := coderobj.FindKeys(ctx, p.Coder, c.Keys, held)
		for i, err := range errs {
			if err != nil {
				return Leftovers{}, errors.Wrapf(err, errFmtRecordedUnread, c.KeyOf[i])
			}
			left.Keys = append(left.Keys, ids[i]...)
		}
	}
	return left, lookup()
}

// deleteLeft deletes what recordsLeft found, all of it, and returns the
// first failure.
func (p Pass) deleteLeft(ctx context.Context, l Leftovers) error {
	if l.empty() {
		return nil
	}
	if p.Coder == nil {
		return errors.New(errNoClientVerify)
	}
	var first error
	for _, id := range l.Providers {
		first = cmp.Or(first, coderobj.DeleteProvider(ctx, p.Coder, id))
	}
	first = cmp.Or(first, coderobj.DeleteKeys(ctx, p.Coder, l.Keys...))
	return errors.Wrap(first, errDeleteRecordedLeft)
}

// heldByAnother reports the Coder objects another live managed resource
// holds: its external name is the id, and a record of its own names it,
// as the sweep's managers go. An external name alone is anyone's to write.
// The second result is the first failure to find out; an object whose
// holders could not be read counts as held meanwhile, so nothing is
// deleted on a guess, and the failure fails the verification.
func (r *Records) heldByAnother(ctx context.Context, mg resource.Managed) (coderobj.Managed, func() error) {
	var first error
	self := string(mg.GetUID())
	held := func(id string) bool {
		cs, err := r.Claimants(ctx, id)
		if err != nil {
			if first == nil {
				first = err
			}
			return true
		}
		recorded, live := map[string]bool{}, map[string]bool{}
		for _, c := range cs {
			if c.UID == self {
				continue
			}
			if c.Record {
				recorded[c.UID] = true
			} else {
				live[c.UID] = true
			}
		}
		for uid := range recorded {
			if live[uid] {
				return true
			}
		}
		return false
	}
	return held, func() error { return first }
}
