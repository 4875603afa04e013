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

// An Owner is a resource that claims a Coder object, by record or name.
type Owner struct {
	UID       string
	Kind      string
	Namespace string
	Name      string
	// Record: a record, only the provider's to write, outranks any name.
	Record  bool
	Created time.Time
}

// OwnerOf decides which other resource, if any, owns an object self (a UID)
// claims: a record decides first, else the oldest live resource naming it,
// so a later one cannot take over by setting the same external name.
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

// ErrOwned names the resource that owns id, and nothing secret.
func ErrOwned(id string, owner Owner) error {
	return errors.Errorf(errFmtOwned, id, owner.Kind, objectName(owner.Namespace, owner.Name), owner.UID)
}

// owners gathers from the cache who claims id in the Coder at now: records
// made through it, and live resources whose ProviderConfig reaches it.
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
		// self is never its own owner (OwnerOf), so its poll reads no ProviderConfig.
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

// OwnedByAnother returns the error naming id's owner in the Coder at now
// when it is not mg; err is a failure to find out.
func (r *Store) OwnedByAnother(ctx context.Context, mg resource.Managed, id string, now Origin) (owned, err error) {
	if r == nil {
		return nil, nil
	}
	cs, err := r.owners(ctx, string(mg.GetUID()), id, apis.SameCoderKinds(mg), now)
	if err != nil {
		return nil, err
	}
	if owner, ok := OwnerOf(string(mg.GetUID()), cs); ok {
		return ErrOwned(id, owner), nil
	}
	return nil, nil
}

// reaches reports whether mg's ProviderConfig reaches the Coder at now. One
// that cannot be read may reach any, so the claim counts: a refused import
// waits for a human, an adopted object of another's cannot be undone.
func (r *Store) reaches(ctx context.Context, mg resource.Managed, now Origin) bool {
	ref, err := providerconfig.RefOf(mg)
	if err != nil {
		return true
	}
	pc, err := providerconfig.Get(ctx, r.kube, ref)
	if err != nil {
		return true
	}
	// One that has not reported its deployment yet is judged by its URL.
	at := Origin{ProviderConfig: clusterv1alpha1.RecordedProviderConfig{URL: coder.CanonicalURL(providerconfig.ConnectionOf(pc).URL)}}
	if at.DeploymentID = providerconfig.StatusOf(pc).DeploymentID; at.DeploymentID == "" {
		now.DeploymentID = ""
	}
	return Speaks(at, now)
}

// Speaks reports whether what was made at o speaks of the Coder at now: the
// one rule of ownership per Coder (DESIGN §9), applied before every decision
// of who owns or holds an object, so a tenant's server answering with the
// platform's ids can shield, block or adopt nothing. Until now's deployment
// is known the URL decides, and a legacy record speaks: wrongly counting one
// refuses or holds, wrongly missing one of ours adopts or deletes.
func Speaks(o, now Origin) bool {
	if now.DeploymentID == "" {
		return o.Legacy() || o.ProviderConfig.URL == now.ProviderConfig.URL
	}
	return o.SameCoder(now)
}

// SpeaksOf is Speaks for a record, in the caller's loop so the sweep copies none.
func SpeaksOf(rec *clusterv1alpha1.CleanupRecord, now Origin) bool {
	return Speaks(originOf(rec), now)
}

// liveOwners are, by id, the live resources that hold an object: their
// external name is its id and a record of their own, of the Coder acted on,
// names it. An external name alone is anyone's to write.
type liveOwners map[string][]string

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

// Except is what others than uids hold, which a delete for uids leaves.
func (h liveOwners) Except(uids ...string) Owned {
	return func(id string) bool {
		return slices.ContainsFunc(h[id], func(uid string) bool { return !slices.Contains(uids, uid) })
	}
}

// clockSkew is how far the API server's clock may run ahead of ours.
const clockSkew = time.Minute

// NotBefore is the earliest time (our clock) Coder can have created what a
// create's record names, by the creation time the API server set; zero for
// an import's record (no Coder name), which postdates its object.
func NotBefore(rec *clusterv1alpha1.CleanupRecord) time.Time {
	if rec.Status.CoderName == "" {
		return time.Time{}
	}
	return rec.CreationTimestamp.Add(-clockSkew)
}

// keyClaimOf's UID-derived name finds the key when the id went stale.
func keyClaimOf(rec *clusterv1alpha1.CleanupRecord) KeyClaim {
	return KeyClaim{IDs: []string{rec.Status.ExternalID}, Name: nameIs(rec.Status.CoderName), NotBefore: NotBefore(rec)}
}

// OwnedByOthers reports what another live resource holds in the Coder at
// now; an id whose holders cannot be read counts as held, so nothing is
// deleted on a guess, and the failure fails the verification.
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

// otherDeployment errs when a record names another Coder than the client
// reaches now, whose not listing the object says nothing. The deployment is
// asked now: the ProviderConfig's status may predate a change of URL.
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

// OtherCoder is the error of records made through another Coder than now:
// the one rule by which a resource, live or deleting, acts on a Coder
// (DESIGN §9), as no other Coder's answer counts and its ids name others.
func OtherCoder(recs Set, now Origin) error {
	for _, o := range recs.Origins() {
		if !o.SameCoder(now) {
			return &otherDeploymentError{Recorded: o, Now: now}
		}
	}
	return nil
}

// An Origin is where a create is sent: the deployment and the
// ProviderConfig with its URL, as a deployment id is only what a server says
// (a staging Coder restored from production's says production's).
type Origin struct {
	DeploymentID string
	// ProviderConfig is zero on a legacy record.
	ProviderConfig clusterv1alpha1.RecordedProviderConfig
}

func originOf(rec *clusterv1alpha1.CleanupRecord) Origin {
	o := Origin{DeploymentID: rec.Spec.DeploymentID}
	if pc := rec.Spec.ProviderConfig; pc != nil {
		o.ProviderConfig = *pc
	}
	return o
}

// Legacy reports whether o is a record's that names no ProviderConfig.
func (o Origin) Legacy() bool { return o.ProviderConfig == clusterv1alpha1.RecordedProviderConfig{} }

// Spec is o's ProviderConfig as a record's spec holds it.
func (o Origin) Spec() *clusterv1alpha1.RecordedProviderConfig {
	if o.Legacy() {
		return nil
	}
	pc := o.ProviderConfig
	return &pc
}

// SameCoder reports whether a client at now answers for what was made at o:
// only then does its "gone" count, and may it delete by id.
func (o Origin) SameCoder(now Origin) bool {
	return o.DeploymentID != "" && o.DeploymentID == now.DeploymentID &&
		(o.Legacy() || o.ProviderConfig.URL == now.ProviderConfig.URL)
}

// MadeBy reports whether now is the ProviderConfig that made o, at the same
// Coder: only its credentials may delete by a name its owner chose.
func (o Origin) MadeBy(now Origin) bool {
	a, b := o.ProviderConfig, now.ProviderConfig
	return !o.Legacy() && o.SameCoder(now) && a.Group == b.Group && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

// ByName reports whether a client at now may find and delete what was made
// at o by a name its owner chose (MadeBy, or a legacy record's deployment).
func ByName(o, now Origin) bool { return o.MadeBy(now) || (o.Legacy() && o.SameCoder(now)) }

// String is o as conditions and events name it.
func (o Origin) String() string {
	if o.Legacy() {
		return "deployment " + o.DeploymentID
	}
	pc := o.ProviderConfig
	return "deployment " + o.DeploymentID + " at " + pc.URL + " (" + pc.Kind + " " + objectName(pc.Namespace, pc.Name) + ")"
}

// An otherDeploymentError: the object lives in another Coder than now.
type otherDeploymentError struct{ Recorded, Now Origin }

func (e *otherDeploymentError) Error() string {
	return "the cleanup record names " + e.Recorded.String() +
		", which made the object, but the resource now reaches " + e.Now.String() +
		": nothing is created or deleted for this resource until its ProviderConfig (or providerConfigRef) reaches the Coder of the record again" +
		"; a deleting resource is released without delete once the hold's bounds pass, counted, and its record stays for the sweep of that Coder"
}
