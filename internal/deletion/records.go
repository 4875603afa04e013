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

// Name is a resource's cleanup record, from kind and UID so a retry writes one.
func Name(kind string, uid types.UID) string {
	return strings.ToLower(kind) + "-" + string(uid)
}

// ManagedResourceUIDLabel finds all of a resource's records together.
const ManagedResourceUIDLabel = clusterv1alpha1.ManagedResourceUIDLabel

// Store writes the cleanup records of managed resources.
type Store struct {
	kube client.Client
	// reader reads past the cache, where a fresh record must not be missed.
	reader    client.Reader
	scheme    *runtime.Scheme
	abandoned func()
}

// NewStore returns a record writer; abandoned, if set, starts a sweep.
func NewStore(kube client.Client, scheme *runtime.Scheme, abandoned func()) *Store {
	return &Store{kube: kube, reader: kube, scheme: scheme, abandoned: abandoned}
}

// WithReader makes reads past the cache go through the API reader.
func (r *Store) WithReader(reader client.Reader) *Store {
	r.reader = reader
	return r
}

// Reader is the reader WithReader set.
func (r *Store) Reader() client.Reader { return r.reader }

// Ensure writes an Active record for mg before anything is created in
// Coder, with the attempt's time for the sweep's matches by name.
func (r *Store) Ensure(ctx context.Context, mg resource.Managed, kind string, o Origin, coderName string, attempt time.Time) error {
	return r.ensure(ctx, mg, kind, Name(kind, mg.GetUID()), o, map[string]any{
		"phase": clusterv1alpha1.CleanupPhaseActive, "coderName": coderName, "createAttemptedAt": metav1.NewTime(attempt),
	})
}

// NothingWritten notes that Coder refused mg's last create: nothing to find by name.
func (r *Store) NothingWritten(ctx context.Context, mg resource.Managed, kind string) error {
	return resource.IgnoreNotFound(r.patchStatus(ctx, Name(kind, mg.GetUID()), map[string]any{"createAttemptedAt": nil}))
}

// ensure creates the named record, or finds an earlier attempt's, then
// writes the status the sweep acts on; a record of that name that is not
// mg's is refused, as mg would make it name an object it does not own.
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
	// Our own record of another Coder: its object may live there.
	return &otherDeploymentError{Recorded: recorded, Now: now}
}

func objectName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func (r *Store) patchStatus(ctx context.Context, name string, status map[string]any) error {
	body, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return errors.Wrap(err, errWriteRecord)
	}
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: name}}
	return errors.Wrap(r.kube.Status().Patch(ctx, rec, client.RawPatch(types.MergePatchType, body)), errWriteRecord)
}

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

// MayHaveAttempted reports whether a create for mg was ever sent (a record
// precedes each; its answer may have been lost); the create-pending
// annotation is anyone's to write. A failed read says yes: a needless
// release costs a sweep, a missed one leaks.
func (r *Store) MayHaveAttempted(ctx context.Context, mg resource.Managed, kind string) bool {
	has, err := r.hasRecord(ctx, mg, kind)
	return has || err != nil
}

// hasRecord also reads the first record by name, which the cache may lack.
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

// EnsureAdopted writes an Active record, by id, for an import mg may delete
// with no record at all: after a rotation, a second would outlive it.
func (r *Store) EnsureAdopted(ctx context.Context, mg resource.Managed, kind string, o Origin, id string) error {
	if has, err := r.hasRecord(ctx, mg, kind); has || err != nil {
		return err
	}
	return r.ensure(ctx, mg, kind, Name(kind, mg.GetUID()), o, map[string]any{"phase": clusterv1alpha1.CleanupPhaseActive, "externalID": id})
}

// SetExternalID patches in the id a create returned (the cache may lack the
// record); a budget's record names its row before the PUT, so not for those.
func (r *Store) SetExternalID(ctx context.Context, mg resource.Managed, kind, id string) error {
	if kind == KindGroupBudget || kind == KindUserOverride {
		return nil
	}
	return r.SetRotatedExternalID(ctx, mg, kind, 0, id)
}

// Delete removes every record of mg, one delete each (the RBAC grants no
// deletecollection), the first by name too, as the cache may miss it.
func (r *Store) Delete(ctx context.Context, mg resource.Managed, kind string) error {
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

// Abandon marks every record of mg Abandoned for the sweep, the first by
// name too: one left Active would be deleted with the resource.
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

// of reads the cache by index: a list by label would scan every record.
func (r *Store) of(ctx context.Context, mg resource.Managed) ([]clusterv1alpha1.CleanupRecord, error) {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l, client.MatchingFields{index.RecordManagedUID: string(mg.GetUID())}); err != nil {
		return nil, errors.Wrap(err, errListRecords)
	}
	return l.Items, nil
}

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
	// A patch: the cache's copy may be stale.
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

// A Set is the cleanup records of one resource as one read showed them.
type Set struct {
	uid  types.UID
	recs []clusterv1alpha1.CleanupRecord
}

// written are the records with a status; one without names nothing.
func (s Set) written() []*clusterv1alpha1.CleanupRecord {
	var out []*clusterv1alpha1.CleanupRecord
	for i := range s.recs {
		if s.recs[i].Status.Phase != "" {
			out = append(out, &s.recs[i])
		}
	}
	return out
}

// Of returns mg's records from the cache, which may lack a fresh one.
func (r *Store) Of(ctx context.Context, mg resource.Managed) (Set, error) {
	recs, err := r.of(ctx, mg)
	return Set{uid: mg.GetUID(), recs: recs}, err
}

// Past returns the records of mg read past the cache.
func (r *Store) Past(ctx context.Context, mg resource.Managed) (Set, error) {
	recs, err := list(ctx, r.reader, mg)
	return Set{uid: mg.GetUID(), recs: recs}, err
}

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

// In returns the records that speak of the Coder at now (Speaks).
func (s Set) In(now Origin) Set {
	recs := slices.DeleteFunc(slices.Clone(s.recs), func(rec clusterv1alpha1.CleanupRecord) bool { return !SpeaksOf(&rec, now) })
	return Set{uid: s.uid, recs: recs}
}

// Origins returns where the records' objects were made, each once.
func (s Set) Origins() []Origin {
	var out []Origin
	for i := range s.recs {
		if o := originOf(&s.recs[i]); o.DeploymentID != "" && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// LacksID: the set is one create's written record of kind, and none holds id.
func (s Set) LacksID(kind, id string) bool {
	if len(s.recs) != 1 || slices.Contains(s.ExternalIDs(), id) {
		return false
	}
	r := &s.recs[0]
	return r.Name == Name(kind, s.uid) && r.Status.Phase != "" && r.Status.ExternalID == ""
}

// ExternalIDs returns the ids the records hold: an imported key keeps its
// adopted id after a rotation moves the external name.
func (s Set) ExternalIDs() []string {
	out := make([]string, 0, len(s.recs))
	for i := range s.recs {
		if id := s.recs[i].Status.ExternalID; id != "" {
			out = append(out, id)
		}
	}
	return out
}
