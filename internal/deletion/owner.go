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
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/index"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	errListManaged = "cannot list managed resources to find the owner of a Coder object"
	errFmtOwned    = "the Coder object %s is owned by %s %s (UID %s); this resource does not adopt, import, change or delete it: remove its external name, or delete that resource first"
)

// An Owner is a managed resource that claims a Coder object, by one of its
// cleanup records or by its external name.
type Owner struct {
	UID       string
	Kind      string
	Namespace string
	Name      string
	// Record: a record names the object. Only the provider writes records,
	// so a record outranks any external name.
	Record bool
	// Created is set by the API server.
	Created time.Time
}

// OwnerOf decides which other resource, if any, owns an object self (a UID)
// claims. A record decides first; without one, the oldest live resource
// naming the object owns it, so a later one cannot take over by setting
// the same external name.
func OwnerOf(self string, claims []Owner) (Owner, bool) {
	var recorded, live []Owner
	for _, c := range claims {
		if c.Record {
			recorded = append(recorded, c)
		} else {
			live = append(live, c)
		}
	}
	pick := recorded
	if len(recorded) == 0 {
		pick = live
	}
	if len(pick) == 0 || slices.ContainsFunc(recorded, func(c Owner) bool { return c.UID == self }) {
		return Owner{}, false
	}
	slices.SortStableFunc(pick, olderFirst)
	if pick[0].UID == self {
		return Owner{}, false
	}
	return pick[0], true
}

func olderFirst(a, b Owner) int {
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return strings.Compare(a.UID, b.UID)
}

// ErrOwned is the error of a resource that names an object another
// resource owns. It names that resource, and nothing secret.
func ErrOwned(id string, owner Owner) error {
	return errors.Errorf(errFmtOwned, id, owner.Kind, objectName(owner.Namespace, owner.Name), owner.UID)
}

// owners gathers every resource that claims id in the Coder at now: the
// owners of records made through it, and live resources whose
// ProviderConfig reaches it (self whatever its ProviderConfig). It reads
// the cache.
func (r *Store) owners(ctx context.Context, self, id string, kinds []apis.ManagedKind, now Origin) ([]Owner, error) {
	recs, live, liveKinds, err := r.naming(ctx, id, kinds)
	if err != nil {
		return nil, err
	}
	var out []Owner
	for i := range recs {
		if !SpeaksOf(&recs[i], now) {
			continue
		}
		m := recs[i].Spec.ManagedResource
		out = append(out, Owner{UID: recs[i].GetLabels()[ManagedResourceUIDLabel], Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, Record: true})
	}
	for i, mg := range live {
		// self is never its own owner (OwnerOf), so its poll reads no
		// ProviderConfig.
		if string(mg.GetUID()) != self && !r.reaches(ctx, mg, now) {
			continue
		}
		out = append(out, Owner{
			UID: string(mg.GetUID()), Kind: liveKinds[i], Namespace: mg.GetNamespace(), Name: mg.GetName(),
			Created: mg.GetCreationTimestamp().Time,
		})
	}
	return out, nil
}

// naming reads, by the cache's indexes, the records that name id and the
// live resources of kinds whose external name is id, with each one's kind.
func (r *Store) naming(ctx context.Context, id string, kinds []apis.ManagedKind) ([]clusterv1alpha1.CleanupRecord, []resource.Managed, []string, error) {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l, client.MatchingFields{index.RecordExternalID: id}); err != nil {
		return nil, nil, nil, errors.Wrap(err, errListRecords)
	}
	var recs []clusterv1alpha1.CleanupRecord
	for i := range l.Items {
		if l.Items[i].Status.ExternalID == id && l.Items[i].GetLabels()[ManagedResourceUIDLabel] != "" {
			recs = append(recs, l.Items[i])
		}
	}
	var live []resource.Managed
	var liveKinds []string
	for _, k := range kinds {
		ml := k.NewList()
		if err := r.kube.List(ctx, ml, client.MatchingFields{index.ManagedExternalName: id}); err != nil {
			return nil, nil, nil, errors.Wrap(err, errListManaged)
		}
		for _, mg := range ml.GetItems() {
			if meta.GetExternalName(mg) == id {
				live, liveKinds = append(live, mg), append(liveKinds, k.Kind)
			}
		}
	}
	return recs, live, liveKinds, nil
}

// OwnedByAnother returns the error naming the owner of id in the Coder at
// now when it is not mg; err is a failure to find out. No records (nil)
// know no owners.
func (r *Store) OwnedByAnother(ctx context.Context, mg resource.Managed, id string, now Origin) (owned, err error) {
	if r == nil {
		return nil, nil
	}
	// Only kinds of the same Coder object can claim it; records of any
	// kind count.
	cs, err := r.owners(ctx, string(mg.GetUID()), id, apis.SameCoderKinds(mg), now)
	if err != nil {
		return nil, err
	}
	if owner, ok := OwnerOf(string(mg.GetUID()), cs); ok {
		return ErrOwned(id, owner), nil
	}
	return nil, nil
}

// reaches reports whether mg's ProviderConfig reaches the Coder at now
// (Speaks), by its URL until it reports a deployment. One that cannot be
// read may reach any Coder, so the claim counts: refusing an import waits
// for a human, adopting another's object cannot be undone.
func (r *Store) reaches(ctx context.Context, mg resource.Managed, now Origin) bool {
	ref, err := providerconfig.RefOf(mg)
	if err != nil {
		return true
	}
	pc, err := providerconfig.Get(ctx, r.kube, ref)
	if err != nil {
		return true
	}
	at := Origin{ProviderConfig: clusterv1alpha1.RecordedProviderConfig{URL: coder.CanonicalURL(providerconfig.ConnectionOf(pc).URL)}}
	if at.DeploymentID = providerconfig.StatusOf(pc).DeploymentID; at.DeploymentID == "" {
		now.DeploymentID = ""
	}
	return Speaks(at, now)
}

// Speaks reports whether what was made at o (a record's origin, or the
// Coder a live resource reaches) speaks of the Coder at now. It is the one
// rule of ownership per Coder (DESIGN §9), applied before every decision
// of who owns or holds an object, so a tenant's own server answering with
// ids it saw in the platform's Coder can shield, block or adopt nothing
// there. Until now's deployment is known the URL alone decides and a
// record of no URL speaks: counting another deployment's record refuses or
// holds, missing one of ours would adopt or delete.
func Speaks(o, now Origin) bool {
	if now.DeploymentID == "" {
		return o.Legacy() || o.ProviderConfig.URL == now.ProviderConfig.URL
	}
	return o.SameCoder(now)
}

// SpeaksOf reports whether rec speaks of the Coder at now (Speaks); callers
// test it in their own loop, so the sweep copies no record.
func SpeaksOf(rec *clusterv1alpha1.CleanupRecord, now Origin) bool {
	return Speaks(originOf(rec), now)
}

// liveOwners are, by id, the UIDs of the live resources that hold a Coder
// object: their external name is its id and a record of their own, of the
// Coder acted on, names it too. An external name alone is anyone's to
// write and would keep a released key alive. The one rule of who holds an
// object, for the sweep and a deleting resource's look alike.
type liveOwners map[string][]string

// liveOwnersOf decides who holds what from the records and live resources
// the caller read, in the Coder at now.
func liveOwnersOf(recs []clusterv1alpha1.CleanupRecord, live []resource.Managed, now Origin) liveOwners {
	recorded := make(map[[2]string]bool, len(recs))
	for i := range recs {
		if id := recs[i].Status.ExternalID; id != "" && SpeaksOf(&recs[i], now) {
			recorded[[2]string{recs[i].GetLabels()[ManagedResourceUIDLabel], id}] = true
		}
	}
	h := liveOwners{}
	for _, mg := range live {
		uid := string(mg.GetUID())
		if id := meta.GetExternalName(mg); id != "" && recorded[[2]string{uid, id}] && !slices.Contains(h[id], uid) {
			h[id] = append(h[id], uid)
		}
	}
	return h
}

// Except is what resources other than uids hold, which a delete for uids
// must leave alone.
func (h liveOwners) Except(uids ...string) Owned {
	return func(id string) bool {
		return slices.ContainsFunc(h[id], func(uid string) bool { return !slices.Contains(uids, uid) })
	}
}

// clockSkew is how far the API server's clock, which dates a record, may
// run ahead of ours. Coder's own clock is never compared with ours.
const clockSkew = time.Minute

// NotBefore is the earliest time (our clock) Coder can have created what
// rec names: a create's record was written before the create, and its
// creation time is the API server's, which no editor can change. An
// import's record (no Coder name) postdates its object: zero.
func NotBefore(rec *clusterv1alpha1.CleanupRecord) time.Time {
	if rec.Status.CoderName == "" {
		return time.Time{}
	}
	return rec.CreationTimestamp.Add(-clockSkew)
}

// keyClaimOf is what a key record names: the id once known, and the
// UID-derived name, which finds the key when the id went stale.
func keyClaimOf(rec *clusterv1alpha1.CleanupRecord) KeyClaim {
	return KeyClaim{IDs: []string{rec.Status.ExternalID}, Name: nameIs(rec.Status.CoderName), NotBefore: NotBefore(rec)}
}

// OwnedByOthers reports what another live resource holds in the Coder at
// now (liveOwners), read from the cache one id at a time. An id whose
// holders could not be read counts as held, so nothing is deleted on a
// guess, and the failure (second result) fails the verification.
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

// otherDeployment errs when a record of recs names another Coder than the
// client reaches now: that Coder not listing the object says nothing of
// the one that holds it. The deployment is asked now, as the
// ProviderConfig's status may predate a change of URL. It returns where
// the client reaches now.
func (p Pass) otherDeployment(ctx context.Context, recs Set) (Origin, error) {
	now := p.Origin
	named := recs.Origins()
	if len(named) == 0 || p.Deployment == nil {
		return now, nil
	}
	var err error
	if now.DeploymentID, err = p.Deployment(ctx); err != nil {
		return now, errors.Wrap(err, errVerifyDeployment)
	}
	return now, OtherCoder(recs, now)
}

// OtherCoder is the error of a resource whose records were made through
// another Coder than now. It is the one rule by which a resource acts on a
// Coder, live or deleting (DESIGN §9): no other Coder's answer counts as
// gone, and no id is read, adopted, changed or deleted where it may name
// another object. Without records it names no Coder yet.
func OtherCoder(recs Set, now Origin) error {
	for _, o := range recs.Origins() {
		if !o.SameCoder(now) {
			return &otherDeploymentError{Recorded: o, Now: now}
		}
	}
	return nil
}

// An Origin is where a create is sent, so where its object lives: the
// deployment, and the ProviderConfig with the canonical URL it named. A
// deployment id is only what a server says (a staging Coder restored from
// production's database says production's), so a tenant's server claiming
// the platform's id is still another origin.
type Origin struct {
	DeploymentID string
	// ProviderConfig is zero on a record written before records named one.
	ProviderConfig clusterv1alpha1.RecordedProviderConfig
}

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
// o; only then does its "gone" count, and may it delete by id.
func (o Origin) SameCoder(now Origin) bool {
	return o.DeploymentID != "" && o.DeploymentID == now.DeploymentID &&
		(o.Legacy() || o.ProviderConfig.URL == now.ProviderConfig.URL)
}

// MadeBy reports whether now is the ProviderConfig that made o, still at
// the same Coder: only its credentials may delete an object found by a
// name its owner does not derive from its UID.
func (o Origin) MadeBy(now Origin) bool {
	a, b := o.ProviderConfig, now.ProviderConfig
	return !o.Legacy() && o.SameCoder(now) && a.Group == b.Group && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

// ByName reports whether a client at now may find, and delete, what was
// made at o by a name its owner chose: it is the ProviderConfig that made
// it, or, for a record that names none, one of the same deployment.
func ByName(o, now Origin) bool { return o.MadeBy(now) || (o.Legacy() && o.SameCoder(now)) }

// String is o as conditions and events name it.
func (o Origin) String() string {
	if o.Legacy() {
		return "deployment " + o.DeploymentID
	}
	pc := o.ProviderConfig
	return "deployment " + o.DeploymentID + " at " + pc.URL + " (" + pc.Kind + " " + objectName(pc.Namespace, pc.Name) + ")"
}

// An otherDeploymentError says a resource's object lives in another Coder,
// or was made through another ProviderConfig, than it reaches now.
type otherDeploymentError struct{ Recorded, Now Origin }

func (e *otherDeploymentError) Error() string {
	return "the cleanup record names " + e.Recorded.String() +
		", which made the object, but the resource now reaches " + e.Now.String() +
		": nothing is created or deleted for this resource until its ProviderConfig (or providerConfigRef) reaches the Coder of the record again" +
		"; a deleting resource is released without delete once the hold's bounds pass, counted, and its record stays for the sweep of that Coder"
}
