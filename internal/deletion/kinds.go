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
	"github.com/google/uuid"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// Kinds a record can name.
const (
	KindKey          = "AIGatewayKey"
	KindProvider     = "AIProvider"
	KindGroupBudget  = "GroupAIBudget"
	KindUserOverride = "UserAIBudgetOverride"
	KindMCPServer    = "MCPServer"
)

// An objectKind is how to find and delete one kind of Coder object; every
// path that deletes goes through objectKinds, so a kind registered there
// inherits the whole contract.
type objectKind struct {
	// find returns, per record, what it names that is left and is its
	// owner's, or why that cannot be told. It only reads.
	find   func(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found
	remove func(ctx context.Context, cl *coder.Client, ids []string) error
}

// objectKinds is every kind a record can name, in sweep order;
// TestEveryManagedKindHasItsObjects keeps it beside apis.ManagedKinds().
var objectKinds = []registered{
	{KindProvider, objectKind{find: providers.find, remove: each(func(cl *coder.Client, ctx context.Context, id uuid.UUID) error {
		return cl.DeleteProvider(ctx, id.String()) // Soft-deletes it.
	})}},
	{KindMCPServer, objectKind{find: mcpServers.find, remove: each((*coder.Client).DeleteMCPServer)}},
	// Removing a group's budget restores its default; removing a user's
	// override lets its group budgets apply again.
	{KindGroupBudget, objectKind{find: findBudgets, remove: each((*coder.Client).DeleteGroupAIBudget)}},
	{KindUserOverride, objectKind{find: findBudgets, remove: each((*coder.Client).DeleteUserAIBudgetOverride)}},
	{KindKey, objectKind{find: findKeys, remove: each((*coder.Client).DeleteKey)}},
}

type registered struct {
	kind string
	objectKind
}

func objectsOf(kind string) (objectKind, bool) {
	i := slices.IndexFunc(objectKinds, func(k registered) bool { return k.kind == kind })
	if i < 0 {
		return objectKind{}, false
	}
	return objectKinds[i].objectKind, true
}

// A look is where a find looks; keys nil lists through cl.
type look struct {
	cl    *coder.Client
	now   Origin
	owned Owned
	keys  func(context.Context) ([]codersdk.AIGatewayKey, error)
}

// found is what one record names that is left in Coder; superseded: someone
// else replaced its object (a budget row written since its PUT).
type found struct {
	ids        []string
	err        error
	superseded bool
}

func findBudgets(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found {
	out := make([]found, len(recs))
	for i, rec := range recs {
		if rec.Status.ExternalID != "" {
			// Else no PUT was sent.
			out[i] = budgetLeft(ctx, l.cl, BudgetClaimOf(rec), l.owned)
		}
	}
	return out
}

func findKeys(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found {
	out := make([]found, len(recs))
	list := l.keys
	if list == nil {
		list = l.cl.ListKeys
	}
	keys, err := list(ctx)
	for i, rec := range recs {
		if err != nil {
			out[i].err = err
			continue
		}
		c := keyClaimOf(rec)
		for _, k := range OwnedKeys(keys, c, l.owned) {
			if err := notBefore("key "+k.ID.String(), k.CreatedAt, c.NotBefore, l.cl.Clock()); err != nil {
				out[i].err = cmp.Or(out[i].err, err)
				continue
			}
			out[i].ids = append(out[i].ids, k.ID.String())
		}
	}
	return out
}

// each removes objects one at a time; a 404 is done, never verified absence.
func each(del func(*coder.Client, context.Context, uuid.UUID) error) func(context.Context, *coder.Client, []string) error {
	return func(ctx context.Context, cl *coder.Client, ids []string) error {
		var first error
		for _, s := range ids {
			id, err := parseID(s)
			if err == nil {
				err = del(cl, ctx, id)
			}
			if !coder.IsNotFound(err) {
				first = cmp.Or(first, err)
			}
		}
		return first
	}
}

// sweepObjects deletes what one kind's records name and verifies with one
// find before and, if anything was deleted, one after all the deletes.
func sweepObjects(ctx context.Context, l look, k objectKind, recs []*clusterv1alpha1.CleanupRecord) []found {
	before := k.find(ctx, l, recs)
	deleted := false
	for i := range before {
		if len(before[i].ids) == 0 {
			continue
		}
		before[i].err = cmp.Or(before[i].err, k.remove(ctx, l.cl, before[i].ids))
		deleted = true
	}
	if !deleted {
		return before
	}
	after := k.find(ctx, l, recs)
	for i := range before {
		switch {
		case before[i].err != nil:
		case after[i].err != nil:
			before[i].err = after[i].err
		case len(after[i].ids) > 0:
			before[i].err = ErrStillPresent
		}
	}
	return before
}

// ReasonBudgetChangedInCoder: someone wrote the budget since our last PUT.
const ReasonBudgetChangedInCoder event.Reason = "BudgetChangedInCoder"

var msgFmtChanged = map[string]string{
	KindGroupBudget:  "The AI budget of group %s was changed in Coder since this resource last set it (its last write was updated %s by Coder's clock); it is left there",
	KindUserOverride: "The AI budget override of user %s was changed in Coder since this resource last set it (its last write was updated %s by Coder's clock); it is left there",
}

const (
	errFmtRecordedUnread  = "cannot read whether what the cleanup record %s names is gone from Coder; the resource goes only once it is"
	errDeleteRecordedLeft = "cannot delete what this resource's cleanup records name; the resource goes only once it is gone from Coder"
	errNoClientVerify     = "no Coder client to verify that what the cleanup records name is gone"
)

// Leftovers are, by kind, the ids a deleting resource's records name in
// Coder: a look finds them, Delete deletes them, the next look verifies.
type Leftovers map[string][]string

func (l Leftovers) empty() bool { return len(l.ids()) == 0 }

func (l Leftovers) ids() []string {
	var ids []string
	for _, k := range objectKinds {
		ids = append(ids, l[k.kind]...)
	}
	return ids
}

// recordsLeft reads what mg's records name that is still in the Coder at
// now, never by its external name or annotations, which anyone editing it
// can set; what another live resource holds is left to it.
func (p Pass) recordsLeft(ctx context.Context, mg resource.Managed, recs Set, now Origin, since time.Time) (Leftovers, error) {
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

// keysSince lists on the shared key list, one sent at since or later.
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

// deleteLeft deletes what recordsLeft found; the caller notes it (Releases.deleted).
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
	return errors.Wrap(first, errDeleteRecordedLeft)
}

// A KeyClaim names an owner's keys by id and by UID-derived name, which
// proves ownership on its own, so a record whose id went stale still finds a
// key a later create made under that name.
type KeyClaim struct {
	IDs []string
	// Name reports whether a key name is one of the owner's derived names.
	Name func(string) bool
	// NotBefore bounds when a key of the claim can have been created.
	NotBefore time.Time
}

// Names reports whether the claim names k, by id or by name.
func (c KeyClaim) Names(k codersdk.AIGatewayKey) bool {
	if c.Name != nil && c.Name(k.Name) {
		return true
	}
	id := k.ID.String()
	for _, want := range c.IDs {
		if want != "" && want == id {
			return true
		}
	}
	return false
}

func nameIs(name string) func(string) bool {
	return func(n string) bool { return name != "" && n == name }
}

// OwnedKeys returns the keys the claim names that no other resource holds.
func OwnedKeys(list []codersdk.AIGatewayKey, c KeyClaim, owned Owned) []codersdk.AIGatewayKey {
	var out []codersdk.AIGatewayKey
	for _, k := range list {
		if c.Names(k) && !owned.has(k.ID.String()) {
			out = append(out, k)
		}
	}
	return out
}

// DeleteKeys deletes keys (a 404 is done) and returns the first failure;
// the caller's next list verifies.
func DeleteKeys(ctx context.Context, cl *coder.Client, ids ...uuid.UUID) error {
	var first error
	for _, id := range ids {
		if err := cl.DeleteKey(ctx, id); err != nil && !coder.IsNotFound(err) && first == nil {
			first = err
		}
	}
	return first
}

// ErrStillPresent is the error of an object still in Coder after Coder
// accepted its delete.
var ErrStillPresent = errors.New("still present in Coder after delete")

var errUndated = errors.New("cannot compare Coder's timestamps with the provider's clock: Coder's answers carry no Date header")

var errPredates = errors.New("it predates the cleanup record that names it, so it is not deleted and the record is kept")

// notBefore is nil when an object Coder dated createdAt can postdate
// notBefore (our clock; zero bounds nothing), on Coder's clock; otherwise
// it is not the claim's, but not absent either.
func notBefore(what string, createdAt, notBefore time.Time, clock coder.Clock) error {
	switch {
	case notBefore.IsZero():
		return nil
	case !clock.Known():
		return errors.Wrap(errUndated, what)
	case createdAt.Before(clock.At(notBefore)):
		return errors.Wrapf(errPredates, "%s was created %s, before the record (%s), both on Coder's clock", what,
			createdAt.UTC().Format(time.RFC3339), clock.At(notBefore).UTC().Format(time.RFC3339))
	}
	return nil
}

// Owned reports whether a live resource other than the claim's owner holds
// an id: it imported it, so it is never deleted for the claim.
type Owned func(id string) bool

func (h Owned) has(id string) bool { return h != nil && h(id) }

func isStillPresent(err error) bool { return errors.Is(err, ErrStillPresent) }
