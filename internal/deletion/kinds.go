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

// An objectKind is how to find and delete one kind of object in Coder.
// Every path that deletes (a deleting resource, its bounded pass, the
// sweep) goes through objectKinds, so a kind registered there inherits the
// whole contract.
type objectKind struct {
	// find returns, per record, what it names that is left in the Coder
	// of l and no other live resource holds, or why that cannot be told.
	// It only reads.
	find func(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found
	// remove deletes by id and returns the first failure; a 404 is done,
	// never verified absence.
	remove func(ctx context.Context, cl *coder.Client, ids []string) error
}

// objectKinds is every kind a record can name, in the order a sweep serves
// them. TestEveryManagedKindHasItsObjects keeps it and apis.ManagedKinds()
// together.
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

// A look is where a find looks: the client, the Coder it reaches (now),
// what other live resources hold there, and the key list to look on.
type look struct {
	cl    *coder.Client
	now   Origin
	owned Owned
	// keys lists Coder's keys; nil lists through cl.
	keys func(context.Context) ([]codersdk.AIGatewayKey, error)
}

// found is what one record names that is left in Coder.
type found struct {
	ids []string
	err error
	// superseded: someone else replaced the record's object (a budget row
	// written since its PUT); nothing of the record's is left.
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

// each removes objects one at a time by Coder id; a 404 is done, never
// verified absence.
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

// sweepObjects deletes what the records of one kind name and verifies with
// one find before and, if anything was deleted, one after all the deletes.
// Per record: nil for a verified absence, or superseded (not deleted).
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
		// Nothing was asked of Coder since the find, which verified the
		// absence of everything it lacks.
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

// ReasonBudgetChangedInCoder: a deleting resource's budget or override was
// written in Coder since its last PUT, so it is someone else's and is left.
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

// Leftovers are, by kind, the ids in Coder a deleting resource's records
// name: a look finds them, Delete deletes them, the next look verifies.
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
// can set (to a sibling's id, or a forged refusal). What another live
// resource holds by a record of its own is left to it.
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

// keysSince lists on the ProviderConfig's shared key list, one sent at
// since or later (see find); without a shared list the find lists.
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

// deleteLeft deletes all that recordsLeft found and returns the first
// failure; the caller notes the delete (Releases.deleted) so the next look
// verifies on a list sent after this answer.
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

// A KeyClaim names the keys one owner may have in Coder: by id and by
// UID-derived name, which proves ownership on its own, so a record whose
// id went stale still finds a key a later create made under that name.
type KeyClaim struct {
	IDs []string
	// Name reports whether a key name is one of the owner's derived names.
	Name func(string) bool
	// NotBefore, when set, is the earliest time (our clock) a key of the
	// claim can have been created: a record written before its create
	// cannot name a key Coder made earlier (see notBefore).
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

// OwnedKeys returns the keys of list the claim names, skipping those another
// resource holds.
func OwnedKeys(list []codersdk.AIGatewayKey, c KeyClaim, owned Owned) []codersdk.AIGatewayKey {
	var out []codersdk.AIGatewayKey
	for _, k := range list {
		if c.Names(k) && !owned.has(k.ID.String()) {
			out = append(out, k)
		}
	}
	return out
}

// DeleteKeys deletes every key of ids, a 404 being done, and returns the
// first failure. Absence is verified by the caller's next list.
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

// notBefore is nil when an object Coder dated createdAt can have been made
// after notBefore (our clock; zero bounds nothing), compared on Coder's
// clock. Otherwise the object is not the claim's, but not absent either.
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
// an id (liveOwners): it imported it, whatever an earlier owner's record
// says, so it is never deleted for the claim. Nil holds nothing.
type Owned func(id string) bool

func (h Owned) has(id string) bool { return h != nil && h(id) }

func isStillPresent(err error) bool { return errors.Is(err, ErrStillPresent) }
