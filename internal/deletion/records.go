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
	"slices"
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

// A Set is the cleanup records of one managed resource, as the cache
// showed them: a record written a moment ago may be missing.
type Set struct {
	uid  types.UID
	recs []clusterv1alpha1.CleanupRecord
}

// written are the records of s the provider wrote a status to: one it
// never wrote names nothing.
func (s Set) written() []*clusterv1alpha1.CleanupRecord {
	var out []*clusterv1alpha1.CleanupRecord
	for i := range s.recs {
		if s.recs[i].Status.Phase != "" {
			out = append(out, &s.recs[i])
		}
	}
	return out
}

// Of returns the records of mg, in one list of the cache.
func (r *Store) Of(ctx context.Context, mg resource.Managed) (Set, error) {
	recs, err := r.of(ctx, mg)
	return Set{uid: mg.GetUID(), recs: recs}, err
}

// Past returns the records of mg read past the cache, where a record
// written a moment ago cannot be missing.
func (r *Store) Past(ctx context.Context, mg resource.Managed) (Set, error) {
	recs, err := list(ctx, r.reader, mg)
	return Set{uid: mg.GetUID(), recs: recs}, err
}

// same reports whether s and o hold the same records, each as written at
// the same version.
func (s Set) same(o Set) bool {
	v := make(map[string]string, len(s.recs))
	for i := range s.recs {
		v[s.recs[i].Name] = s.recs[i].ResourceVersion
	}
	return len(s.recs) == len(o.recs) && !slices.ContainsFunc(o.recs, func(r clusterv1alpha1.CleanupRecord) bool {
		rv, ok := v[r.Name]
		return !ok || rv != r.ResourceVersion
	})
}

// In returns the records of s that speak of the Coder at now (Speaks):
// an id a record of another Coder holds names another object, whatever
// that Coder's server answered.
func (s Set) In(now Origin) Set {
	recs := slices.DeleteFunc(slices.Clone(s.recs), func(rec clusterv1alpha1.CleanupRecord) bool { return !SpeaksOf(&rec, now) })
	return Set{uid: s.uid, recs: recs}
}

// Origins returns where the set's records say their objects were made,
// each once, in record order.
func (s Set) Origins() []Origin {
	var out []Origin
	for i := range s.recs {
		if o := originOf(&s.recs[i]); o.DeploymentID != "" && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// LacksID reports whether the set is one create's record of kind, written
// with the status the sweep acts on, that holds no id, and no record holds
// id: the id of the object its resource adopted is missing from it.
func (s Set) LacksID(kind, id string) bool {
	if len(s.recs) != 1 || slices.Contains(s.ExternalIDs(), id) {
		return false
	}
	r := &s.recs[0]
	return r.Name == Name(kind, s.uid) && r.Status.Phase != "" && r.Status.ExternalID == ""
}

// ExternalIDs returns the Coder ids the set's records hold. They prove
// which objects the resource owns when nothing else does: an imported key
// keeps the id it was adopted under after a rotation moves the external
// name to the new key.
func (s Set) ExternalIDs() []string {
	out := make([]string, 0, len(s.recs))
	for i := range s.recs {
		if id := s.recs[i].Status.ExternalID; id != "" {
			out = append(out, id)
		}
	}
	return out
}
