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

// A providerClaim names the provider one owner may have in Coder. Provider
// names are chosen by users and may be reused by anyone, so a name proves
// nothing on its own: a provider found by name is the claim's only when
// Coder created it within the window of the owner's last create attempt
// whose answer may have been lost. Times are by our clock; each meets
// Coder's creation time only on Coder's clock.
type providerClaim struct {
	// ID is the provider's Coder id, once known.
	ID string
	// Name is the provider's Coder-wide name.
	Name string
	// Attempt is when the last create was sent; zero when none may have
	// written anything.
	Attempt time.Time
	// NotBefore, when set, is the earliest creation time a provider of the
	// claim can have, by id as by name.
	NotBefore time.Time
}

// FindProviders returns the providers in Coder the claim owns: the one of
// its id, and the one of its name if the claim's create attempt made it.
// Providers another resource holds are not the claim's. The
// provider of its id dated before NotBefore is an error (errPredates): not
// the claim's, yet not absent.
func FindProviders(ctx context.Context, cl *coder.Client, c providerClaim, owned Owned) ([]codersdk.AIProvider, error) {
	var out []codersdk.AIProvider
	if c.ID != "" && !owned.has(c.ID) {
		p, err := cl.GetProvider(ctx, c.ID)
		switch {
		case err == nil:
			if err := notBefore("provider "+p.ID.String(), p.CreatedAt, c.NotBefore, cl.Clock()); err != nil {
				return nil, err
			}
			out = append(out, p)
		case !coder.IsNotFound(err):
			return nil, err
		}
	}
	if c.Name == "" || c.Attempt.IsZero() {
		return out, nil
	}
	p, err := cl.GetProvider(ctx, c.Name)
	if coder.IsNotFound(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if p.ID.String() == c.ID || owned.has(p.ID.String()) {
		return out, nil
	}
	ours, err := CreatedByAttempt(p.CreatedAt, c.Attempt, cl.Timeout(), cl.Clock())
	switch {
	case err != nil:
		return nil, err
	case !ours:
		return out, nil
	}
	return append(out, p), nil
}

// DeleteProvider asks Coder to delete (soft-delete) a provider by id; one
// already gone is fine.
func DeleteProvider(ctx context.Context, cl *coder.Client, id string) error {
	if err := cl.DeleteProvider(ctx, id); err != nil && !coder.IsNotFound(err) {
		return err
	}
	return nil
}

// KindMCPServer is the record kind of an MCP server.
const KindMCPServer = "MCPServer"

// An MCP server record names what a provider record does (providerClaimOf):
// its id once known, and its slug, which, like a provider's name, anyone
// may have chosen, so it counts only for a server Coder created within the
// window of the record's last create attempt, and only through the
// ProviderConfig that made it.
func findMCPServers(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found {
	out := make([]found, len(recs))
	for i, rec := range recs {
		c, err := providerClaimOf(rec, ByName(originOf(rec), l.now))
		if err == nil {
			var ss []codersdk.MCPServerConfig
			ss, err = FindMCPServers(ctx, l.cl, c, l.owned)
			for _, s := range ss {
				out[i].ids = append(out[i].ids, s.ID.String())
			}
		}
		out[i].err = err
	}
	return out
}

// FindMCPServers returns the MCP servers in Coder the claim owns: the one
// of its id, and the one of its slug (the claim's Name) if the claim's
// create attempt made it. Servers another resource holds are not the
// claim's; the server of its id dated before NotBefore is an error
// (errPredates): not the claim's, yet not absent. Coder reads a server by
// id only, so the slug is looked up on the list.
func FindMCPServers(ctx context.Context, cl *coder.Client, c providerClaim, owned Owned) ([]codersdk.MCPServerConfig, error) {
	var out []codersdk.MCPServerConfig
	if id, err := uuid.Parse(c.ID); err == nil && !owned.has(c.ID) {
		s, err := cl.GetMCPServer(ctx, id)
		switch {
		case err == nil:
			if err := notBefore("MCP server "+s.ID.String(), s.CreatedAt, c.NotBefore, cl.Clock()); err != nil {
				return nil, err
			}
			out = append(out, s)
		case !coder.IsNotFound(err):
			return nil, err
		}
	}
	if c.Name == "" || c.Attempt.IsZero() {
		return out, nil
	}
	all, err := cl.ListMCPServers(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.Slug != c.Name || s.ID.String() == c.ID || owned.has(s.ID.String()) {
			continue
		}
		ours, err := CreatedByAttempt(s.CreatedAt, c.Attempt, cl.Timeout(), cl.Clock())
		if err != nil {
			return nil, err
		}
		if ours {
			out = append(out, s)
		}
	}
	return out, nil
}

// DeleteMCPServer asks Coder to delete an MCP server by id; one already
// gone is fine.
func DeleteMCPServer(ctx context.Context, cl *coder.Client, id string) error {
	u, err := uuid.Parse(id)
	if err != nil {
		return err
	}
	if err := cl.DeleteMCPServer(ctx, u); err != nil && !coder.IsNotFound(err) {
		return err
	}
	return nil
}
