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

// Package credentials releases the credentials finalizer of Secrets. The
// ProviderConfig reconcilers put the finalizer on the Secrets they read
// before they can report Ready; this package alone removes it, once no
// unreleased ProviderConfig of any kind reads the Secret, or, for a Secret
// being deleted, once the bounds of the ProviderConfigs that stand and read
// it have passed. The decision is keyed on the Secret and made from a fresh
// read of every ProviderConfig that may reference it, never from what one
// ProviderConfig believes about the others. It must not add the finalizer,
// nor touch any other.
package credentials

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// Name of the controller, in logs and metrics.
const Name = "credentials-secret"

// AfterConflict is how soon a release that lost a race with another write
// of the Secret decides again.
const AfterConflict = 250 * time.Millisecond

const (
	errGetSecret     = "cannot get credentials Secret"
	errListConfigs   = "cannot list ProviderConfigs"
	errReleaseSecret = "cannot release credentials Secret"
	errGetNamespace  = "cannot get the credentials Secret's namespace"
)

// Options configure the credentials reconciler.
type Options struct {
	Logger                  logging.Logger
	MaxConcurrentReconciles int
	// Kinds, if not nil, are the managed kinds that exist now, whose
	// dependents bound a Secret's wait. Nil: every managed kind.
	Kinds func(context.Context) ([]apis.ManagedKind, error)
}

// Setup adds the reconciler of Secrets carrying the credentials finalizer
// to the manager. The informer's initial list enqueues every protected
// Secret, so a ProviderConfig that vanished while the provider was not
// running releases its Secrets when it starts. The field indexes of
// index.Register must already be registered.
func Setup(mgr ctrl.Manager, o Options) error {
	r := &Reconciler{
		kinds:  o.Kinds,
		kube:   mgr.GetClient(),
		reader: mgr.GetAPIReader(),
		log:    o.Logger.WithValues("controller", Name),
		record: event.NewAPIRecorder(mgr.GetEventRecorderFor(Name)), //nolint:staticcheck // crossplane-runtime's recorder takes the legacy record.EventRecorder.
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(Name).
		For(&corev1.Secret{}, builder.WithPredicates(protected())).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(1, o.MaxConcurrentReconciles)})
	for _, gk := range providerconfig.Kinds() {
		pc, err := providerconfig.New(gk)
		if err != nil {
			return err
		}
		b = b.Watches(pc, enqueueSecrets(), builder.WithPredicates(secretsMayBeReleased()))
	}
	return errors.Wrap(b.Complete(r), "cannot set up the credentials Secret reconciler")
}

// A Reconciler removes the credentials finalizer from Secrets no
// unreleased ProviderConfig needs.
type Reconciler struct {
	// kube writes, and reads the dependents (a field index of the cache)
	// and namespaces; reader reads the Secret and the ProviderConfigs
	// uncached, so the decision never rests on an informer that has not
	// seen a ProviderConfig yet.
	kube   client.Client
	reader client.Reader
	log    logging.Logger
	record event.Recorder
	// kinds are the managed kinds that exist now (Options.Kinds).
	kinds func(context.Context) ([]apis.ManagedKind, error)
}

// managedKinds are the managed kinds whose dependents count.
func (r *Reconciler) managedKinds(ctx context.Context) ([]apis.ManagedKind, error) {
	if r.kinds == nil {
		return apis.ManagedKinds(), nil
	}
	return r.kinds(ctx)
}

// Reconcile releases one Secret if nothing needs it.
//
// The order is what makes the release safe against a ProviderConfig that
// protects the Secret concurrently: the Secret is read first, then every
// ProviderConfig that may reference it is listed, then the finalizer is
// removed under an optimistic lock on the resourceVersion read first. A
// ProviderConfig that existed before the list is in it and keeps the
// finalizer. One that adds the finalizer after our read of the Secret
// changes its resourceVersion, so our patch conflicts and the next attempt
// sees it. One created after the list that found the finalizer already in
// place wrote nothing; our patch then changes the Secret, which re-queues
// that ProviderConfig through its own Secret watch, and it puts the
// finalizer back within a round trip. Only a deletion of the Secret begun
// inside that round trip could take it, and then its dependents' releases
// are counted and recorded, not stranded.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := r.log.WithValues("request", req.String())
	sec := &corev1.Secret{}
	if err := r.reader.Get(ctx, req.NamespacedName, sec); err != nil {
		return reconcile.Result{}, errors.Wrap(client.IgnoreNotFound(err), errGetSecret)
	}
	if !controllerutil.ContainsFinalizer(sec, providerconfig.CredentialsFinalizer) {
		return reconcile.Result{}, nil
	}
	s, err := r.secret(ctx, sec)
	if err != nil {
		return reconcile.Result{}, err
	}
	configs, err := r.configs(ctx, s)
	if err != nil {
		return reconcile.Result{}, errors.Wrap(err, errListConfigs)
	}
	d := Decide(s, configs, time.Now())
	if d.Needed {
		log.Debug("Credentials Secret still needed", "providerConfig", d.By.String(), "deleting", !s.DeletedAt.IsZero())
		return reconcile.Result{RequeueAfter: d.RequeueAfter}, nil
	}
	orig := sec.DeepCopy()
	controllerutil.RemoveFinalizer(sec, providerconfig.CredentialsFinalizer)
	err = r.kube.Patch(ctx, sec, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
	switch {
	case kerrors.IsConflict(err):
		// Someone wrote the Secret since we read it, perhaps a
		// ProviderConfig protecting it: decide again from a fresh read.
		return reconcile.Result{RequeueAfter: AfterConflict}, nil
	case kerrors.IsNotFound(err):
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, errors.Wrap(err, errReleaseSecret)
	}
	if len(d.LetGo) == 0 {
		log.Info("Released credentials Secret: no ProviderConfig needs it", "deleting", sec.DeletionTimestamp != nil)
		return reconcile.Result{}, nil
	}
	r.letGo(ctx, log, req.NamespacedName, d)
	return reconcile.Result{}, nil
}

// secret is the decision's view of the Secret: its deletion, and whether
// its namespace is being deleted (read through the cache, which watches
// namespaces; the provider may list them, not get them).
func (r *Reconciler) secret(ctx context.Context, sec *corev1.Secret) (Secret, error) {
	s := Secret{Name: types.NamespacedName{Namespace: sec.Namespace, Name: sec.Name}}
	if sec.DeletionTimestamp == nil {
		return s, nil
	}
	s.DeletedAt = sec.DeletionTimestamp.Time
	ns := &corev1.Namespace{}
	err := r.kube.Get(ctx, types.NamespacedName{Name: sec.Namespace}, ns)
	if err != nil && !kerrors.IsNotFound(err) {
		return s, errors.Wrap(err, errGetNamespace)
	}
	s.NamespaceDeleting = err != nil || ns.DeletionTimestamp != nil
	return s, nil
}

// letGo tells each standing ProviderConfig that read the released Secret
// that it can no longer reach Coder.
func (r *Reconciler) letGo(ctx context.Context, log logging.Logger, secret types.NamespacedName, d Decision) {
	for _, ref := range d.LetGo {
		log.Info("Released credentials Secret being deleted: the deletion bounds of the ProviderConfig that reads it passed",
			"providerConfig", ref.String(), "reason", d.Why)
		pc, err := providerconfig.Get(ctx, r.reader, ref)
		if err != nil {
			continue
		}
		r.record.Event(pc, event.Warning(event.Reason(providerconfig.ReasonCredentialsUnavailable), errors.Errorf(msgLetGo, secret, d.Why)))
	}
}

// msgLetGo is the event of a standing ProviderConfig whose Secret went.
const msgLetGo = "credentials Secret %s is being deleted while this ProviderConfig reads it: it was kept for this ProviderConfig's deletion bounds, counted from its deletion, so the dependents being deleted could finish (%s), and is released now. " +
	"This ProviderConfig cannot reach Coder until the Secret exists again; what its managed resources could not delete in Coder is left to their cleanup records"

// configs lists, uncached, every ProviderConfig that may read a Secret of
// the namespace: the namespaced kind reads Secrets of its own namespace
// only; the cluster-scoped kinds may read any namespace. While the Secret
// is being deleted, each one that stands and reads it comes with its
// dependents, whose hold bounds its wait.
func (r *Reconciler) configs(ctx context.Context, s Secret) ([]Config, error) {
	var out []Config
	for _, gk := range providerconfig.Kinds() {
		l, err := providerconfig.NewList(gk)
		if err != nil {
			return nil, err
		}
		var opts []client.ListOption
		if gk == providerconfig.NamespacedKind {
			opts = append(opts, client.InNamespace(s.Name.Namespace))
		}
		if err := r.reader.List(ctx, l, opts...); err != nil {
			return nil, errors.Wrapf(err, "of kind %s", gk.Kind)
		}
		for _, pc := range providerconfig.Items(l) {
			c := ConfigOf(pc)
			if !s.DeletedAt.IsZero() && !c.Deleting && c.reads(s.Name) {
				kinds, err := r.managedKinds(ctx)
				if err != nil {
					return nil, err
				}
				deps, err := config.ListDependents(ctx, r.kube, c.Ref, kinds)
				if err != nil {
					return nil, err
				}
				c.Dependents = config.HoldDependents(deps)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// secretsOf are the Secrets a ProviderConfig reads.
func secretsOf(o client.Object) []types.NamespacedName {
	pc, ok := o.(providerconfig.Object)
	if !ok {
		return nil
	}
	return ConfigOf(pc).Secrets
}
