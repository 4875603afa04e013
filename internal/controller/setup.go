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

// Package controller wires every controller of provider-coder into a
// manager: the ProviderConfig reconcilers, the credentials Secret reconciler
// and the managed reconcilers of both scopes. Scope-specific parts are the
// GroupVersionKinds alone; each kind has one external client for both scopes.
package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aibudget"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aiprovider"
	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/controller/credentials"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/controller/mcpserver"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/fairlimit"
	"github.com/crossplane-contrib/provider-coder/internal/fingerprintkey"
	"github.com/crossplane-contrib/provider-coder/internal/index"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/internal/writes"
)

// Options configure every controller.
type Options struct {
	controller.Options
	// CoderTimeout bounds each Coder request.
	CoderTimeout time.Duration
	// KeyListTTL is how long one list of AI Gateway keys serves every key of
	// a ProviderConfig.
	KeyListTTL time.Duration
	// ManagementPolicies enables management policies on managed resources.
	ManagementPolicies bool
	// SweepInterval is the period of the cleanup sweep; zero disables it.
	SweepInterval time.Duration
	// SweepGrace is how old an Active cleanup record must be before its
	// missing managed resource counts as gone.
	SweepGrace time.Duration
	// Limiter is the reconcile rate every managed kind shares, fairly
	// between tenants.
	Limiter *fairlimit.Limiter
	// Writes, if set, are the manager client's writes: a managed
	// resource's reconcile waits until the cache holds the last of them.
	Writes *writes.Writes
	// Namespace is the provider's own namespace, where the Secret of its
	// fingerprint key lives.
	Namespace string
}

// Setup adds every controller of the provider to the manager.
func Setup(ctx context.Context, mgr ctrl.Manager, o Options) error {
	if err := index.Setup(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}
	metrics.Initialise(knownMetrics())
	clients := coder.NewCache(256, 30*time.Minute)
	// A Coder that never answers holds at most half of a controller's
	// workers; the rest serve the other tenants.
	clients.MaxInFlight = max(2, o.MaxConcurrentReconciles/2)
	// The sweep runs at once when a record turns Abandoned, when a
	// ProviderConfig turns Ready and when a managed resource vanishes
	// without settling its records: each can make records sweepable that
	// would otherwise wait for the next interval.
	var sweepNow func()
	if o.SweepInterval > 0 {
		sw := deletion.NewSweeper()
		sw.Kube, sw.Reader, sw.Clients, sw.Log = mgr.GetClient(), mgr.GetAPIReader(), clients, o.Logger.WithValues("controller", "cleanup-sweep")
		sw.Timeout, sw.Interval, sw.Grace = o.CoderTimeout, o.SweepInterval, o.SweepGrace
		if err := mgr.Add(sw); err != nil {
			return errors.Wrap(err, "cannot add the cleanup sweep")
		}
		if err := sw.SweepWhenResourcesVanish(ctx, mgr.GetCache()); err != nil {
			return errors.Wrap(err, "cannot add the cleanup sweep")
		}
		sweepNow = sw.Trigger
	}
	if err := config.Setup(mgr, config.Options{
		Logger:                  o.Logger,
		Clients:                 clients,
		Poll:                    o.PollInterval,
		Timeout:                 o.CoderTimeout,
		MaxConcurrentReconciles: o.MaxConcurrentReconciles,
		OnReady:                 sweepNow,
	}); err != nil {
		return err
	}
	if err := credentials.Setup(mgr, credentials.Options{Logger: o.Logger, MaxConcurrentReconciles: o.MaxConcurrentReconciles}); err != nil {
		return err
	}
	conn := &providerconfig.Connector{Kube: mgr.GetClient(), Clients: clients, Timeout: o.CoderTimeout}
	releases := deletion.NewReleases()
	records := deletion.NewStore(mgr.GetClient(), mgr.GetScheme(), sweepNow).WithReader(mgr.GetAPIReader())
	kinds := managedkind.Options{
		Options:            o.Options,
		Limiter:            o.Limiter,
		Writes:             o.Writes,
		Connector:          conn,
		ManagementPolicies: o.ManagementPolicies,
		Releases:           releases,
		Records:            records,
		Keys:               coder.NewKeyLister(o.KeyListTTL),
	}
	for _, gvk := range []schema.GroupVersionKind{namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind, clusteraiv1alpha1.AIGatewayKeyGroupVersionKind} {
		if err := aigatewaykey.Setup(mgr, gvk, aigatewaykey.Options{Options: kinds}); err != nil {
			return errors.Wrapf(err, "cannot set up %s", gvk)
		}
	}
	// One key for both scopes, read once and shared by every replica.
	fingerprints := &fingerprintkey.Source{Kube: mgr.GetClient(), Reader: mgr.GetAPIReader(), Namespace: o.Namespace}
	for _, gvk := range []schema.GroupVersionKind{namespacedaiv1alpha1.AIProviderGroupVersionKind, clusteraiv1alpha1.AIProviderGroupVersionKind} {
		if err := aiprovider.Setup(ctx, mgr, gvk, aiprovider.Options{Options: kinds, FingerprintKey: fingerprints}); err != nil {
			return errors.Wrapf(err, "cannot set up %s", gvk)
		}
	}
	for _, gvk := range []schema.GroupVersionKind{namespacedaiv1alpha1.MCPServerGroupVersionKind, clusteraiv1alpha1.MCPServerGroupVersionKind} {
		if err := mcpserver.Setup(mgr, gvk, mcpserver.Options{Options: kinds, FingerprintKey: fingerprints}); err != nil {
			return errors.Wrapf(err, "cannot set up %s", gvk)
		}
	}
	for _, gvk := range []schema.GroupVersionKind{namespacedaiv1alpha1.GroupAIBudgetGroupVersionKind, clusteraiv1alpha1.GroupAIBudgetGroupVersionKind} {
		if err := aibudget.SetupGroupAIBudget(mgr, gvk, kinds); err != nil {
			return errors.Wrapf(err, "cannot set up %s", gvk)
		}
	}
	for _, gvk := range []schema.GroupVersionKind{namespacedaiv1alpha1.UserAIBudgetOverrideGroupVersionKind, clusteraiv1alpha1.UserAIBudgetOverrideGroupVersionKind} {
		if err := aibudget.SetupUserAIBudgetOverride(mgr, gvk, kinds); err != nil {
			return errors.Wrapf(err, "cannot set up %s", gvk)
		}
	}
	return nil
}

// knownMetrics are the label values every metric series exists for from
// the start (metrics.Known says why).
func knownMetrics() metrics.Known {
	k := metrics.Known{
		Kinds:                []string{namespacedaiv1alpha1.AIGatewayKeyKind, namespacedaiv1alpha1.AIProviderKind, namespacedaiv1alpha1.GroupAIBudgetKind, namespacedaiv1alpha1.UserAIBudgetOverrideKind, namespacedaiv1alpha1.MCPServerKind},
		DeleteFailureReasons: deletion.DeleteFailureReasons(),
		RotatingKinds:        []string{namespacedaiv1alpha1.AIGatewayKeyKind},
		BudgetKinds:          []string{namespacedaiv1alpha1.GroupAIBudgetKind, namespacedaiv1alpha1.UserAIBudgetOverrideKind},
		Settles:              []string{aigatewaykey.SettleEarly, aigatewaykey.SettleFull},
		RecordPhases:         []string{clusterv1alpha1.CleanupPhaseActive, clusterv1alpha1.CleanupPhaseAbandoned},
	}
	for _, r := range config.ReadyReasons() {
		k.Readiness = append(k.Readiness, metrics.Readiness{Ready: string(r.Status), Reason: string(r.Reason)})
	}
	return k
}
