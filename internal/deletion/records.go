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
	"encoding/json"
	"strconv"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/index"
)

const (
	errWriteRecord   = "cannot write cleanup record"
	errDeleteRecord  = "cannot delete cleanup record"
	errAbandonRecord = "cannot mark cleanup record Abandoned"
	errReadRecord    = "cannot read cleanup record"
	errListRecords   = "cannot list cleanup records"
)

// Name is the cleanup record of a managed resource: derived from the
// kind and the UID, so a retry never writes two.
func Name(kind string, uid types.UID) string {
	return strings.ToLower(kind) + "-" + string(uid)
}

// ManagedResourceUIDLabel carries the UID of the managed resource on each of
// its cleanup records, so all of them are found (and deleted) together.
const ManagedResourceUIDLabel = clusterv1alpha1.ManagedResourceUIDLabel

// rotatedName is the cleanup record of the key of rotation counter n:
// Name for the first key, with a -r<n> suffix for the keys of later
// rotations. Each key in Coder has its own record.
func rotatedName(kind string, uid types.UID, n int) string {
	if n == 0 {
		return Name(kind, uid)
	}
	return Name(kind, uid) + "-r" + strconv.Itoa(n)
}

// RotationOf returns the rotation counter of a record name of the
// managed resource, and whether the name is one of its records at all.
func RotationOf(kind string, uid types.UID, name string) (int, bool) {
	base := Name(kind, uid)
	if name == base {
		return 0, true
	}
	rest, ok := strings.CutPrefix(name, base+"-r")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || rotatedName(kind, uid, n) != name {
		return 0, false
	}
	return n, true
}

// Store writes the cleanup records of managed resources.
type Store struct {
	kube client.Client
	// reader reads around the cache where a record written a moment ago
	// must not be missed (see Attempted).
	reader client.Reader
	scheme *runtime.Scheme
	// abandoned is told when a record turns Abandoned, so a sweep runs at
	// once; nil when nothing sweeps.
	abandoned func()
}

// NewStore returns a record writer. abandoned, if not nil, is called
// after a record turned Abandoned.
func NewStore(kube client.Client, scheme *runtime.Scheme, abandoned func()) *Store {
	return &Store{kube: kube, reader: kube, scheme: scheme, abandoned: abandoned}
}

// WithReader makes Attempted read records through reader, the manager's API
// reader, instead of the cache.
func (r *Store) WithReader(reader client.Reader) *Store {
	r.reader = reader
	return r
}

// Reader is the reader WithReader set: past the cache, where one is set.
func (r *Store) Reader() client.Reader { return r.reader }

// Ensure writes an Active record for mg before anything is created in Coder,
// and notes on it when this create attempt is sent (attempt): what the
// sweep matches an object found by name against.
func (r *Store) Ensure(ctx context.Context, mg resource.Managed, kind string, o Origin, coderName string, attempt time.Time) error {
	return r.ensure(ctx, mg, kind, Name(kind, mg.GetUID()), o, map[string]any{
		"phase": clusterv1alpha1.CleanupPhaseActive, "coderName": coderName, "createAttemptedAt": metav1.NewTime(attempt),
	})
}

// NothingWritten notes that mg's last create attempt certainly wrote
// nothing (Coder answered with an error), so no object found by name is
// taken for its result.
func (r *Store) NothingWritten(ctx context.Context, mg resource.Managed, kind string) error {
	return resource.IgnoreNotFound(r.patchStatus(ctx, Name(kind, mg.GetUID()), map[string]any{"createAttemptedAt": nil}))
}

// EnsureRotated writes an Active record for the key of rotation counter n
// before it is created in Coder. A record left by an earlier attempt whose
// key was discarded loses its stale external id, so a sweep finds the new
// key by name.
func (r *Store) EnsureRotated(ctx context.Context, mg resource.Managed, kind string, n int, o Origin, coderName string) error {
	return r.ensure(ctx, mg, kind, rotatedName(kind, mg.GetUID(), n), o, map[string]any{
		"phase": clusterv1alpha1.CleanupPhaseActive, "coderName": coderName, "createAttemptedAt": metav1.Now(), "externalID": nil,
	})
}

// ensure creates the named record, or finds it written by an earlier
// attempt, and then writes status onto it. The status is what the sweep
// acts on, and it is written before anything is created in Coder: a record
// without one names nothing there. A record of that name whose spec is not
// mg's (written by someone else) is refused: mg would make it name an
// object in Coder that the record's own resource does not own.
func (r *Store) ensure(ctx context.Context, mg resource.Managed, kind, name string, o Origin, status map[string]any) error {
	rec, err := r.newRecord(mg, kind, name, o)
	if err != nil {
		return err
	}
	err = r.kube.Create(ctx, rec)
	if kerrors.IsAlreadyExists(err) {
		err = r.verify(ctx, rec)
	}
	if err != nil {
		return errors.Wrap(err, errWriteRecord)
	}
	return r.patchStatus(ctx, name, status)
}

// verify checks that the existing record of want's name is want: the same
// spec and the same managed resource label. A record written before
// records named their ProviderConfig matches on the rest.
func (r *Store) verify(ctx context.Context, want *clusterv1alpha1.CleanupRecord) error {
	got := &clusterv1alpha1.CleanupRecord{}
	if err := r.kube.Get(ctx, types.NamespacedName{Name: want.Name}, got); err != nil {
		return err
	}
	ours := got.GetLabels()[ManagedResourceUIDLabel] == want.GetLabels()[ManagedResourceUIDLabel] &&
		got.Spec.Kind == want.Spec.Kind && got.Spec.ManagedResource == want.Spec.ManagedResource
	if !ours {
		return errors.Errorf("cleanup record %s exists and does not describe this resource (%s %s, deployment %s); delete it if nobody needs it",
			want.Name, got.Spec.ManagedResource.Kind, objectName(got.Spec.ManagedResource.Namespace, got.Spec.ManagedResource.Name), got.Spec.DeploymentID)
	}
	recorded, now := originOf(got), originOf(want)
	if recorded.Legacy() && recorded.DeploymentID == now.DeploymentID || recorded == now {
		return nil
	}
	// This resource's own record, of another Coder or ProviderConfig:
	// its object may live there, so the record must not be deleted.
	return &otherDeploymentError{Recorded: recorded, Now: now}
}

func objectName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// patchStatus merges status into the status of the named record.
func (r *Store) patchStatus(ctx context.Context, name string, status map[string]any) error {
	body, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return errors.Wrap(err, errWriteRecord)
	}
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: name}}
	return errors.Wrap(r.kube.Status().Patch(ctx, rec, client.RawPatch(types.MergePatchType, body)), errWriteRecord)
}

// newRecord is a record of mg, named name, made at o, without a status.
func (r *Store) newRecord(mg resource.Managed, kind, name string, o Origin) (*clusterv1alpha1.CleanupRecord, error) {
	gvk, err := apiutil.GVKForObject(mg, r.scheme)
	if err != nil {
		return nil, errors.Wrap(err, errWriteRecord)
	}
	return &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ManagedResourceUIDLabel: string(mg.GetUID())}},
		Spec: clusterv1alpha1.CleanupRecordSpec{
			Kind: kind,
			ManagedResource: clusterv1alpha1.ManagedResourceReference{
				APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
				Namespace: mg.GetNamespace(), Name: mg.GetName(), UID: string(mg.GetUID()),
			},
			DeploymentID:   o.DeploymentID,
			ProviderConfig: o.Spec(),
		},
	}, nil
}

// MayHaveAttempted reports whether a create for mg was ever sent: Ensure writes
// its record before each create, so a record of mg means something may
// exist in Coder that mg does not name (an earlier attempt's answer may
// have been lost even when the last one was answered). The create-pending
// annotation alone proves nothing: the reconciler sets it before a create
// this provider may refuse unsent, and anyone can write it. On a failed
// read it says yes: a release counted for nothing costs a sweep, a missed
// one leaks.
func (r *Store) MayHaveAttempted(ctx context.Context, mg resource.Managed, kind string) bool {
	has, err := r.hasRecord(ctx, mg, kind)
	return has || err != nil
}

// hasRecord reports whether mg has any record: one the cache lists by its
// UID label, or the first one by name, which the cache may not list yet.
func (r *Store) hasRecord(ctx context.Context, mg resource.Managed, kind string) (bool, error) {
	recs, err := r.of(ctx, mg)
	if err != nil || len(recs) > 0 {
		return len(recs) > 0, err
	}
	err = r.reader.Get(ctx, types.NamespacedName{Name: Name(kind, mg.GetUID())}, &clusterv1alpha1.CleanupRecord{})
	if kerrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, errors.Wrap(err, errReadRecord)
}

// EnsureAdopted writes an Active record for mg when it has none: mg manages
// an object in Coder it did not create (imported by external name) and may
// delete it, so a release without delete must leave a record the sweep can
// act on. The record names the object by id only, with no create attempt:
// nothing found by name is ever taken for it. It reads the cache first, so
// a resource with a record costs no write on a poll.
//
// Any record of mg counts, not only the first key's: once a rotation is
// over, the first key's record is gone on purpose and the key in use has
// the record of its rotation; a second record for it would outlive the
// rotation that deletes that key.
func (r *Store) EnsureAdopted(ctx context.Context, mg resource.Managed, kind string, o Origin, id string) error {
	if has, err := r.hasRecord(ctx, mg, kind); has || err != nil {
		return err
	}
	return r.ensure(ctx, mg, kind, Name(kind, mg.GetUID()), o, map[string]any{"phase": clusterv1alpha1.CleanupPhaseActive, "externalID": id})
}

// SetExternalID records the Coder id once a create returned it. It patches
// instead of reading first: the cache may not have the record just created.
// A record without the id is still swept, by name. A budget's or
// override's create named its record of the row before its PUT
// (NameGroup), and a record never changes the row it names: for those
// kinds it writes nothing.
func (r *Store) SetExternalID(ctx context.Context, mg resource.Managed, kind, id string) error {
	if kind == KindGroupBudget || kind == KindUserOverride {
		return nil
	}
	return r.SetRotatedExternalID(ctx, mg, kind, 0, id)
}

// SetRotatedExternalID records the Coder id of the key of rotation counter n.
func (r *Store) SetRotatedExternalID(ctx context.Context, mg resource.Managed, kind string, n int, id string) error {
	return resource.IgnoreNotFound(r.patchStatus(ctx, rotatedName(kind, mg.GetUID(), n), map[string]any{"externalID": id}))
}

// DeleteRotated removes the record of the key of rotation counter n, once
// that key is verified gone from Coder.
func (r *Store) DeleteRotated(ctx context.Context, mg resource.Managed, kind string, n int) error {
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: rotatedName(kind, mg.GetUID(), n)}}
	return errors.Wrap(resource.IgnoreNotFound(r.kube.Delete(ctx, rec)), errDeleteRecord)
}

// Delete removes every record of mg: its objects were deleted in Coder, or
// deliberately left there. The records of rotations are found by the UID
// label, one delete each: the package's RBAC grants delete, not
// deletecollection. A record the cache does not show yet turns Abandoned in
// the sweep once mg is gone, and the sweep removes it after verifying its
// key is absent.
func (r *Store) Delete(ctx context.Context, mg resource.Managed, kind string) error {
	// The first key's record by name too: the cache may not show a record
	// written a moment ago.
	names := []string{Name(kind, mg.GetUID())}
	recs, err := r.of(ctx, mg)
	if err != nil {
		return err
	}
	for i := range recs {
		if recs[i].Name != names[0] {
			names = append(names, recs[i].Name)
		}
	}
	for _, n := range names {
		rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: n}}
		if err := resource.IgnoreNotFound(r.kube.Delete(ctx, rec)); err != nil {
			return errors.Wrap(err, errDeleteRecord)
		}
	}
	return nil
}

// Abandon marks every record of mg Abandoned: it let go without a verified
// delete, so a sweep must delete its objects in Coder. The first record is
// marked by name as well: the cache may not show a record written a moment
// ago, and a record left Active would be deleted with the resource.
func (r *Store) Abandon(ctx context.Context, mg resource.Managed, kind, reason string) error {
	recs, err := r.of(ctx, mg)
	if err != nil {
		return errors.Wrap(err, errAbandonRecord)
	}
	base := Name(kind, mg.GetUID())
	seen := false
	for i := range recs {
		seen = seen || recs[i].Name == base
		if err := r.abandon(ctx, &recs[i], reason); err != nil {
			return err
		}
	}
	if seen {
		return nil
	}
	return r.abandon(ctx, &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: base}}, reason)
}

// of returns the records of mg, found by its UID label, as the cache shows
// them. A record the cache does not show yet turns Abandoned in the sweep
// once mg is gone.
//
// It reads the cache by index: a poll reads its resource's records, and a
// list by label alone would scan every record in the cache, a cost per poll
// that grows with the number of resources.
func (r *Store) of(ctx context.Context, mg resource.Managed) ([]clusterv1alpha1.CleanupRecord, error) {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l, client.MatchingFields{index.RecordManagedUID: string(mg.GetUID())}); err != nil {
		return nil, errors.Wrap(err, errListRecords)
	}
	return l.Items, nil
}

// list returns the records of mg that reader lists by its UID label.
func list(ctx context.Context, reader client.Reader, mg resource.Managed) ([]clusterv1alpha1.CleanupRecord, error) {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := reader.List(ctx, l, client.MatchingLabels{ManagedResourceUIDLabel: string(mg.GetUID())}); err != nil {
		return nil, errors.Wrap(err, errListRecords)
	}
	return l.Items, nil
}

func (r *Store) abandon(ctx context.Context, rec *clusterv1alpha1.CleanupRecord, reason string) error {
	if rec.Status.Phase == clusterv1alpha1.CleanupPhaseAbandoned {
		return nil
	}
	// A patch, not an update: the cache's copy may be stale, and the
	// record must turn Abandoned whatever else changed on it.
	err := r.patchStatus(ctx, rec.Name, map[string]any{
		"phase": clusterv1alpha1.CleanupPhaseAbandoned, "reason": reason, "abandonedAt": metav1.Now(),
	})
	if kerrors.IsNotFound(err) {
		// No record: nothing was ever about to be created.
		return nil
	}
	if err != nil {
		return errors.Wrap(err, errAbandonRecord)
	}
	if r.abandoned != nil {
		r.abandoned()
	}
	return nil
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
