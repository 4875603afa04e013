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
	"slices"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

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

// errFmtOnlyCreatorFinds is the error of a provider record without an id,
// swept by a ProviderConfig other than its creator.
const errFmtOnlyCreatorFinds = "the provider this record names has no recorded id, only the name its creator chose, and only the ProviderConfig that made it may find it by name: the record is kept until %s is Ready again; if it was deleted, make it again there (same kind, namespace, name and URL)"

// providerClaimOf is what a provider record names: its id once known, and its
// name, which counts only for a provider Coder created within the window of
// the record's last create attempt, and only through the ProviderConfig
// that made it (byName). A provider the record knows by that name only
// cannot be found through another ProviderConfig, so its absence cannot be
// verified there: the error says so, and the record waits for its creator.
func providerClaimOf(rec *clusterv1alpha1.CleanupRecord, byName bool) (providerClaim, error) {
	c := providerClaim{ID: rec.Status.ExternalID, Name: rec.Status.CoderName, NotBefore: NotBefore(rec)}
	if t := rec.Status.CreateAttemptedAt; t != nil && byName {
		c.Attempt = t.Time
	}
	if c.ID == "" && !byName && rec.Status.CreateAttemptedAt != nil {
		return c, errors.Errorf(errFmtOnlyCreatorFinds, originOf(rec))
	}
	return c, nil
}

// A namedKind is how deletion finds one kind of object whose name users
// choose (an AI provider's name, an MCP server's slug), so a name proves
// nothing on its own: by id, and by that name only within the window of
// the record's last create attempt, and only through the ProviderConfig
// that made it (providerClaimOf). Every kind so named shares this one
// rule; what differs is how Coder reads it.
type namedKind[T any] struct {
	// noun names the kind in messages.
	noun string
	// byID reads the object of id; its bool is false for one Coder does
	// not hold (404), or an id it cannot hold.
	byID func(ctx context.Context, cl *coder.Client, id string) (T, bool, error)
	// byName returns the objects Coder holds under name.
	byName func(ctx context.Context, cl *coder.Client, name string) ([]T, error)
	// about is an object's id and Coder's time of its creation.
	about func(T) (string, time.Time)
}

// providers are the AI providers: read by id or name alike.
var providers = namedKind[codersdk.AIProvider]{
	noun: "provider",
	byID: func(ctx context.Context, cl *coder.Client, id string) (codersdk.AIProvider, bool, error) {
		return present(cl.GetProvider(ctx, id))
	},
	byName: func(ctx context.Context, cl *coder.Client, name string) ([]codersdk.AIProvider, error) {
		p, ok, err := present(cl.GetProvider(ctx, name))
		if !ok {
			return nil, err
		}
		return []codersdk.AIProvider{p}, nil
	},
	about: func(p codersdk.AIProvider) (string, time.Time) { return p.ID.String(), p.CreatedAt },
}

// mcpServers are the MCP servers: Coder reads one by id only, so the slug
// is looked up on the list.
var mcpServers = namedKind[codersdk.MCPServerConfig]{
	noun: "MCP server",
	byID: func(ctx context.Context, cl *coder.Client, id string) (codersdk.MCPServerConfig, bool, error) {
		u, err := uuid.Parse(id)
		if err != nil {
			return codersdk.MCPServerConfig{}, false, nil
		}
		return present(cl.GetMCPServer(ctx, u))
	},
	byName: func(ctx context.Context, cl *coder.Client, slug string) ([]codersdk.MCPServerConfig, error) {
		all, err := cl.ListMCPServers(ctx)
		return slices.DeleteFunc(all, func(s codersdk.MCPServerConfig) bool { return s.Slug != slug }), err
	},
	about: func(s codersdk.MCPServerConfig) (string, time.Time) { return s.ID.String(), s.CreatedAt },
}

// present is a read's answer with Coder's 404 taken for absent.
func present[T any](o T, err error) (T, bool, error) {
	if coder.IsNotFound(err) {
		return o, false, nil
	}
	return o, err == nil, err
}

// find is the registry's find of the kind (objectKinds): per record, the
// ids of what its claim owns.
func (k namedKind[T]) find(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found {
	out := make([]found, len(recs))
	for i, rec := range recs {
		c, err := providerClaimOf(rec, ByName(originOf(rec), l.now))
		if err == nil {
			out[i].ids, err = k.owned(ctx, l.cl, c, l.owned)
		}
		out[i].err = err
	}
	return out
}

// owned returns the ids of the objects in Coder the claim owns: the one of
// its id, and the one of its name if the claim's create attempt made it.
// Objects another resource holds are not the claim's. The object of its id
// dated before NotBefore is an error (errPredates): not the claim's, yet
// not absent.
func (k namedKind[T]) owned(ctx context.Context, cl *coder.Client, c providerClaim, owned Owned) ([]string, error) {
	var out []string
	if c.ID != "" && !owned.has(c.ID) {
		o, ok, err := k.byID(ctx, cl, c.ID)
		if err != nil {
			return nil, err
		}
		if id, created := k.about(o); ok {
			if err := notBefore(k.noun+" "+id, created, c.NotBefore, cl.Clock()); err != nil {
				return nil, err
			}
			out = append(out, id)
		}
	}
	if c.Name == "" || c.Attempt.IsZero() {
		return out, nil
	}
	named, err := k.byName(ctx, cl, c.Name)
	if err != nil {
		return nil, err
	}
	for _, o := range named {
		id, created := k.about(o)
		if id == c.ID || owned.has(id) {
			continue
		}
		ours, err := CreatedByAttempt(created, c.Attempt, cl.Timeout(), cl.Clock())
		if err != nil {
			return nil, err
		}
		if ours {
			out = append(out, id)
		}
	}
	return out, nil
}

// errFmtPendingCreate names the resource whose create may have written the
// provider, and nothing secret.
const errFmtPendingCreate = "the Coder %s named %q may be the result of a create of %s %s (UID %s) whose answer was lost, which that resource may still adopt; this resource does not import, change or delete it: wait until that resource is Ready or deleted, or delete it first"

// PendingCreateOf decides which other resource, if any, may own the Coder
// object of record kind kind (an AI provider, an MCP server: objects
// named by a name users choose) named name although no record names its id: one whose record
// names the provider by that name and carries a create attempt whose
// answer was lost. Such a resource adopts the provider it finds by name
// when Coder created it after the attempt, so nothing else may take it
// meanwhile. self (a UID) is never its own rival. Only records made
// through the Coder at now count (Speaks): a create sent to another Coder
// wrote nothing here.
func PendingCreateOf(kind, self, name string, recs []clusterv1alpha1.CleanupRecord, now Origin) (Owner, bool) {
	for i := range recs {
		rec := &recs[i]
		uid := rec.GetLabels()[ManagedResourceUIDLabel]
		pending := rec.Spec.Kind == kind && rec.Status.Phase != "" && rec.Status.CoderName == name &&
			rec.Status.ExternalID == "" && rec.Status.CreateAttemptedAt != nil && SpeaksOf(rec, now)
		if pending && uid != "" && uid != self {
			m := rec.Spec.ManagedResource
			return Owner{UID: uid, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, Record: true}, true
		}
	}
	return Owner{}, false
}

// PendingCreateByAnother returns the error naming the resource whose lost
// create may have written the Coder object of record kind kind named name in the Coder at now,
// when it is not mg (claimed); err is a failure to find out. It reads every cleanup record
// through the cache, so it suits a one-time decision such as an import by
// name, not a poll. No records (nil) know no claims.
func (r *Store) PendingCreateByAnother(ctx context.Context, mg resource.Managed, kind, name string, now Origin) (claimed, err error) {
	if r == nil {
		return nil, nil
	}
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l); err != nil {
		return nil, errors.Wrap(err, errListRecords)
	}
	c, ok := PendingCreateOf(kind, string(mg.GetUID()), name, l.Items, now)
	if !ok {
		return nil, nil
	}
	return errors.Errorf(errFmtPendingCreate, nounOf(kind), name, c.Kind, objectName(c.Namespace, c.Name), c.UID), nil
}

// nounOf is how messages name an object of record kind kind.
func nounOf(kind string) string {
	if kind == KindMCPServer {
		return "MCP server"
	}
	return "provider"
}

// An Adoption is what a live resource without an external name does with
// the object Coder holds under the name its creates ask for (an AI
// provider's name, an MCP server's slug).
type Adoption int

// The adoptions.
const (
	// AdoptNone: nothing of the resource's is there; its create follows,
	// and meets Coder's 409 if someone else holds the name.
	AdoptNone Adoption = iota
	// AdoptFound: the object is what the resource's own create, whose
	// answer was lost, wrote.
	AdoptFound
	// RefuseTaken: someone else's object holds the name.
	RefuseTaken
)

// AdoptByName decides, for every kind whose lost creates are found by name,
// what a live resource without an external name does with the
// object of that name: attempt is the create attempt its record holds
// (LastAttempt: written before each create, cleared once Coder answered
// one, so an attempt whose answer was lost stays there until a look
// settles it), found whether Coder holds an object of the name, and ours
// whether Coder created it within that attempt's window (CreatedByAttempt).
// The record is the only proof of an attempt, as it is for the deleting
// resource and the sweep (providerClaimOf): annotations on the resource are
// anyone's to write, and a later create refused unsent says nothing of an
// earlier one whose answer was lost. Taking such a refusal for the last
// word made the resource create again, meet Coder's 409 and clear its
// record, and the provider outlived it unrecorded (soak seed 777365623978).
func AdoptByName(attempt time.Time, found, ours bool) Adoption {
	switch {
	case !found:
		return AdoptNone
	case !attempt.IsZero() && ours:
		return AdoptFound
	default:
		return RefuseTaken
	}
}

// TakenByAnother is the error naming the resource that owns the Coder
// object id, or whose lost create may have written it under name, when
// that is not mg: an import by name (a provider's, an MCP server's slug)
// takes neither. err is a failure to find out, which imports nothing
// either.
func (r *Store) TakenByAnother(ctx context.Context, mg resource.Managed, kind, id, name string, now Origin) (taken, err error) {
	owned, err := r.OwnedByAnother(ctx, mg, id, now)
	if owned != nil || err != nil {
		return owned, err
	}
	return r.PendingCreateByAnother(ctx, mg, kind, name, now)
}

// LastAttempt is when mg's last create attempt whose outcome is unknown
// was sent, as its cleanup record says: the provider writes the record
// before every create and clears the time when Coder answered. Zero without
// a record or an attempt. It reads past the cache (reader), since a record
// written a moment ago must count: this is the only proof an object found
// by name is mg's, and annotations, which anyone editing mg can set, are
// not.
func LastAttempt(ctx context.Context, reader client.Reader, mg resource.Managed, kind string) (time.Time, error) {
	rec := &clusterv1alpha1.CleanupRecord{}
	err := reader.Get(ctx, types.NamespacedName{Name: Name(kind, mg.GetUID())}, rec)
	if kerrors.IsNotFound(err) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, errors.Wrap(err, errReadRecord)
	}
	if rec.GetLabels()[ManagedResourceUIDLabel] != string(mg.GetUID()) || rec.Spec.ManagedResource.UID != string(mg.GetUID()) || rec.Status.CreateAttemptedAt == nil {
		return time.Time{}, nil
	}
	return rec.Status.CreateAttemptedAt.Time, nil
}

// CreatedByAttempt reports whether an object Coder dated createdAt can be
// the result of a create sent at attempt (by our clock), whose request
// timeout bounded how late it could commit. The attempt is placed on
// Coder's clock first: Coder's clock may run minutes apart from ours. An
// object dated outside that window was created by someone else, before or
// after us. It is errUndated when clock is not known.
func CreatedByAttempt(createdAt, attempt time.Time, timeout time.Duration, clock coder.Clock) (bool, error) {
	if attempt.IsZero() {
		return false, nil
	}
	if !clock.Known() {
		return false, errUndated
	}
	at := clock.At(attempt)
	return !createdAt.Before(at.Add(-skewBefore)) && !createdAt.After(at.Add(timeout+skewAfter)), nil
}

// Clock skew allowed when matching Coder's creation time of an object to our
// create attempt, on Coder's clock: the attempt is recorded in whole seconds,
// before the request is sent; Coder dates rows when the request commits;
// and an answer's Date, which places the attempt on Coder's clock, is in
// whole seconds and stamped before the answer travelled.
const (
	skewBefore = 5 * time.Second
	skewAfter  = 30 * time.Second
)
