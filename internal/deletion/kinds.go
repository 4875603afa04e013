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

// An objectKind is what deletion knows of one kind of object in Coder:
// how to find what records name, and how to delete it. Every path that
// deletes (a deleting resource, its bounded pass, the sweep) goes through
// objectKinds, so a kind registered there inherits the whole deletion
// contract: records before creates, ownership per Coder, verified absence,
// releases counted, the sweep.
type objectKind struct {
	// find returns, per record, what it names that is left in the Coder
	// of l and is its owner's to delete (another live resource holds none
	// of it), or why that cannot be told. It only reads.
	find func(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found
	// remove deletes objects by id; one already gone is done, never
	// verified absence. It tries them all and returns the first failure.
	remove func(ctx context.Context, cl *coder.Client, ids []string) error
}

// objectKinds is every kind of object a record can name, by the record's
// spec.kind, in the order a sweep serves them. TestEveryManagedKindHasItsObjects
// keeps it and apis.ManagedKinds() together.
var objectKinds = []registered{
	{KindProvider, objectKind{find: providers.find, remove: each(func(cl *coder.Client, ctx context.Context, id uuid.UUID) error {
		return cl.DeleteProvider(ctx, id.String()) // Soft-deletes it.
	})}},
	{KindMCPServer, objectKind{find: mcpServers.find, remove: each((*coder.Client).DeleteMCPServer)}},
	// Removing a group's budget restores its default; removing a user's
	// override lets its group budgets apply again. A read after it
	// verifies (GroupBudget, UserOverride, by RowFound).
	{KindGroupBudget, objectKind{find: findBudgets, remove: each((*coder.Client).DeleteGroupAIBudget)}},
	{KindUserOverride, objectKind{find: findBudgets, remove: each((*coder.Client).DeleteUserAIBudgetOverride)}},
	{KindKey, objectKind{find: findKeys, remove: each((*coder.Client).DeleteKey)}},
}

// registered is one entry of objectKinds: a record's spec.kind and its
// objects.
type registered struct {
	kind string
	objectKind
}

// objectsOf returns the objects of a record's kind.
func objectsOf(kind string) (objectKind, bool) {
	i := slices.IndexFunc(objectKinds, func(k registered) bool { return k.kind == kind })
	if i < 0 {
		return objectKind{}, false
	}
	return objectKinds[i].objectKind, true
}

// A look is where a find looks: the client, the Coder it reaches (now,
// with its deployment), what other live resources hold there, and,
// optionally, the key list to look on.
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
	// superseded: the record's object was replaced by someone else's (a
	// budget row written since its PUT); nothing of the record's is left.
	superseded bool
}

func findBudgets(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found {
	out := make([]found, len(recs))
	for i, rec := range recs {
		if rec.Status.ExternalID != "" {
			// Else the record never named a group or user: no PUT was sent.
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

// each removes objects one at a time with del, by their Coder ids; one
// already gone (404) is done, never verified absence.
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

// sweepObjects deletes what the records of one kind name in the Coder of
// l, and verifies: one find before and, when anything was deleted, one
// after all the deletes, however many records there are. It returns, per
// record, nil for a verified absence, and whether someone else's object
// replaced the record's (superseded, not deleted).
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

// A KeyClaim names the keys one owner may have in Coder: by id (its external
// name, its records' ids) and by UID-derived name. A key's name proves
// ownership on its own because it embeds the owner's UID, so a record whose
// id went stale still finds the key a later create made under the same name.
type KeyClaim struct {
	IDs []string
	// Name reports whether a key name is one of the owner's derived names.
	Name func(string) bool
	// NotBefore, when set, is the earliest time, by our clock, a key of
	// the claim can have been created: a record written before its create
	// cannot name a key Coder made earlier, whatever id or name it carries.
	// It meets a key's creation time only on Coder's clock (see notBefore).
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

// nameIs is a KeyClaim.Name that matches one name.
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

// DeleteKeys asks Coder to delete every key of ids; one already gone is
// fine. It tries them all and returns the first failure. Absence is
// verified by the caller's next list, never assumed from the answer.
func DeleteKeys(ctx context.Context, cl *coder.Client, ids ...uuid.UUID) error {
	var first error
	for _, id := range ids {
		if err := cl.DeleteKey(ctx, id); err != nil && !coder.IsNotFound(err) && first == nil {
			first = err
		}
	}
	return first
}

// ErrStillPresent is the error of an object still in Coder after its delete
// was accepted; a caller that wraps it can still tell it apart
// (isStillPresent, errors.Is).
var ErrStillPresent = errors.New("still present in Coder after delete")

// errUndated is the error of a comparison of one of Coder's timestamps with
// an instant of ours that no answer of Coder could place on its clock: its
// answers carried no Date header.
var errUndated = errors.New("cannot compare Coder's timestamps with the provider's clock: Coder's answers carry no Date header")

// errPredates is the error of an object a claim names that Coder created
// before the claim could have made it: the claim is not settled, and the
// object is not deleted.
var errPredates = errors.New("it predates the cleanup record that names it, so it is not deleted and the record is kept")

// notBefore is nil when an object Coder dated createdAt can have been made
// after notBefore (by our clock; zero bounds nothing), placed on Coder's
// clock. Otherwise the object is not what the claim names, but it is not
// absent either: errPredates, or errUndated when the clock is not known.
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

// Owned reports whether a live managed resource other than the claim's
// owner holds an id (liveOwners decides who does): an object another
// resource holds is its own (it imported it), whatever a record of an
// earlier owner says, and is never deleted for the claim. Nil holds
// nothing.
type Owned func(id string) bool

func (h Owned) has(id string) bool { return h != nil && h(id) }

// isStillPresent reports whether err is, or wraps, an object still in
// Coder after its delete.
func isStillPresent(err error) bool { return errors.Is(err, ErrStillPresent) }
