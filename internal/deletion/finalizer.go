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

// WithChangeLogger makes f log each release without delete to c, as a
// delete whose details say it was not sent (or not verified) and why.
func (f *Finalizer) WithChangeLogger(c managed.ChangeLogger) *Finalizer {
	f.change = c
	return f
}

// A Finalizer adds and removes the managed resources' finalizer. Before it
// removes the finalizer it deletes the connection Secret the resource
// controls: the credential it holds was revoked (or deliberately kept in
// Coder), and a re-created object of the same name must be able to publish
// its own Secret at once rather than after garbage collection.
//
// The Secret's deletion belongs in a connection publisher's
// UnpublishConnection, which the managed reconciler calls just before it
// removes the finalizer. crossplane-runtime v2.4.0 does not let a provider
// set its publishers (the options are unexported, "for unit testing only"),
// and its own UnpublishConnection does nothing, leaving the Secret to
// garbage collection. So the finalizer does it, at the same point.
type Finalizer struct {
	kube      client.Client
	api       resource.Finalizer
	finalizer string
	kind      string
	releases  *Releases
	records   *Store
	record    event.Recorder
	// change, if set, receives a change-log entry for each release without
	// delete, the one operation the managed reconciler does not log.
	change managed.ChangeLogger
}

// NewFinalizer returns a Finalizer for the named finalizer key of managed
// resources of the given kind. After the finalizer's removal is persisted it
// counts a release without delete noted in releases, with a Warning event.
func NewFinalizer(kube client.Client, finalizer, kind string, releases *Releases, records *Store, record event.Recorder) *Finalizer {
	return &Finalizer{kube: kube, api: resource.NewAPIFinalizer(kube, finalizer), finalizer: finalizer, kind: kind, releases: releases, records: records, record: record}
}

// AddFinalizer adds the finalizer.
func (f *Finalizer) AddFinalizer(ctx context.Context, obj resource.Object) error {
	return f.api.AddFinalizer(ctx, obj)
}

// RemoveFinalizer deletes the connection Secret, then removes only our
// finalizer, with the optimistic concurrency of an update.
func (f *Finalizer) RemoveFinalizer(ctx context.Context, obj resource.Object) error {
	if err := f.deleteConnectionSecret(ctx, obj); err != nil {
		return err
	}
	// The record is settled before the finalizer goes: if writing it
	// fails, the finalizer stays and the pass is retried.
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

// logRelease sends the change log an entry for a release without delete:
// the object may still be in Coder, and an audit must show that this
// resource let go of it and why. Best effort, as the managed reconciler's
// own entries are: the release is already counted and evented.
func (f *Finalizer) logRelease(ctx context.Context, obj resource.Object, why string, msg error) {
	mg, ok := obj.(resource.Managed)
	if f.change == nil || !ok {
		return
	}
	_ = f.change.Log(ctx, mg, changelogs.OperationType_OPERATION_TYPE_DELETE, msg, managed.AdditionalDetails{
		ChangeLogOutcome: ChangeLogReleasedWithoutDelete, ChangeLogReason: why,
	})
}

// The additional details of a change-log entry the provider writes beside
// crossplane-runtime's own.
const (
	// ChangeLogOutcome says what became of the object in Coder.
	ChangeLogOutcome = "outcome"
	// ChangeLogReason says why.
	ChangeLogReason = "reason"
	// ChangeLogReleasedWithoutDelete: the resource let go of its object
	// without a verified delete; its records stay for the sweep.
	ChangeLogReleasedWithoutDelete = "ReleasedWithoutDelete"
)

// settle settles mg's records before its finalizer goes: Abandoned after a
// release without a verified delete, deleted otherwise. A delete of them
// that the provider's RBAC forbids (examples/install/rbac.yaml not bound,
// or taken away) does not hold mg, which would wait on an operator however
// its bounds pass: its records turn Abandoned instead, and the release
// counts as one without delete, for the sweep to verify in Coder what they
// name. Not an orphan's: the sweep would delete the object it keeps in
// Coder on purpose, so an orphan waits for the RBAC.
func (f *Finalizer) settle(ctx context.Context, mg resource.Managed) error {
	if why, released := f.releases.peek(mg.GetUID()); released {
		return f.records.Abandon(ctx, mg, f.kind, why)
	}
	err := f.records.Delete(ctx, mg, f.kind)
	if !kerrors.IsForbidden(err) || !policy.MayDelete(mg) {
		return err
	}
	if !f.records.MayHaveAttempted(ctx, mg, f.kind) {
		// No record to delete: the delete by name was forbidden all the
		// same, but nothing is left to settle.
		return nil
	}
	if err := f.records.Abandon(ctx, mg, f.kind, ReasonRecordDeleteForbidden); err != nil {
		return err
	}
	f.releases.mark(mg.GetUID(), ReasonRecordDeleteForbidden)
	return nil
}

// ReleaseStalled releases a deleting mg that the managed reconciler leaves
// alone (Stalled says why), once its delete is due to be a bounded pass. It
// asks nothing of Coder: a paused resource must not be acted on there. Like
// a pass that could not delete, the release is counted and evented and its
// records turn Abandoned for the sweep, unless nothing of it can exist in
// Coder, or its policies keep its object there on purpose.
func (f *Finalizer) ReleaseStalled(ctx context.Context, mg resource.Managed, why string) error {
	r := PassResult{Stalled: why, Orphan: !policy.MayDelete(mg)}
	r.MayHaveAttempted = meta.GetExternalName(mg) != "" || f.records.MayHaveAttempted(ctx, mg, f.kind)
	f.releases.forget(mg.GetUID())
	if o := DecidePass(r); o.WithoutDelete {
		f.releases.mark(mg.GetUID(), o.Reason)
	}
	return f.RemoveFinalizer(ctx, mg)
}

// ReasonRecordDeleteForbidden is the release reason when the object was
// deleted in Coder, or never existed, but the provider may not delete its
// cleanup records.
const ReasonRecordDeleteForbidden = "RecordDeleteForbidden"

// releasedWhy is what the event of a release without delete tells an
// operator, by reason.
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

// remove removes our finalizer, reporting whether the release it settles
// happened. Not resource.APIFinalizer's removal: it takes NotFound for
// success, and a resource someone else let go of (its finalizers stripped by
// hand) was not released by us. Its record stands Abandoned all the same,
// so the sweep takes what it left in Coder.
//
// A removal whose answer was lost may have persisted: the resource is then
// gone by the next reconcile, which never comes back here. So a lost answer
// is checked past the cache at once, and a resource found gone by a retry
// while it was releasing without delete counts too: its records were
// Abandoned before the first removal was sent, and the release is counted
// once, when its mark is taken.
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
	// A refused removal (a conflict: someone changed the resource) or a
	// lost answer: the finalizer may be gone all the same, by this
	// removal or by a hand that stripped it. Once it is, the release
	// stands whoever removed it.
	if f.persisted(ctx, obj) {
		return true, nil
	}
	return false, errors.Wrap(err, errRemoveFinalizer)
}

// persisted reports whether obj's finalizer is gone from the API server,
// read past the cache: obj is gone, replaced by another incarnation, or
// without our finalizer. False when that cannot be read.
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

// ReasonReleasedWithoutDelete is the Warning event of a release without a
// verified delete in Coder.
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
	// Only a Secret this very object controls: never one a user made or an
	// earlier incarnation of the same name still owns.
	if !metav1.IsControlledBy(s, obj) {
		return nil
	}
	err := f.kube.Delete(ctx, s, client.Preconditions{UID: &s.UID, ResourceVersion: &s.ResourceVersion})
	if kerrors.IsNotFound(err) || kerrors.IsConflict(err) {
		// Gone, or changed under us: garbage collection still removes it
		// through its owner reference.
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
