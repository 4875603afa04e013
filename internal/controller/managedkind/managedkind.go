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

// Package managedkind builds the managed reconciler and controller that
// every managed kind of the provider shares: the external name is the Coder
// id, the finalizer is ours and settles cleanup records, and the controller
// follows its ProviderConfig's hold. A kind supplies a Kind: its external
// client to Coder, the name its resources have in Coder, and any extra
// watches.
package managedkind

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/activation"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/fairlimit"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/internal/writes"
)

const (
	errKindNotScheme = "kind is not registered"
	errSetup         = "cannot set up managed controller"
)

// Options every managed kind shares.
type Options struct {
	controller.Options
	// Connector connects managed resources to Coder.
	Connector *providerconfig.Connector
	// ManagementPolicies enables management policies.
	ManagementPolicies bool
	// Releases counts releases without a verified delete.
	Releases *deletion.Releases
	// Records writes the cleanup records.
	Records *deletion.Store
	// PollHook, if set, says when a resource is reconciled next instead of
	// after PollInterval.
	PollHook managed.PollIntervalHook
	// Limiter is the reconcile rate every managed kind shares, fairly
	// between tenants.
	Limiter *fairlimit.Limiter
	// Keys shares one key list per ProviderConfig among every key polling
	// at about the same time, and a deleting resource's looks.
	Keys *coder.KeyLister
	// Writes, if set, holds a reconcile back until the cache has the
	// provider's own last write of its object. The manager's client must
	// note its writes in it (Writes.Client).
	Writes *writes.Writes
	// Kinds say which gated kinds exist: no create while CleanupRecord
	// does not. Nil: every kind exists.
	Kinds *activation.Kinds
}

// A Kind is what one managed kind, whose resources are R, gives the shared
// setup.
type Kind[R resource.Managed] struct {
	// CoderName is the name a resource has (or will have) in Coder.
	CoderName func(R) string
	// External builds the kind's client to Coder for one reconcile, through
	// the session its ProviderConfig opened; it logs, naming the
	// resource, and records events through the controller's log and record.
	External func(s providerconfig.Session, log logging.Logger, record event.Recorder) deletion.Live[R]
	// Watches, if set, adds the kind's own watches.
	Watches func(*builder.Builder) *builder.Builder
	// Gone, if set, is told of a resource that left the cache (deleted, or
	// its finalizers stripped), to drop what the kind keeps of it outside
	// the object (a metric series, a clock).
	Gone func(types.NamespacedName)
}

// Setup adds a controller for the managed kind gvk, whose resources are R.
func Setup[R resource.Managed](mgr ctrl.Manager, gvk schema.GroupVersionKind, o Options, k Kind[R]) error {
	name := managed.ControllerName(gvk.GroupKind().String())
	obj, err := mgr.GetScheme().New(gvk)
	if err != nil {
		return errors.Wrap(err, errKindNotScheme)
	}
	if _, ok := obj.(R); !ok {
		// Every reconcile would fail on the type: fail the setup instead.
		return errors.Errorf(errFmtNotKind, obj)
	}
	log := o.Logger.WithValues("controller", name)
	record := event.NewAPIRecorder(mgr.GetEventRecorderFor(name)) //nolint:staticcheck // crossplane-runtime's recorder takes the legacy record.EventRecorder.
	fin := deletion.NewFinalizer(activation.Client(mgr.GetClient()), providerconfig.ManagedFinalizer, gvk.Kind, o.Releases, o.Records, record)
	if c := o.ChangeLogOptions; c != nil && c.ChangeLogger != nil {
		fin.WithChangeLogger(c.ChangeLogger)
	}
	c := &connector[R]{Options: o, Kind: gvk.Kind, CoderName: k.CoderName, record: record,
		External: k.client(log, record)}
	opts := []managed.ReconcilerOption{
		// The reconciler hands the connector an R, or fails the reconcile.
		managed.WithTypedExternalConnector[R](c),
		managed.WithLogger(log),
		managed.WithRecorder(record),
		managed.WithPollInterval(o.PollInterval),
		// The external name is the Coder id, known only after create: do
		// not default it to metadata.name.
		managed.WithInitializers(),
		// A create whose outcome is unknown is found again in Coder by its
		// name (UID-derived for keys; adopted only when created after the
		// attempt for providers): safe to proceed.
		managed.WithDeterministicExternalName(true),
		// Coder reads its own writes: an object missing right after its
		// create is really missing. Waiting crossplane-runtime's default
		// 30s would also delay every delete of a young object.
		managed.WithCreationGracePeriod(0),
		managed.WithFinalizer(fin),
	}
	if o.PollHook != nil {
		opts = append(opts, managed.WithPollIntervalHook(o.PollHook))
	}
	if o.ManagementPolicies {
		opts = append(opts, managed.WithManagementPolicies())
	}
	if c := o.ChangeLogOptions; c != nil && c.ChangeLogger != nil {
		// One entry per create, update and delete the reconciler makes;
		// the finalizer adds the releases without delete.
		opts = append(opts, managed.WithChangeLogger(c.ChangeLogger))
	}
	if m := o.MetricOptions; m != nil {
		opts = append(opts, managed.WithMetricRecorder(m.MRMetrics))
		if err := addStateMetrics(mgr, gvk, log, m); err != nil {
			return err
		}
	}
	r := managed.NewReconciler(skipUnchangedPublish(mgr), resource.ManagedKind(gvk), opts...)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		// Only a change someone asked for starts a reconcile; the
		// reconciler's own writes do not (see desiredStateChanged). What
		// passes is urgent: it goes before the tenant's polls.
		// Without the filter each create cost 3 to 5 reconciles instead
		// of 2 (docs/performance.md).
		For(obj.(client.Object), builder.WithPredicates(desiredStateChanged(), fairlimit.Events(name, o.Limiter)))
	if k.Watches != nil {
		b = k.Watches(b)
	}
	if kind, ok := apis.ManagedKindOf(obj.(resource.Managed)); ok {
		b = watchConfigs(b, mgr.GetClient(), kind)
	}
	if k.Gone != nil {
		b = watchGone(b, obj.(client.Object), k.Gone)
	}
	newObj := func() client.Object { return obj.DeepCopyObject().(client.Object) }
	var rec reconcile.Reconciler = &stalledReconciler{
		inner: r, cache: mgr.GetClient(), newObj: func() resource.Managed { return newObj().(resource.Managed) },
		policies: o.ManagementPolicies, connector: o.Connector, finalizer: fin, log: log,
	}
	rec = fairlimit.NewReconciler(name, rec, o.Limiter)
	metrics.DeferrableController(name)
	if o.Writes != nil {
		rec = o.Writes.Reconciler(name, rec, mgr.GetCache(), newObj)
	}
	return errors.Wrap(b.Complete(rec), errSetup)
}

// addStateMetrics counts the resources of kind gvk by state
// (crossplane_managed_resource_exists, _ready, _synced).
func addStateMetrics(mgr ctrl.Manager, gvk schema.GroupVersionKind, log logging.Logger, m *controller.MetricOptions) error {
	if m.MRStateMetrics == nil {
		return nil
	}
	l, err := mgr.GetScheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return errors.Wrap(err, errKindNotScheme)
	}
	list, ok := l.(resource.ManagedList)
	if !ok {
		return errors.Errorf("%sList is not a managed resource list", gvk.Kind)
	}
	return errors.Wrap(mgr.Add(statemetrics.NewMRStateRecorder(mgr.GetClient(), log, m.MRStateMetrics, list, m.PollStateMetricInterval)), errSetup)
}

const (
	// errConnect wraps a failure to reach Coder through the ProviderConfig.
	errConnect    = "cannot connect to Coder"
	errFmtNotKind = "managed resource is a %T, not of this controller's kind"
)

// A connector connects the managed resources of one kind, R, to Coder
// through their ProviderConfig and wraps the kind's external client in the
// cleanup pass, which turns a delete into a bounded pass when the
// ProviderConfig is gone, released or in its grace.
type connector[R resource.Managed] struct {
	Options
	Kind string
	// CoderName is the name the resource has (or will have) in Coder.
	CoderName func(R) string
	// External builds the kind's client for a session that has one.
	External func(providerconfig.Session, R) deletion.Live[R]
	record   event.Recorder
}

// client builds the kind's client for one reconcile of mg.
func (k Kind[R]) client(log logging.Logger, record event.Recorder) func(providerconfig.Session, R) deletion.Live[R] {
	return func(s providerconfig.Session, mg R) deletion.Live[R] {
		return k.External(s, ResourceLog(log, mg), record)
	}
}

// ResourceLog is the log of a kind's client for one resource: what it logs
// names the resource, as the managed reconciler's own lines do.
func ResourceLog(log logging.Logger, mg resource.Managed) logging.Logger {
	if mg.GetNamespace() == "" {
		return log.WithValues("name", mg.GetName())
	}
	return log.WithValues("namespace", mg.GetNamespace(), "name", mg.GetName())
}

// OriginOf is where a create through session s goes, as records name it.
func OriginOf(s providerconfig.Session) deletion.Origin {
	return deletion.Origin{DeploymentID: s.DeploymentID, ProviderConfig: clusterv1alpha1.RecordedProviderConfig{
		Group: s.Ref.Group, Kind: s.Ref.Kind, Namespace: s.Ref.Namespace, Name: s.Ref.Name, URL: coder.CanonicalURL(s.URL),
	}}
}

// Connect implements managed.TypedExternalConnector.
func (c *connector[R]) Connect(ctx context.Context, mg R) (managed.TypedExternalClient[R], error) {
	s, err := c.Connector.Connect(ctx, mg)
	if err != nil {
		return nil, errors.Wrap(err, errConnect)
	}
	s.CreateRefused = activation.CreateRefused(s.CreateRefused, c.Kinds.Exists(activation.CleanupRecord))
	pass := deletion.Pass{
		Kind: c.Kind, Mode: s.Mode, Releases: c.Releases, CreateRefused: s.CreateRefused,
		Records: c.Records, Origin: OriginOf(s), Record: c.record,
		// The reconciler gives the client the object it connected.
		CoderName: func(resource.Managed) string { return c.CoderName(mg) },
	}
	if s.Client == nil {
		return deletion.Wrap[R](pass, nil), nil
	}
	pass.Deployment = s.Client.DeploymentID
	pass.Coder = s.Client
	pass.Keys, pass.Scope = c.Keys, s.Scope
	return deletion.Wrap(pass, c.External(s, mg)), nil
}
