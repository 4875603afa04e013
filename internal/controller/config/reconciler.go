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

// Package config is the controller of the three ProviderConfig
// kinds: it reports whether Coder answers and accepts the session token,
// records the Coder deployment, counts the managed resources that use each
// ProviderConfig, and holds a ProviderConfig's deletion for them. It must not
// create anything in Coder. What a ProviderConfig is, and how a managed
// resource reaches Coder through one, is internal/providerconfig.
package config

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/index"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	errGetPC        = "cannot get ProviderConfig"
	errDependents   = "cannot count dependents"
	errUpdateStatus = "cannot update ProviderConfig status"
	errClient       = "cannot build Coder client"
)

// Options configure the ProviderConfig reconcilers.
type Options struct {
	Logger logging.Logger
	// Clients builds and reuses Coder clients.
	Clients *coder.Cache
	// Poll is how often a Ready ProviderConfig re-checks Coder.
	Poll time.Duration
	// Timeout bounds each Coder request.
	Timeout time.Duration
	// MaxConcurrentReconciles per ProviderConfig kind.
	MaxConcurrentReconciles int
	// OnReady, if not nil, is called when a ProviderConfig becomes able to
	// sweep its deployment's cleanup records (see configStates.readyFor).
	OnReady func()
	// Kinds, if not nil, are the managed kinds that exist now; the hold
	// counts dependents of these only. Nil: every managed kind.
	Kinds func(context.Context) ([]apis.ManagedKind, error)
}

// Controllers are the ProviderConfig controllers, one per kind, running or
// about to: a managed kind whose CRD is served later is watched through
// WatchDependents.
type Controllers struct {
	cache       cache.Cache
	controllers []controller.Controller
	reconcilers []*Reconciler
}

// Setup adds a reconciler for each ProviderConfig kind to the manager. The
// field indexes it needs must already be registered (see index.Register):
// the ProviderConfigs' now, each managed kind's before WatchDependents.
func Setup(mgr ctrl.Manager, o Options) (*Controllers, error) {
	mem := &configStates{m: map[providerconfig.Ref]*configState{}}
	perms := &permissions{kube: mgr.GetClient(), ttl: o.Poll}
	cs := &Controllers{cache: mgr.GetCache()}
	for _, gk := range providerconfig.Kinds() {
		c, r, err := setupKind(mgr, gk, o, mem, perms)
		if err != nil {
			return nil, errors.Wrapf(err, "cannot set up %s reconciler", gk.Kind)
		}
		cs.controllers, cs.reconcilers = append(cs.controllers, c), append(cs.reconcilers, r)
	}
	return cs, nil
}

// WatchDependents makes every ProviderConfig controller watch the managed
// kind k, whose CRD must be served: creating and deleting dependents
// changes status.users, and releases the hold of a ProviderConfig being
// deleted.
func (cs *Controllers) WatchDependents(k apis.ManagedKind) error {
	for i, c := range cs.controllers {
		src := source.Kind[client.Object](cs.cache, k.New(), dependentHandler{cs.reconcilers[i]}, dependentChanged())
		if err := c.Watch(src); err != nil {
			return errors.Wrapf(err, "cannot watch %s", k.Kind)
		}
	}
	return nil
}

func setupKind(mgr ctrl.Manager, gk schema.GroupKind, o Options, mem *configStates, perms *permissions) (controller.Controller, *Reconciler, error) {
	pc, err := providerconfig.New(gk)
	if err != nil {
		return nil, nil, err
	}
	r := &Reconciler{
		kube:        mgr.GetClient(),
		reader:      mgr.GetAPIReader(),
		kind:        gk,
		clients:     o.Clients,
		log:         o.Logger.WithValues("controller", strings.ToLower(gk.Kind)+"."+gk.Group),
		poll:        o.Poll,
		timeout:     o.Timeout,
		mem:         mem,
		permissions: perms,
		onReady:     o.OnReady,
		kinds:       o.Kinds,

		finalizer: resource.NewAPIFinalizer(mgr.GetClient(), providerconfig.HoldFinalizer),
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(strings.ToLower(gk.Kind)+"."+gk.Group).
		For(pc).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(1, o.MaxConcurrentReconciles)}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.configsUsingSecret))
	c, err := b.Build(r)
	return c, r, err
}

// A Reconciler reconciles one ProviderConfig kind.
type Reconciler struct {
	kube client.Client
	// reader reads past the cache, where a stale copy would make a
	// write conflict.
	reader  client.Reader
	kind    schema.GroupKind
	clients *coder.Cache
	log     logging.Logger
	poll    time.Duration
	timeout time.Duration
	mem     *configStates
	// permissions reviews the RBAC the provider needs beyond Crossplane's.
	permissions *permissions
	onReady     func()
	// kinds are the managed kinds that exist now (Options.Kinds).
	kinds func(context.Context) ([]apis.ManagedKind, error)

	finalizer resource.Finalizer
}

// managedKinds are the managed kinds whose dependents count.
func (r *Reconciler) managedKinds(ctx context.Context) ([]apis.ManagedKind, error) {
	if r.kinds == nil {
		return apis.ManagedKinds(), nil
	}
	return r.kinds(ctx)
}

// Reconcile checks Coder for one ProviderConfig and records the result.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ref := providerconfig.Ref{GroupKind: r.kind, Namespace: req.Namespace, Name: req.Name}
	log := r.log.WithValues("request", ref.String())

	pc, err := providerconfig.Get(ctx, r.kube, ref)
	if kerrors.IsNotFound(errors.Cause(err)) {
		r.mem.forget(ref)
		return reconcile.Result{}, nil
	}
	if err != nil {
		return reconcile.Result{}, errors.Wrap(err, errGetPC)
	}
	before := providerconfig.StatusOf(pc).DeepCopy()

	kinds, err := r.managedKinds(ctx)
	if err != nil {
		return reconcile.Result{}, errors.Wrap(err, errDependents)
	}
	deps, err := ListDependents(ctx, r.kube, ref, kinds)
	if err != nil {
		return reconcile.Result{}, errors.Wrap(err, errDependents)
	}
	pc.SetUsers(int64(len(deps)))

	if pc.GetDeletionTimestamp() != nil {
		return r.reconcileDeletion(ctx, log, pc, deps)
	}
	if err := r.finalizer.AddFinalizer(ctx, pc); err != nil {
		return reconcile.Result{}, errors.Wrap(err, errAddFinalizer)
	}

	c := r.checkCoder(ctx, pc)
	if m := r.permissions.Missing(ctx, time.Now()); len(m) > 0 && c.condition.Status == corev1.ConditionTrue {
		// Not Ready: a dependent would create in Coder what the provider
		// could not account for once deleted.
		c.condition = unavailable(providerconfig.ReasonMissingPermissions, errors.New(MissingPermissionsMessage(m)))
	}
	if err := r.protectSecrets(ctx, pc); err != nil {
		// Not Ready until the credentials are protected: a dependent must
		// not create in Coder what a namespace deletion could strand.
		c.condition = unavailable(providerconfig.ReasonCredentialsUnavailable, err)
	}
	status := providerconfig.StatusOf(pc)
	status.DeploymentID, status.Version = c.deploymentID, c.version
	insecure := transportCondition(providerconfig.ConnectionOf(pc).URL)
	insecure.LastTransitionTime = metav1.Now()
	pc.SetConditions(c.condition, insecure)
	for _, extra := range []xpv2.Condition{c.aiGateway, c.token.Condition, c.permissions} {
		if extra.Type != "" {
			extra.LastTransitionTime = metav1.Now()
			pc.SetConditions(extra)
		}
	}

	if !equality.Semantic.DeepEqual(before, status) {
		log.Debug("ProviderConfig status changed", "ready", c.condition.Status, "reason", c.condition.Reason, "users", len(deps))
		if err := r.kube.Status().Update(ctx, pc); err != nil {
			return reconcile.Result{}, errors.Wrap(resource.IgnoreNotFound(err), errUpdateStatus)
		}
	}
	r.mem.observed(ref, pc.GetCondition(xpv2.TypeReady), c.token.Lapses)
	if r.mem.readyFor(ref, sweepsFor(pc, c)) && r.onReady != nil {
		r.onReady()
	}
	if c.condition.Status != corev1.ConditionTrue {
		// Not ready: retry sooner than the poll, with the workqueue's
		// backoff bounding the load on a Coder that is down.
		return reconcile.Result{RequeueAfter: min(r.poll, 10*time.Second)}, nil
	}
	return reconcile.Result{RequeueAfter: r.poll}, nil
}

// check asks Coder for its build info and the token's user, reusing a
// result younger than the poll interval for the same inputs, so a burst of
// dependent changes does not become a burst of Coder requests.
func (r *Reconciler) checkCoder(ctx context.Context, pc providerconfig.Object) coderCheck {
	ref := providerconfig.RefOfConfig(pc)
	conn := providerconfig.ConnectionOf(pc)
	cfg, err := providerconfig.ClientConfig(ctx, r.kube, conn, r.timeout)
	if err != nil {
		return coderCheck{condition: unavailable(providerconfig.ReasonCredentialsUnavailable, err)}
	}
	key := coderCheckKey{generation: pc.GetGeneration(), client: coder.Fingerprint(cfg)}
	if c, ok := r.mem.lastCheck(ref, key, time.Now(), r.poll); ok {
		return c
	}
	c := r.askCoder(ctx, cfg)
	c.key, c.at = key, time.Now()
	r.mem.putCheck(ref, c)
	return c
}

func (r *Reconciler) askCoder(ctx context.Context, cfg coder.Config) coderCheck {
	cl, err := r.clients.Get(cfg)
	if err != nil {
		return coderCheck{condition: unavailable(providerconfig.ReasonCredentialsUnavailable, errors.Wrap(err, errClient))}
	}
	bi, err := cl.BuildInfo(ctx)
	if err != nil {
		return coderCheck{condition: unavailable(providerconfig.ReasonCoderUnreachable, err)}
	}
	c := coderCheck{deploymentID: bi.DeploymentID, version: bi.Version}
	if _, err := cl.Me(ctx); err != nil {
		reason := providerconfig.ReasonCoderUnreachable
		if coder.IsUnauthorized(err) {
			reason = providerconfig.ReasonUnauthorized
		}
		c.condition = unavailable(reason, err)
		return c
	}
	c.condition = xpv2.Available()
	c.condition.Reason = providerconfig.ReasonConnected
	c.aiGateway = aiGateway(ctx, cl)
	c.token = tokenExpiry(ctx, cl)
	c.permissions = coderPermissions(ctx, cl)
	return c
}

// coderPermissions asks Coder which kinds the token's user may manage,
// without writing anything, so a least-privilege token names what it lacks
// for which kind before the first 403.
func coderPermissions(ctx context.Context, cl *coder.Client) xpv2.Condition {
	allowed, err := cl.AuthCheck(ctx, providerconfig.PermissionChecks())
	if err != nil {
		return providerconfig.CoderPermissionsUnknown(err)
	}
	return providerconfig.CoderPermissionsCondition(allowed)
}

// tokenExpiry reads when Coder stops accepting the session token, so an
// operator replaces it before Ready turns False for it. Read right after
// /users/me, which is the use that extends a login session.
func tokenExpiry(ctx context.Context, cl *coder.Client) providerconfig.TokenState {
	k, err := cl.TokenKey(ctx)
	if err != nil {
		return providerconfig.TokenState{Condition: providerconfig.TokenUnknown(err)}
	}
	return providerconfig.TokenExpiry(providerconfig.Token{
		ExpiresAt: k.ExpiresAt,
		Lifetime:  time.Duration(k.LifetimeSeconds) * time.Second,
		Session:   k.LoginType != codersdk.LoginTypeToken,
	}, cl.Clock().At(time.Now()))
}

// aiGateway reads whether the deployment serves AI Gateway keys, so an
// operator sees it on the ProviderConfig before the first key is refused.
func aiGateway(ctx context.Context, cl *coder.Client) xpv2.Condition {
	ent, err := cl.Entitlements(ctx)
	if err != nil {
		return providerconfig.AIGatewayUnknown(err)
	}
	return providerconfig.AIGatewayCondition(ent.Features[codersdk.FeatureAIBridge])
}

func unavailable(reason xpv2.ConditionReason, err error) xpv2.Condition {
	c := xpv2.Unavailable().WithMessage(err.Error())
	c.Reason = reason
	return c
}

func (r *Reconciler) configsUsingSecret(ctx context.Context, o client.Object) []reconcile.Request {
	pcs, err := r.listKind(ctx, client.MatchingFields{index.ProviderConfigSecrets: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}.String()})
	if err != nil {
		r.log.Info("Cannot list ProviderConfigs using a Secret", "error", err)
		return nil
	}
	return pcs
}

func (r *Reconciler) configOfDependent(_ context.Context, o client.Object) []reconcile.Request {
	mg, ok := o.(resource.Managed)
	if !ok {
		return nil
	}
	ref, err := providerconfig.RefOf(mg)
	if err != nil || ref.GroupKind != r.kind {
		return nil
	}
	return []reconcile.Request{{NamespacedName: ref.NamespacedName()}}
}
