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
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	errCreateThroughDeletingPC = "refusing to create in Coder: the ProviderConfig is being deleted"
	errCreateRefused           = "refusing to create in Coder"
	errDeleting                = "the managed resource is being deleted"
	errVerifyDeployment        = "cannot ask Coder which deployment it is"
	errDeleteAgain             = "Coder accepted this resource's last delete of the object but still shows it; deleted again"

	// ReasonCredentialsUnavailable is the failure reason when no Coder
	// client could be built (ProviderConfig or its Secret gone).
	ReasonCredentialsUnavailable = "CredentialsUnavailable"
	reasonStillPresent           = "StillPresent"
	// ReasonOtherDeployment is the release reason when the ProviderConfig
	// reaches another Coder deployment than the one that made the object.
	ReasonOtherDeployment = "OtherDeployment"
)

// DeleteFailureReasons are every reason a failed delete in Coder is
// counted under: the error classes and the reasons of the bounded pass.
func DeleteFailureReasons() []string {
	r := []string{ReasonCredentialsUnavailable, reasonStillPresent, ReasonOtherDeployment}
	for _, c := range coder.Classes() {
		r = append(r, string(c))
	}
	return r
}

// failureClass is the failure class of a delete or a look: an object
// still there after its delete, or the class of the call that failed.
func failureClass(err error) string {
	if isStillPresent(err) {
		return reasonStillPresent
	}
	return string(coder.ClassOf(err))
}

// A Pass is how a managed resource reaches Coder on this reconcile: its
// ProviderConfig's state decides between the normal path and the bounded
// pass (see providerconfig.DependentMode).
type Pass struct {
	Kind     string
	Mode     providerconfig.Mode
	Releases *Releases
	// CreateRefused, when set, says why creates through the ProviderConfig
	// are refused (providerconfig.CreateRefused).
	CreateRefused string
	// Records writes the cleanup record before anything is created.
	Records *Store
	// Origin is where a create goes now: the ProviderConfig, its canonical
	// URL and the deployment it last reported. Records name it.
	Origin Origin
	// CoderName is the name the object will have in Coder.
	CoderName func(resource.Managed) string
	// Deployment asks the Coder the client reaches now for its deployment
	// id; nil without a client. A delete is verified only in the
	// deployment that made the object (see otherDeployment).
	Deployment func(context.Context) (string, error)
	// Coder is the client the resource reaches now, which verifies that
	// what a deleting resource's records name is gone; nil without one.
	Coder *coder.Client
	// Keys, if set, is the key list the resource's ProviderConfig shares
	// (its scope: Scope): a deleting resource's records are looked up on
	// the list its own look read.
	Keys  *coder.KeyLister
	Scope string
	// Record, if set, receives the events of a deleting resource's look.
	Record event.Recorder
}

// otherDeployment returns an error when a record of recs names another
// Coder than the client reaches now: another deployment, or another URL (a
// ProviderConfig repointed to another Coder, or a resource moved to a
// ProviderConfig of one). That Coder not listing the object says nothing
// about the Coder that holds it, so no answer of this client may count as
// gone. The deployment is asked now, not taken from the ProviderConfig's
// status, which may predate a change of URL.
//
// It returns where the client reaches now, with the deployment asked when
// a record names one.
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

// OtherCoder is the error of a resource whose records (recs) were made
// through another Coder than now (SameCoder), nil when every record was
// made through now. It is the one rule by which a resource acts on a
// Coder, live or deleting: its records speak of the Coder they were made
// through only (DESIGN §9), so no answer of another Coder counts as gone,
// and no id its external name holds is read, adopted, changed or deleted
// there, where it names another object, whatever that Coder's server
// answered. A resource without records (an import before its first look)
// names no Coder yet.
func OtherCoder(recs Set, now Origin) error {
	for _, o := range recs.Origins() {
		if !o.SameCoder(now) {
			return &otherDeploymentError{Recorded: o, Now: now}
		}
	}
	return nil
}

// Live is a kind's own external client. It serves live resources only: a
// deleting resource is served by what its records name, through the kind's
// find and remove (objectKinds), so a kind has no Delete of its own.
type Live[R resource.Managed] interface {
	Observe(ctx context.Context, mg R) (managed.ExternalObservation, error)
	Create(ctx context.Context, mg R) (managed.ExternalCreation, error)
	Update(ctx context.Context, mg R) (managed.ExternalUpdate, error)
	Disconnect(ctx context.Context) error
}

// Wrap returns the external client the managed reconciler uses for a
// resource of type R: the kind's own client while the resource lives, its
// records once it is deleting. inner may be nil in a bounded pass when no
// Coder client could be built: the resource then releases without a delete.
//
// Observe only reads Coder and Delete only deletes, as crossplane-runtime's
// contract asks: a deleting resource's Observe reports its object as
// existing while anything its records name is left in Coder, the
// reconciler calls Delete, and the next reconcile's Observe verifies. The
// reconciler calls neither for a deleting resource whose policies exclude
// Delete (it lets go at once), so the pass does not ask again.
func Wrap[R resource.Managed](p Pass, inner Live[R]) managed.TypedExternalClient[R] {
	n := &untilGone[R]{inner: inner, pass: p}
	if p.Mode == providerconfig.ModeBoundedPass {
		return &boundedPass[R]{n: n}
	}
	return n
}

// untilGone is the normal path: failures are errors, so the reconciler keeps the
// finalizer and retries while the ProviderConfig holds.
type untilGone[R resource.Managed] struct {
	inner Live[R]
	pass  Pass
	// left is what a deleting resource's Observe found for Delete.
	left Leftovers
}

func (n *untilGone[R]) Observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	if !meta.WasDeleted(mg) {
		return n.observe(ctx, mg)
	}
	// A bounded pass of an earlier reconcile may have given up; this one
	// deletes for real.
	n.pass.Releases.forget(mg.GetUID())
	left, err := n.pass.find(ctx, mg)
	switch Next(providerconfig.ModeNormal, PassResult{ObserveErr: err, Existed: !left.empty()}) {
	case StepRetry:
		return managed.ExternalObservation{}, err
	case StepDelete:
		n.left = left
		return managed.ExternalObservation{ResourceExists: true}, nil
	}
	n.pass.Releases.verified(mg.GetUID())
	return managed.ExternalObservation{}, nil
}

// find is a deleting resource's look: what its records name that is left
// in the Coder the client reaches now, and nothing else. Its external name
// and annotations, which anyone editing it may set, decide nothing, and
// the kind's own client is not asked. A look that finds nothing is
// believed only on records read past the cache, where a record written a
// moment ago cannot be missing, and, before any delete was sent, on a key
// list sent now. A resource without records asks Coder nothing: nothing
// was ever created for it (Coder may refuse every call, as a deployment
// without the licence keys need does, or be down).
func (p Pass) find(ctx context.Context, mg resource.Managed) (Leftovers, error) {
	if p.Records == nil {
		return Leftovers{}, nil
	}
	since, deleted := p.Releases.DeletedAt(mg.GetUID())
	recs, err := p.Records.Of(ctx, mg)
	if err != nil {
		return nil, err
	}
	if len(recs.recs) == 0 {
		// Only a resource without a record may be an import deleted
		// before its first look; the look past the cache below finds
		// the record written for it.
		if err := p.adoptNamed(ctx, mg); err != nil {
			return nil, err
		}
	}
	left, err := p.lookAt(ctx, mg, recs, since)
	if err != nil || !left.empty() {
		return left, err
	}
	past, err := p.Records.Past(ctx, mg)
	if err != nil || (deleted && past.same(recs)) {
		// The look after a delete went by the list sent after Coder
		// answered it, and by every record there is.
		return left, err
	}
	if !deleted {
		since = time.Now()
	}
	return p.lookAt(ctx, mg, past, since)
}

// lookAt is what recs name that is left in the Coder the client reaches
// now, on a key list sent after since, when every record speaks of it.
func (p Pass) lookAt(ctx context.Context, mg resource.Managed, recs Set, since time.Time) (Leftovers, error) {
	now, err := p.otherDeployment(ctx, recs)
	if err != nil {
		return nil, err
	}
	return p.recordsLeft(ctx, mg, recs, now, since)
}

// adoptNamed records the object a deleting import names by its external
// name when the resource has no record at all: it was deleted before a
// live Observe recorded it (EnsureAdopted). An external name counts for
// nothing else, and never for an object another resource owns.
func (p Pass) adoptNamed(ctx context.Context, mg resource.Managed) error {
	id := meta.GetExternalName(mg)
	if _, err := uuid.Parse(id); err != nil || !policy.MayDelete(mg) {
		return nil
	}
	if owned, err := p.Records.OwnedByAnother(ctx, mg, id, p.Origin); owned != nil || err != nil {
		return err
	}
	return p.Records.EnsureAdopted(ctx, mg, p.Kind, p.Origin, id)
}

// Delete deletes what Observe found its records name. A delete of an
// object Coder accepted before, in this resource's last delete, is an
// error the resource's condition shows: Coder keeps what it said it
// deleted.
func (n *untilGone[R]) Delete(ctx context.Context, mg R) (managed.ExternalDelete, error) {
	uid, ids, start := mg.GetUID(), n.left.ids(), time.Now()
	again := n.pass.Releases.acceptedBefore(uid, ids)
	err := n.pass.deleteLeft(ctx, n.left)
	n.pass.Releases.deleted(uid, start, ids, err)
	if err == nil && again {
		err = errors.Wrap(ErrStillPresent, errDeleteAgain)
	}
	if err != nil {
		metrics.ExternalDeleteFailed(n.pass.Kind, failureClass(err))
	}
	return managed.ExternalDelete{}, err
}

func (n *untilGone[R]) Disconnect(ctx context.Context) error {
	if n.inner == nil {
		return nil
	}
	return n.inner.Disconnect(ctx)
}

// ReasonBudgetChangedInCoder: a deleting resource's budget or override was
// written in Coder since its last PUT, so it is someone else's and is left.
const ReasonBudgetChangedInCoder event.Reason = "BudgetChangedInCoder"

// msgFmtChanged is the event of ReasonBudgetChangedInCoder, per kind.
var msgFmtChanged = map[string]string{
	KindGroupBudget:  "The AI budget of group %s was changed in Coder since this resource last set it (its last write was updated %s by Coder's clock); it is left there",
	KindUserOverride: "The AI budget override of user %s was changed in Coder since this resource last set it (its last write was updated %s by Coder's clock); it is left there",
}

const (
	errFmtRecordedUnread  = "cannot read whether what the cleanup record %s names is gone from Coder; the resource goes only once it is"
	errDeleteRecordedLeft = "cannot delete what this resource's cleanup records name; the resource goes only once it is gone from Coder"
	errNoClientVerify     = "no Coder client to verify that what the cleanup records name is gone"
)

// Leftovers are the objects in Coder a deleting resource's records name,
// by kind: a read finds them, Delete deletes them, and the next
// reconcile's read verifies.
type Leftovers map[string][]string

func (l Leftovers) empty() bool { return len(l.ids()) == 0 }

// ids are the Coder ids of l.
func (l Leftovers) ids() []string {
	var ids []string
	for _, k := range objectKinds {
		ids = append(ids, l[k.kind]...)
	}
	return ids
}

// recordsLeft reads what the records of the deleting mg name and is still
// in the Coder the resource reaches now (now, with the deployment asked),
// by its records (recs), never by its external name and annotations, which
// anyone editing the resource can set (to a sibling's id, an unknown one, a
// forged refusal). Objects another live resource holds by a record of its
// own are left to it. It only reads.
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

// keysSince lists keys on the shared key list of the resource's
// ProviderConfig, one sent at since or later (see find). Without a shared
// list the find lists.
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

// deleteLeft deletes what recordsLeft found, all of it, and returns the
// first failure.
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
	// The pass notes the delete (Releases.deleted): the next look verifies
	// on a list sent after this answer.
	return errors.Wrap(first, errDeleteRecordedLeft)
}
