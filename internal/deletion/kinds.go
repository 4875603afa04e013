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

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
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
	{KindProvider, objectKind{find: findProviders, remove: each(DeleteProvider)}},
	{KindMCPServer, objectKind{find: findMCPServers, remove: each(DeleteMCPServer)}},
	{KindGroupBudget, objectKind{find: findBudgets, remove: each(DeleteGroupBudget)}},
	{KindUserOverride, objectKind{find: findBudgets, remove: each(DeleteUserOverride)}},
	{KindKey, objectKind{find: findKeys, remove: removeKeys}},
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

func findProviders(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found {
	out := make([]found, len(recs))
	for i, rec := range recs {
		c, err := providerClaimOf(rec, ByName(originOf(rec), l.now))
		if err == nil {
			var ps []codersdk.AIProvider
			ps, err = FindProviders(ctx, l.cl, c, l.owned)
			for _, p := range ps {
				out[i].ids = append(out[i].ids, p.ID.String())
			}
		}
		out[i].err = err
	}
	return out
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

func removeKeys(ctx context.Context, cl *coder.Client, ids []string) error {
	uids := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		u, err := uuid.Parse(id)
		if err != nil {
			return err
		}
		uids = append(uids, u)
	}
	return DeleteKeys(ctx, cl, uids...)
}

// each removes objects one at a time with del.
func each(del func(context.Context, *coder.Client, string) error) func(context.Context, *coder.Client, []string) error {
	return func(ctx context.Context, cl *coder.Client, ids []string) error {
		var first error
		for _, id := range ids {
			first = cmp.Or(first, del(ctx, cl, id))
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
