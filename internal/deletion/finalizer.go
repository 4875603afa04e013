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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	changelogs "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
)

const (
	errDeleteConnectionSecret = "cannot delete connection Secret"
	errRemoveFinalizer        = "cannot remove finalizer"
)

// WithChangeLogger logs to c each release without delete, unlogged otherwise.
func (f *Finalizer) WithChangeLogger(c managed.ChangeLogger) *Finalizer {
	f.change = c
	return f
}

// A Finalizer adds and removes our finalizer, first deleting the connection
// Secret the resource controls so a re-created object can publish its own at
// once (crossplane-runtime v2.4.0 lets no provider set the publisher whose
// UnpublishConnection would).
type Finalizer struct {
	kube      client.Client
	api       resource.Finalizer
	finalizer string
	kind      string
	releases  *Releases
	records   *Store
	record    event.Recorder
	change    managed.ChangeLogger
}

// NewFinalizer returns a Finalizer that counts the releases noted in releases.
func NewFinalizer(kube client.Client, finalizer, kind string, releases *Releases, records *Store, record event.Recorder) *Finalizer {
	return &Finalizer{kube: kube, api: resource.NewAPIFinalizer(kube, finalizer), finalizer: finalizer, kind: kind, releases: releases, records: records, record: record}
}

// AddFinalizer adds the finalizer.
func (f *Finalizer) AddFinalizer(ctx context.Context, obj resource.Object) error {
	return f.api.AddFinalizer(ctx, obj)
}

// RemoveFinalizer deletes the connection Secret, settles the records, then
// removes only our finalizer; only then is a release without delete counted,
// so a retry that deletes after all is not.
func (f *Finalizer) RemoveFinalizer(ctx context.Context, obj resource.Object) error {
	if err := f.deleteConnectionSecret(ctx, obj); err != nil {
		return err
	}
	// Before the finalizer goes: a failed write keeps it, and retries.
	if mg, ok := obj.(resource.Managed); ok {
		if err := f.settle(ctx, mg); err != nil {
			return err
		}
	}
	if removed, err := f.remove(ctx, obj); err != nil || !removed {
		return err
	}
	if ts := obj.GetDeletionTimestamp(); ts != nil {
		metrics.ObserveDeletion(f.kind, time.Since(ts.Time))
	}
	if why, ok := f.releases.take(obj.GetUID()); ok {
		metrics.ReleasedWithoutDelete(f.kind)
		msg := errors.Errorf("released without a verified delete in Coder (%s): %s", why, releasedWhy(why))
		f.record.Event(obj, event.Warning(ReasonReleasedWithoutDelete, msg))
		f.logRelease(ctx, obj, why, msg)
	}
	return nil
}

// logRelease is best effort, as the managed reconciler's own entries: an
// audit must show the resource let go of an object that may be in Coder.
func (f *Finalizer) logRelease(ctx context.Context, obj resource.Object, why string, msg error) {
	mg, ok := obj.(resource.Managed)
	if f.change == nil || !ok {
		return
	}
	_ = f.change.Log(ctx, mg, changelogs.OperationType_OPERATION_TYPE_DELETE, msg, managed.AdditionalDetails{
		ChangeLogOutcome: ChangeLogReleasedWithoutDelete, ChangeLogReason: why,
	})
}

// The details of the provider's change-log entries.
const (
	// ChangeLogOutcome says what became of the object in Coder.
	ChangeLogOutcome = "outcome"
	// ChangeLogReason says why.
	ChangeLogReason = "reason"
	// ChangeLogReleasedWithoutDelete: its records stay for the sweep.
	ChangeLogReleasedWithoutDelete = "ReleasedWithoutDelete"
)

// settle abandons mg's records after a release without delete, or deletes
// them; when RBAC forbids that they turn Abandoned and the release counts,
// rather than holding mg for an operator (not an orphan's: the sweep would
// delete what it keeps).
func (f *Finalizer) settle(ctx context.Context, mg resource.Managed) error {
	if why, released := f.releases.peek(mg.GetUID()); released {
		return f.records.Abandon(ctx, mg, f.kind, why)
	}
	err := f.records.Delete(ctx, mg, f.kind)
	if !kerrors.IsForbidden(err) || !policy.MayDelete(mg) {
		return err
	}
	if !f.records.MayHaveAttempted(ctx, mg, f.kind) {
		return nil
	}
	if err := f.records.Abandon(ctx, mg, f.kind, ReasonRecordDeleteForbidden); err != nil {
		return err
	}
	f.releases.mark(mg.GetUID(), ReasonRecordDeleteForbidden)
	return nil
}

// ReleaseStalled releases a deleting mg the managed reconciler leaves alone
// (Stalled says why) once its bounded pass is due, asking nothing of Coder:
// a paused resource must not be acted on there.
func (f *Finalizer) ReleaseStalled(ctx context.Context, mg resource.Managed, why string) error {
	r := PassResult{Stalled: why, Orphan: !policy.MayDelete(mg)}
	r.MayHaveAttempted = meta.GetExternalName(mg) != "" || f.records.MayHaveAttempted(ctx, mg, f.kind)
	f.releases.forget(mg.GetUID())
	if o := DecidePass(r); o.WithoutDelete {
		f.releases.mark(mg.GetUID(), o.Reason)
	}
	return f.RemoveFinalizer(ctx, mg)
}

// ReasonRecordDeleteForbidden: the provider may not delete the records.
const ReasonRecordDeleteForbidden = "RecordDeleteForbidden"

func releasedWhy(reason string) string {
	switch reason {
	case ReasonRecordDeleteForbidden:
		return "its object in Coder is gone, but the provider may not delete cleanup records (bind examples/install/rbac.yaml): its records are Abandoned, and the sweep verifies in Coder that nothing they name is left and deletes them once it may"
	case policy.ReasonPaused, policy.ReasonUnsupportedPolicies:
		return "the managed reconciler does not act on this resource, so nothing was asked of Coder, and its bounds have passed: the object may still exist in Coder; its cleanup records are Abandoned for the sweep"
	default:
		return "the object may still exist in Coder"
	}
}

// remove removes our finalizer, reporting whether the release happened: not
// APIFinalizer's, which takes NotFound for success although a resource
// stripped by hand was not released by us. A lost answer may have persisted,
// after which the resource never comes back, so it is checked at once.
func (f *Finalizer) remove(ctx context.Context, obj resource.Object) (bool, error) {
	meta.RemoveFinalizer(obj, f.finalizer)
	err := f.kube.Update(ctx, obj)
	switch {
	case err == nil:
		return true, nil
	case kerrors.IsNotFound(err):
		_, releasing := f.releases.peek(obj.GetUID())
		return releasing, nil
	}
	// A conflict or a lost answer: once the finalizer is gone, it stands.
	if f.persisted(ctx, obj) {
		return true, nil
	}
	return false, errors.Wrap(err, errRemoveFinalizer)
}

// persisted reports, past the cache, whether obj's finalizer is gone.
func (f *Finalizer) persisted(ctx context.Context, obj resource.Object) bool {
	got, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return false
	}
	err := f.records.Reader().Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}, got)
	if kerrors.IsNotFound(err) {
		return true
	}
	return err == nil && (got.GetUID() != obj.GetUID() || !meta.FinalizerExists(got, f.finalizer))
}

// ReasonReleasedWithoutDelete is the Warning event of a release without delete.
const ReasonReleasedWithoutDelete event.Reason = "ReleasedWithoutDelete"

func (f *Finalizer) deleteConnectionSecret(ctx context.Context, obj resource.Object) error {
	nn, ok := ConnectionSecret(obj)
	if !ok {
		return nil
	}
	s := &corev1.Secret{}
	if err := f.kube.Get(ctx, nn, s); err != nil {
		return errors.Wrap(resource.IgnoreNotFound(err), errDeleteConnectionSecret)
	}
	// Never one a user made or an earlier incarnation still owns.
	if !metav1.IsControlledBy(s, obj) {
		return nil
	}
	err := f.kube.Delete(ctx, s, client.Preconditions{UID: &s.UID, ResourceVersion: &s.ResourceVersion})
	if kerrors.IsNotFound(err) || kerrors.IsConflict(err) {
		// Garbage collection still removes it.
		return nil
	}
	return errors.Wrap(err, errDeleteConnectionSecret)
}

// ConnectionSecret is where obj writes its connection details, if anywhere.
func ConnectionSecret(obj resource.Object) (types.NamespacedName, bool) {
	switch o := obj.(type) {
	case resource.LocalConnectionSecretWriterTo:
		if r := o.GetWriteConnectionSecretToReference(); r != nil {
			return types.NamespacedName{Namespace: obj.GetNamespace(), Name: r.Name}, true
		}
	case resource.ConnectionSecretWriterTo:
		if r := o.GetWriteConnectionSecretToReference(); r != nil {
			return types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, true
		}
	}
	return types.NamespacedName{}, false
}

// Releases remembers what spans a resource's reconciles: a release without
// delete until its finalizer's removal persists, and its last delete, which
// the next look verifies on a later list. It is the one memory of sent
// deletes (the pass's, a kind client's), lost on restart: sent again, once.
type Releases struct {
	mu   sync.Mutex
	m    map[types.UID]string
	sent map[types.UID]sentDelete
	// counted dates counted releases, so a stale cache counts none twice.
	counted   map[types.UID]time.Time
	lastPrune time.Time
}

// countedMemory is far longer than a cache lags.
const countedMemory = 10 * time.Minute

// A sentDelete is one delete: the ids, when Coder answered, its failure, and
// whether the pass sent it (the bounded pass verifies only its own).
type sentDelete struct {
	ids  []string
	at   time.Time
	err  error
	pass bool
}

// NewReleases returns an empty registry.
func NewReleases() *Releases {
	return &Releases{m: map[types.UID]string{}, sent: map[types.UID]sentDelete{}, counted: map[types.UID]time.Time{}}
}

func (r *Releases) mark(uid types.UID, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[uid] = why
}

func (r *Releases) peek(uid types.UID) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.m[uid]
	return why, ok
}

// take forgets uid once its finalizer is gone, reporting a release once.
func (r *Releases) take(uid types.UID) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.m[uid]
	delete(r.m, uid)
	delete(r.sent, uid)
	if !ok {
		return "", false
	}
	now := time.Now()
	r.prune(now)
	if _, done := r.counted[uid]; done {
		return why, false
	}
	r.counted[uid] = now
	return why, true
}

// prune forgets, at most once a minute, counted releases and a kind
// client's deletes older than countedMemory: any list since then serves.
func (r *Releases) prune(now time.Time) {
	if now.Sub(r.lastPrune) < time.Minute {
		return
	}
	r.lastPrune = now
	for uid, at := range r.counted {
		if now.Sub(at) > countedMemory {
			delete(r.counted, uid)
		}
	}
	for uid, d := range r.sent {
		if !d.pass && now.Sub(d.at) > countedMemory {
			delete(r.sent, uid)
		}
	}
}

func (r *Releases) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, uid)
}

// deleted notes the pass's delete, with the kind's own meanwhile (Deleted).
func (r *Releases) deleted(uid types.UID, start time.Time, ids []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.sent[uid]
	if d.at.Before(start) {
		d.ids = nil
	}
	for _, id := range ids {
		if !slices.Contains(d.ids, id) {
			d.ids = append(d.ids, id)
		}
	}
	r.sent[uid] = sentDelete{ids: d.ids, at: time.Now(), err: err, pass: true}
}

// Deleted notes that Coder answered, at at, uid's delete of ids by the
// kind's client: its next look lists after at, while other resources keep
// the shared list.
func (r *Releases) Deleted(uid types.UID, at time.Time, ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune(time.Now())
	r.sent[uid] = sentDelete{ids: ids, at: at}
}

// DeletedAt returns when Coder answered uid's last unverified delete.
func (r *Releases) DeletedAt(uid types.UID) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return d.at, ok
}

// DeletedBefore: uid's delete of id was answered before a list sent at sent.
func (r *Releases) DeletedBefore(uid types.UID, sent time.Time, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return ok && !sent.Before(d.at) && slices.Contains(d.ids, id)
}

func (r *Releases) lastDelete(uid types.UID) (sentDelete, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return d, ok && d.pass
}

func (r *Releases) verified(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sent, uid)
}

// acceptedBefore: Coder accepted one of ids in uid's last delete, and it lives.
func (r *Releases) acceptedBefore(uid types.UID, ids []string) bool {
	d, ok := r.lastDelete(uid)
	return ok && d.err == nil && slices.ContainsFunc(ids, func(id string) bool { return id != "" && slices.Contains(d.ids, id) })
}
