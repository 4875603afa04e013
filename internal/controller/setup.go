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

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/activation"
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
	// Kinds start each gated kind when its CRD is served (crossplane-runtime's
	// gate, fed by the CRD gate reconciler). Nil: every kind starts now.
	Kinds *activation.Kinds
}

// Setup adds every controller of the provider to the manager: those of
// the ProviderConfigs and their Secrets now, and each gated kind's (every
// managed kind and CleanupRecord) when o.Kinds says its CRD is served.
func Setup(ctx context.Context, mgr ctrl.Manager, o Options) error {
	kinds := o.Kinds
	if kinds == nil {
		kinds = activation.All(o.Logger)
	}
	for _, gk := range providerconfig.Kinds() {
		pc, err := providerconfig.New(gk)
		if err != nil {
			return err
		}
		if err := index.Register(ctx, mgr.GetFieldIndexer(), index.Of(index.All(), pc)); err != nil {
			return err
		}
	}
	metrics.Initialise(knownMetrics())
	clients := coder.NewCache(256, 30*time.Minute)
	// A Coder that never answers holds at most half of a controller's
	// workers; the rest serve the other tenants.
	clients.MaxInFlight = max(2, o.MaxConcurrentReconciles/2)
	sw, err := setupSweep(mgr, o, clients)
	if err != nil {
		return err
	}
	var sweepNow func()
	if sw != nil {
		sweepNow = sw.Trigger
	}
	configs, err := config.Setup(mgr, config.Options{
		Logger:                  o.Logger,
		Clients:                 clients,
		Poll:                    o.PollInterval,
		Timeout:                 o.CoderTimeout,
		MaxConcurrentReconciles: o.MaxConcurrentReconciles,
		OnReady:                 sweepNow,
		Kinds:                   kinds.Counted,
	})
	if err != nil {
		return err
	}
	if err := credentials.Setup(mgr, credentials.Options{Logger: o.Logger, MaxConcurrentReconciles: o.MaxConcurrentReconciles, Kinds: kinds.Counted}); err != nil {
		return err
	}
	// Records of a kind the API server does not serve are none: reads of
	// them find nothing instead of failing on the kind.
	records := deletion.NewStore(activation.Client(mgr.GetClient()), mgr.GetScheme(), sweepNow).WithReader(activation.Reader(mgr.GetAPIReader()))
	if err := kinds.OnServed(activation.CleanupRecord, func() error {
		return index.Register(ctx, mgr.GetFieldIndexer(), index.Of(index.All(), &clusterv1alpha1.CleanupRecord{}))
	}); err != nil {
		return err
	}
	setups := managedSetups(ctx, mgr, o, kinds, records, clients)
	for _, k := range apis.ManagedKinds() {
		setup := setups[k.Kind]
		if err := kinds.OnServed(k.GVK, func() error {
			// The indexes first: the controller, the ProviderConfigs'
			// watch and the hold read the kind by them.
			if err := index.Register(ctx, mgr.GetFieldIndexer(), index.Of(index.All(), k.New())); err != nil {
				return err
			}
			if err := setup(k.GVK); err != nil {
				return errors.Wrapf(err, "cannot set up %s", k.GVK)
			}
			if err := configs.WatchDependents(k); err != nil {
				return err
			}
			if sw == nil {
				return nil
			}
			return errors.Wrap(sw.SweepWhenResourcesOfKindVanish(ctx, mgr.GetCache(), k), "cannot add the cleanup sweep")
		}); err != nil {
			return err
		}
	}
	return nil
}

// setupSweep adds the cleanup sweep, unless o disables it. The sweep runs
// at once when a record turns Abandoned, when a ProviderConfig turns Ready
// and when a managed resource vanishes without settling its records: each
// can make records sweepable that would otherwise wait for the next
// interval.
func setupSweep(mgr ctrl.Manager, o Options, clients *coder.Cache) (*deletion.Sweeper, error) {
	if o.SweepInterval <= 0 {
		return nil, nil
	}
	sw := deletion.NewSweeper()
	sw.Kube, sw.Reader, sw.Clients, sw.Log = activation.Client(mgr.GetClient()), activation.Reader(mgr.GetAPIReader()), clients, o.Logger.WithValues("controller", "cleanup-sweep")
	sw.Timeout, sw.Interval, sw.Grace = o.CoderTimeout, o.SweepInterval, o.SweepGrace
	return sw, errors.Wrap(mgr.Add(sw), "cannot add the cleanup sweep")
}

// managedSetups set up the controller of one managed kind, of either
// scope, by its Kind.
func managedSetups(ctx context.Context, mgr ctrl.Manager, o Options, kinds *activation.Kinds, records *deletion.Store, clients *coder.Cache) map[string]func(schema.GroupVersionKind) error {
	opts := managedkind.Options{
		Options:            o.Options,
		Limiter:            o.Limiter,
		Writes:             o.Writes,
		Connector:          &providerconfig.Connector{Kube: mgr.GetClient(), Clients: clients, Timeout: o.CoderTimeout},
		ManagementPolicies: o.ManagementPolicies,
		Releases:           deletion.NewReleases(),
		Records:            records,
		Keys:               coder.NewKeyLister(o.KeyListTTL),
		Kinds:              kinds,
	}
	// One key for both scopes, read once and shared by every replica.
	fingerprints := &fingerprintkey.Source{Kube: mgr.GetClient(), Reader: mgr.GetAPIReader(), Namespace: o.Namespace}
	return map[string]func(schema.GroupVersionKind) error{
		namespacedaiv1alpha1.AIGatewayKeyKind: func(gvk schema.GroupVersionKind) error {
			return aigatewaykey.Setup(mgr, gvk, aigatewaykey.Options{Options: opts})
		},
		namespacedaiv1alpha1.AIProviderKind: func(gvk schema.GroupVersionKind) error {
			return aiprovider.Setup(ctx, mgr, gvk, aiprovider.Options{Options: opts, FingerprintKey: fingerprints})
		},
		namespacedaiv1alpha1.GroupAIBudgetKind: func(gvk schema.GroupVersionKind) error {
			return aibudget.SetupGroupAIBudget(mgr, gvk, opts)
		},
		namespacedaiv1alpha1.UserAIBudgetOverrideKind: func(gvk schema.GroupVersionKind) error {
			return aibudget.SetupUserAIBudgetOverride(mgr, gvk, opts)
		},
		namespacedaiv1alpha1.MCPServerKind: func(gvk schema.GroupVersionKind) error {
			return mcpserver.Setup(mgr, gvk, mcpserver.Options{Options: opts, FingerprintKey: fingerprints})
		},
	}
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
