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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// Kinds a record can name.
const (
	KindKey          = "AIGatewayKey"
	KindProvider     = "AIProvider"
	KindGroupBudget  = "GroupAIBudget"
	KindUserOverride = "UserAIBudgetOverride"
)

// BudgetClaimOf is what a group budget or an override record names: the
// group's budget, or the user's override, while Coder shows the updated_at of the provider's last PUT, or, when
// that PUT's answer was lost, a change within its window.
func BudgetClaimOf(rec *clusterv1alpha1.CleanupRecord) BudgetClaim {
	c := BudgetClaim{ID: rec.Status.ExternalID, Override: rec.Spec.Kind == KindUserOverride, UpdatedAt: rec.Status.CoderUpdatedAt}
	if t := rec.Status.CreateAttemptedAt; t != nil {
		c.Attempt = t.Time
	}
	return c
}

// clockSkew is how far the API server's clock, which dates a
// record, may run ahead of the provider's, whose instants coderobj places
// on Coder's clock through the answer's Date before they meet Coder's
// timestamps. Coder's own clock may be anywhere: it is never compared with
// ours.
const clockSkew = time.Minute

// NotBefore is the earliest time, by our clock, Coder can have created
// what rec names: a record of a create (it names the Coder name) was
// written before the create, and the API server set its creation time,
// which nobody editing the record can change. A record edited to name an
// older object, or written by hand, deletes nothing made before it, and is
// not settled by it either. An import's record (no Coder name) was written
// after its object existed: zero.
func NotBefore(rec *clusterv1alpha1.CleanupRecord) time.Time {
	if rec.Status.CoderName == "" {
		return time.Time{}
	}
	return rec.CreationTimestamp.Add(-clockSkew)
}

// keyClaimOf is what a key record names: the key's id once known, and its
// UID-derived name, which finds the key even when the id went stale.
func keyClaimOf(rec *clusterv1alpha1.CleanupRecord) KeyClaim {
	return KeyClaim{IDs: []string{rec.Status.ExternalID}, Name: nameIs(rec.Status.CoderName), NotBefore: NotBefore(rec)}
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

// OwnedByOthers reports the Coder objects another live managed resource
// holds in the Coder at now (see liveOwners), read through the cache one id
// at a time. The
// second result is the first failure to find out; an object whose holders
// could not be read counts as held meanwhile, so nothing is deleted on a
// guess, and the failure fails the verification.
func (r *Store) OwnedByOthers(ctx context.Context, mg resource.Managed, now Origin) (Owned, func() error) {
	var first error
	self := string(mg.GetUID())
	owned := func(id string) bool {
		recs, live, _, err := r.naming(ctx, id, apis.ManagedKinds())
		if err != nil {
			if first == nil {
				first = err
			}
			return true
		}
		return liveOwnersOf(recs, live, now).Except(self)(id)
	}
	return owned, func() error { return first }
}

// An Origin is where a create is sent, and so where its object lives: the
// Coder deployment, and the ProviderConfig with the canonical URL it named.
// A deployment id is only what a server says of itself (buildinfo is
// public, and a staging Coder restored from production's database says
// production's), so the URL and the ProviderConfig are part of it: a
// tenant's server claiming the platform's deployment id is still another
// origin.
type Origin struct {
	DeploymentID string
	// ProviderConfig is zero on a record written before records named one.
	ProviderConfig clusterv1alpha1.RecordedProviderConfig
}

// originOf is where rec says its object was made.
func originOf(rec *clusterv1alpha1.CleanupRecord) Origin {
	o := Origin{DeploymentID: rec.Spec.DeploymentID}
	if pc := rec.Spec.ProviderConfig; pc != nil {
		o.ProviderConfig = *pc
	}
	return o
}

// Legacy reports whether o is a record's origin that names no
// ProviderConfig (written by an earlier release).
func (o Origin) Legacy() bool { return o.ProviderConfig == clusterv1alpha1.RecordedProviderConfig{} }

// Spec is o's ProviderConfig as a record's spec holds it.
func (o Origin) Spec() *clusterv1alpha1.RecordedProviderConfig {
	if o.Legacy() {
		return nil
	}
	pc := o.ProviderConfig
	return &pc
}

// SameCoder reports whether a client at now answers for what was made at
// o: the same deployment and, where o names one, the same canonical URL.
// Only then does its "gone" count, and only then may it delete by id.
func (o Origin) SameCoder(now Origin) bool {
	return o.DeploymentID != "" && o.DeploymentID == now.DeploymentID &&
		(o.Legacy() || o.ProviderConfig.URL == now.ProviderConfig.URL)
}

// MadeBy reports whether now is the ProviderConfig that made o, still
// reaching the same Coder: only its credentials may delete an object found
// by a name that its owner does not derive from its UID.
func (o Origin) MadeBy(now Origin) bool {
	a, b := o.ProviderConfig, now.ProviderConfig
	return !o.Legacy() && o.SameCoder(now) && a.Group == b.Group && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

// ByName reports whether a client at now may find, and delete, what was
// made at o by a name its owner chose (an AIProvider's), not only by
// recorded id or UID-derived name: it is the ProviderConfig that made it,
// or, for a record that names none, one of the same deployment.
func ByName(o, now Origin) bool { return o.MadeBy(now) || (o.Legacy() && o.SameCoder(now)) }

// String is o as the messages of conditions and events name it.
func (o Origin) String() string {
	if o.Legacy() {
		return "deployment " + o.DeploymentID
	}
	pc := o.ProviderConfig
	name := pc.Name
	if pc.Namespace != "" {
		name = pc.Namespace + "/" + name
	}
	return "deployment " + o.DeploymentID + " at " + pc.URL + " (" + pc.Kind + " " + name + ")"
}

// An otherDeploymentError says that a resource's object lives in another
// Coder (deployment or URL) or was made through another ProviderConfig
// than the resource reaches now.
type otherDeploymentError struct{ Recorded, Now Origin }

func (e *otherDeploymentError) Error() string {
	return "the cleanup record names " + e.Recorded.String() +
		", which made the object, but the resource now reaches " + e.Now.String() +
		": nothing is created or deleted for this resource until its ProviderConfig (or providerConfigRef) reaches the Coder of the record again" +
		"; a deleting resource is released without delete once the hold's bounds pass, counted, and its record stays for the sweep of that Coder"
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
	ref := c.Name
	if c.Namespace != "" {
		ref = c.Namespace + "/" + c.Name
	}
	return errors.Errorf(errFmtPendingCreate, nounOf(kind), name, c.Kind, ref, c.UID), nil
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
