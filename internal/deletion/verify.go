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

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// ReasonBudgetChangedInCoder: a deleting resource's budget or override was
// written in Coder since its last PUT, so it is someone else's and is left.
const ReasonBudgetChangedInCoder event.Reason = "BudgetChangedInCoder"

// msgFmtChanged is the event of ReasonBudgetChangedInCoder, per kind.
var msgFmtChanged = map[string]string{
	KindGroupBudget:  "The AI budget of group %s was changed in Coder since this resource last set it (its last write was updated %s by Coder's clock); it is left there",
	KindUserOverride: "The AI budget override of user %s was changed in Coder since this resource last set it (its last write was updated %s by Coder's clock); it is left there",
}

const (
	errFmtRecordedUnread  = "cannot read whether what the cleanup record %s names is gone from Coder; the resource goes only once it is"
	errDeleteRecordedLeft = "cannot delete what this resource's cleanup records name; the resource goes only once it is gone from Coder"
	errNoClientVerify     = "no Coder client to verify that what the cleanup records name is gone"
)

// Leftovers are the objects in Coder a deleting resource's records name,
// by kind: a read finds them, Delete deletes them, and the next
// reconcile's read verifies.
type Leftovers map[string][]string

func (l Leftovers) empty() bool { return len(l.ids()) == 0 }

// ids are the Coder ids of l.
func (l Leftovers) ids() []string {
	var ids []string
	for _, k := range objectKinds {
		ids = append(ids, l[k.kind]...)
	}
	return ids
}

// recordsLeft reads what the records of the deleting mg name and is still
// in the Coder the resource reaches now (now, with the deployment asked),
// by its records (recs), never by its external name and annotations, which
// anyone editing the resource can set (to a sibling's id, an unknown one, a
// forged refusal). Objects another live resource holds by a record of its
// own are left to it. It only reads.
func (p Pass) recordsLeft(ctx context.Context, mg resource.Managed, recs Set, now Origin, since time.Time) (Leftovers, error) {
	if p.Records == nil {
		return Leftovers{}, nil
	}
	written := recs.written()
	if len(written) == 0 {
		return Leftovers{}, nil
	}
	if p.Coder == nil {
		return Leftovers{}, errors.New(errNoClientVerify)
	}
	owned, lookup := p.Records.OwnedByOthers(ctx, mg, now)
	l := look{cl: p.Coder, now: now, owned: owned, keys: p.keysSince(since)}
	left := Leftovers{}
	for _, k := range objectKinds {
		of := slices.DeleteFunc(slices.Clone(written), func(r *clusterv1alpha1.CleanupRecord) bool { return r.Spec.Kind != k.kind })
		for i, f := range k.find(ctx, l, of) {
			if f.err != nil {
				return Leftovers{}, errors.Wrapf(f.err, errFmtRecordedUnread, of[i].Name)
			}
			if f.superseded && p.Record != nil {
				st := of[i].Status
				p.Record.Event(mg, event.Warning(ReasonBudgetChangedInCoder, errors.Errorf(msgFmtChanged[k.kind], st.ExternalID, st.CoderUpdatedAt)))
			}
			for _, id := range f.ids {
				if !slices.Contains(left[k.kind], id) {
					left[k.kind] = append(left[k.kind], id)
				}
			}
		}
	}
	return left, lookup()
}

// deletedAt is when Coder answered the resource's last delete, while no
// look has verified it yet.
func (p Pass) deletedAt(mg resource.Managed) (time.Time, bool) {
	if p.Releases == nil {
		return time.Time{}, false
	}
	return p.Releases.DeletedAt(mg.GetUID())
}

// keysSince lists keys on the shared key list of the resource's
// ProviderConfig, one sent at since or later (see find). Without a shared
// list the find lists.
func (p Pass) keysSince(since time.Time) func(context.Context) ([]codersdk.AIGatewayKey, error) {
	if p.Keys == nil {
		return nil
	}
	return func(ctx context.Context) ([]codersdk.AIGatewayKey, error) {
		list, err := p.Keys.ListSince(ctx, p.Scope, p.Coder, since)
		if err != nil {
			return nil, err
		}
		return list.Keys(), nil
	}
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
	for _, k := range objectKinds {
		if len(l[k.kind]) > 0 {
			first = cmp.Or(first, k.remove(ctx, p.Coder, l[k.kind]))
		}
	}
	// The pass notes the delete (Releases.deleted): the next look verifies
	// on a list sent after this answer.
	return errors.Wrap(first, errDeleteRecordedLeft)
}
