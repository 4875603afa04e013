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

package config

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	// WaitingMessage is the hold's log line and condition message.
	WaitingMessage = "Waiting for the objects that use this ProviderConfig to delete their resources in Coder"

	errAddFinalizer       = "cannot add finalizer to ProviderConfig"
	errRemoveFinalizer    = "cannot remove finalizer from ProviderConfig"
	errProtectSecret      = "cannot protect credentials Secret"
	errSecretBeingDeleted = "credentials Secret is being deleted and was not protected"
	errSecretDeleting     = "credentials Secret is being deleted: the managed resources being deleted may still use it within this ProviderConfig's deletion bounds, counted from its deletion, then it is released and this ProviderConfig cannot reach Coder until it exists again; nothing new is created through it"
)

// protectSecrets puts the credentials finalizer on every Secret the
// ProviderConfig reads. It runs before the ProviderConfig can report Ready,
// so before any dependent can create anything in Coder; Kubernetes refuses
// new finalizers once a deletion has begun, which is why it cannot wait. A
// Secret being deleted fails it too, protected or not: the credentials
// controller releases it within this ProviderConfig's bounds, and nothing
// may be created through credentials about to go.
func (r *Reconciler) protectSecrets(ctx context.Context, pc providerconfig.Object) error {
	var failed error
	for _, s := range providerconfig.ConnectionOf(pc).Secrets() {
		if err := r.protectSecret(ctx, s.NamespacedName()); err != nil && failed == nil {
			failed = err
		}
	}
	return failed
}

func (r *Reconciler) protectSecret(ctx context.Context, nn types.NamespacedName) error {
	sec := &corev1.Secret{}
	if err := r.kube.Get(ctx, nn, sec); err != nil {
		return errors.Wrap(client.IgnoreNotFound(err), errProtectSecret)
	}
	if sec.DeletionTimestamp == nil && controllerutil.ContainsFinalizer(sec, providerconfig.CredentialsFinalizer) {
		return nil
	}
	// The cache may not yet hold our own earlier protection of it (this
	// ProviderConfig's own status write starts a reconcile that can come
	// before the Secret's update reaches the cache): decide on a fresh copy, so the lock below meets a stale copy only
	// when somebody else wrote the Secret in between.
	if err := r.fresh().Get(ctx, nn, sec); err != nil {
		// A Secret not found: ClientConfig reports it; it is protected
		// when it appears (the Secret watch re-queues us).
		return errors.Wrap(client.IgnoreNotFound(err), errProtectSecret)
	}
	protected := controllerutil.ContainsFinalizer(sec, providerconfig.CredentialsFinalizer)
	switch {
	case sec.DeletionTimestamp != nil && protected:
		return errors.Errorf("%s: %s", errSecretDeleting, nn)
	case sec.DeletionTimestamp != nil:
		return errors.Errorf("%s: %s", errSecretBeingDeleted, nn)
	case protected:
		return nil
	}
	orig := sec.DeepCopy()
	controllerutil.AddFinalizer(sec, providerconfig.CredentialsFinalizer)
	return errors.Wrap(r.kube.Patch(ctx, sec, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})), errProtectSecret)
}

// fresh reads past the cache: the API reader, or the client where none
// was given.
func (r *Reconciler) fresh() client.Reader {
	if r.reader == nil {
		return r.kube
	}
	return r.reader
}

// reconcileDeletion runs the hold of a ProviderConfig being deleted.
func (r *Reconciler) reconcileDeletion(ctx context.Context, log logging.Logger, pc providerconfig.Object, deps []Dependent) (reconcile.Result, error) {
	ref := providerconfig.RefOfConfig(pc)
	if !meta.FinalizerExists(pc, providerconfig.HoldFinalizer) {
		r.mem.setHolding(ref, false, false)
		return reconcile.Result{}, nil
	}
	now := time.Now()
	deletedAt := pc.GetDeletionTimestamp().Time
	status := providerconfig.StatusOf(pc)
	conn := providerconfig.ConnectionOf(pc)

	in := providerconfig.Input{
		Now:        now,
		DeletedAt:  deletedAt,
		Dependents: HoldDependents(deps),
		Bounds:     providerconfig.BoundsFrom(conn.Deletion),
	}
	if h := status.Hold; h != nil && h.GraceUntil != nil {
		in.GraceUntil = h.GraceUntil.Time
	}
	nsDeleting, err := r.namespacesDeleting(ctx, pc, conn)
	if err != nil {
		return reconcile.Result{}, err
	}
	in.DeletingNamespaces = nsDeleting
	if in.NamespaceDeleting = len(nsDeleting) > 0; in.NamespaceDeleting {
		in.UnreachableSince = r.probe(ctx, ref, pc, now)
	}
	d := providerconfig.Decide(in)

	if d.Phase != providerconfig.PhaseReleased {
		r.mem.setHolding(ref, true, d.Phase == providerconfig.PhaseGrace)
		listed := providerconfig.List(d.Waiting)
		h := &common.HoldStatus{
			Phase:      string(d.Phase),
			Since:      &metav1.Time{Time: deletedAt},
			Until:      &metav1.Time{Time: d.Until.Truncate(time.Second)},
			Dependents: listed,
			Remaining:  len(d.Waiting),
		}
		if d.Phase == providerconfig.PhaseGrace {
			h.GraceUntil = h.Until
		}
		status.Hold = h
		c := xpv2.Unavailable().WithMessage(WaitingMessage + " (" + string(d.Phase) + " until " + h.Until.UTC().Format(time.RFC3339) + "): " + strings.Join(listed, ", "))
		c.Reason = xpv2.ConditionReason(d.Why)
		pc.SetConditions(c)
		r.mem.holdObserved(ref, c)
		log.Info(WaitingMessage, "phase", d.Phase, "until", h.Until.UTC().Format(time.RFC3339), "remaining", len(d.Waiting), "dependents", listed)
		if err := r.kube.Status().Update(ctx, pc); err != nil {
			return reconcile.Result{}, errors.Wrap(err, errUpdateStatus)
		}
		return reconcile.Result{RequeueAfter: d.RequeueAfter}, nil
	}

	log.Info("Releasing ProviderConfig", "reason", d.Why, "held", now.Sub(deletedAt).Round(time.Second).String(), "remaining", len(deps))
	if err := r.finalizer.RemoveFinalizer(ctx, pc); err != nil {
		return reconcile.Result{}, errors.Wrap(err, errRemoveFinalizer)
	}
	metrics.ObserveHold(now.Sub(deletedAt))
	r.mem.setHolding(ref, false, false)
	r.mem.reachable(ref)
	return reconcile.Result{}, nil
}

// HoldDependents are the managed resources that hold: live ones, and
// deleting ones that still carry our finalizer (they may still need Coder).
func HoldDependents(deps []Dependent) []providerconfig.Dependent {
	out := make([]providerconfig.Dependent, 0, len(deps))
	for _, d := range deps {
		if d.Deleting && !meta.FinalizerExists(d.Object, providerconfig.ManagedFinalizer) {
			continue
		}
		out = append(out, providerconfig.Dependent{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, Deleting: d.Deleting})
	}
	return out
}

// namespacesDeleting returns which of the ProviderConfig's namespace and the
// namespace of its token Secret are being deleted (or gone).
func (r *Reconciler) namespacesDeleting(ctx context.Context, pc providerconfig.Object, conn providerconfig.Connection) (map[string]bool, error) {
	names := map[string]bool{}
	if pc.GetNamespace() != "" {
		names[pc.GetNamespace()] = true
	}
	if conn.Token != nil {
		names[conn.Token.Namespace] = true
	}
	deleting := map[string]bool{}
	for n := range names {
		ns := &corev1.Namespace{}
		if err := r.kube.Get(ctx, types.NamespacedName{Name: n}, ns); err != nil {
			if kerrors.IsNotFound(err) {
				deleting[n] = true
				continue
			}
			return nil, errors.Wrap(err, "cannot get namespace")
		}
		if ns.DeletionTimestamp != nil {
			deleting[n] = true
		}
	}
	return deleting, nil
}

// probe asks /api/v2/buildinfo whether Coder still answers, and returns
// since when it has not (zero while it answers).
func (r *Reconciler) probe(ctx context.Context, ref providerconfig.Ref, pc providerconfig.Object, now time.Time) time.Time {
	cfg, err := providerconfig.ClientConfig(ctx, r.kube, providerconfig.ConnectionOf(pc), r.timeout)
	if err == nil {
		cl, cerr := r.clients.Get(cfg)
		if err = cerr; err == nil {
			_, err = cl.BuildInfo(ctx)
		}
	}
	if err == nil {
		r.mem.reachable(ref)
		return time.Time{}
	}
	return r.mem.unreachableSince(ref, now)
}
