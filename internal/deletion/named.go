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

// A providerClaim names an object under a name users choose and anyone may
// reuse: found by name, it is the claim's only if Coder created it within
// the window of the owner's last create attempt whose answer may be lost.
type providerClaim struct {
	ID   string
	Name string
	// Attempt is when the last create was sent; zero if none may have
	// written anything.
	Attempt   time.Time
	NotBefore time.Time
}

const errFmtOnlyCreatorFinds = "the provider this record names has no recorded id, only the name its creator chose, and only the ProviderConfig that made it may find it by name: the record is kept until %s is Ready again; if it was deleted, make it again there (same kind, namespace, name and URL)"

// providerClaimOf counts the name only through the ProviderConfig that made
// the record (byName); elsewhere a record without an id waits for it.
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

// A namedKind finds objects whose name users choose (AI providers, MCP
// servers) by the one rule of providerClaimOf.
type namedKind[T any] struct {
	noun string
	// byID's bool is false for a 404, or an id Coder cannot hold.
	byID   func(ctx context.Context, cl *coder.Client, id string) (T, bool, error)
	byName func(ctx context.Context, cl *coder.Client, name string) ([]T, error)
	about  func(T) (string, time.Time)
}

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

// mcpServers: Coder reads one by id only, so a slug is found on the list.
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

func present[T any](o T, err error) (T, bool, error) {
	if coder.IsNotFound(err) {
		return o, false, nil
	}
	return o, err == nil, err
}

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

// owned returns the ids the claim owns, by id and by its attempt's name,
// never one another resource holds.
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

const errFmtPendingCreate = "the Coder %s named %q may be the result of a create of %s %s (UID %s) whose answer was lost, which that resource may still adopt; this resource does not import, change or delete it: wait until that resource is Ready or deleted, or delete it first"

// PendingCreateOf decides which other resource may own the object of kind
// named name that no record names by id: one whose record of the Coder at
// now holds a create attempt of that name whose answer was lost.
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

// PendingCreateByAnother returns the error naming another resource whose
// lost create may have written name at now. It reads every record: for a
// one-time decision (an import), not a poll.
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

func nounOf(kind string) string {
	if kind == KindMCPServer {
		return "MCP server"
	}
	return "provider"
}

// An Adoption is what a live resource without an external name does with
// the object under the name its creates ask for.
type Adoption int

// The adoptions.
const (
	// AdoptNone: the create follows (Coder answers 409 if it is taken).
	AdoptNone Adoption = iota
	// AdoptFound: the resource's own lost create wrote it.
	AdoptFound
	// RefuseTaken: someone else's object holds the name.
	RefuseTaken
)

// AdoptByName decides it from the record's attempt (LastAttempt), whether
// Coder holds the name, and whether its create falls in the attempt's window.
// Only the record proves an attempt: taking a later create refused unsent
// for the last word once leaked a provider (soak seed 777365623978).
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

// TakenByAnother names who owns id or may have created name, when not mg.
func (r *Store) TakenByAnother(ctx context.Context, mg resource.Managed, kind, id, name string, now Origin) (taken, err error) {
	owned, err := r.OwnedByAnother(ctx, mg, id, now)
	if owned != nil || err != nil {
		return owned, err
	}
	return r.PendingCreateByAnother(ctx, mg, kind, name, now)
}

// LastAttempt is when mg's last create of unknown outcome was sent, read past
// the cache: the record is the only proof an object found by name is mg's.
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

// CreatedByAttempt reports whether an object Coder dated createdAt can come
// from a create sent at attempt (our clock) within its timeout, compared on
// Coder's clock, which may run minutes apart from ours.
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

// The skew around an attempt on Coder's clock: both the attempt and the
// Date are whole seconds, and Coder dates rows at commit.
const (
	skewBefore = 5 * time.Second
	skewAfter  = 30 * time.Second
)
