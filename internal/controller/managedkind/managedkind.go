// Package managedkind builds the managed reconciler and controller that
// every managed kind of the provider shares: the external name is the Coder
// id, the finalizer is ours and settles cleanup records, and the controller
// follows its ProviderConfig's hold. Kinds supply only their connector and
// any extra watches.
package managedkind

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
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
	"github.com/crossplane-contrib/provider-coder/internal/cleanup"
	"github.com/crossplane-contrib/provider-coder/internal/fairlimit"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
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
	Releases *cleanup.Releases
	// Records writes the cleanup records.
	Records *cleanup.Records
	// PollHook, if set, says when a resource is reconciled next instead of
	// after PollInterval.
	PollHook managed.PollIntervalHook
	// Limiter is the reconcile rate every managed kind shares, fairly
	// between tenants.
	Limiter *fairlimit.Limiter
	// Writes, if set, holds a reconcile back until the cache has the
	// provider's own last write of its object. The manager's client must
	// note its writes in it (Writes.Client).
	Writes *Writes
}

// A Kit is what a kind's connector needs from the setup.
type Kit struct {
	Kind   string
	Log    logging.Logger
	Record event.Recorder
}

// Setup adds a controller for the managed kind gvk. connect builds the
// kind's connector; extra adds the kind's own watches (may be nil).
func Setup(mgr ctrl.Manager, gvk schema.GroupVersionKind, o Options, connect func(Kit) managed.ExternalConnector, extra func(*builder.Builder) *builder.Builder) error {
	name := managed.ControllerName(gvk.GroupKind().String())
	obj, err := mgr.GetScheme().New(gvk)
	if err != nil {
		return errors.Wrap(err, errKindNotScheme)
	}
	kit := Kit{
		Kind:   gvk.Kind,
		Log:    o.Logger.WithValues("controller", name),
		Record: event.NewAPIRecorder(mgr.GetEventRecorderFor(name)), //nolint:staticcheck // crossplane-runtime's recorder takes the legacy record.EventRecorder.
	}
	opts := []managed.ReconcilerOption{
		managed.WithExternalConnector(connect(kit)),
		managed.WithLogger(kit.Log),
		managed.WithRecorder(kit.Record),
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
		managed.WithFinalizer(cleanup.NewFinalizer(mgr.GetClient(), providerconfig.ManagedFinalizer, gvk.Kind, o.Releases, o.Records, kit.Record)),
	}
	if o.PollHook != nil {
		opts = append(opts, managed.WithPollIntervalHook(o.PollHook))
	}
	if o.ManagementPolicies {
		opts = append(opts, managed.WithManagementPolicies())
	}
	if m := o.MetricOptions; m != nil {
		opts = append(opts, managed.WithMetricRecorder(m.MRMetrics))
		if err := addStateMetrics(mgr, gvk, kit.Log, m); err != nil {
			return err
		}
	}
	r := managed.NewReconciler(mgr, resource.ManagedKind(gvk), opts...)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		// Only a change someone asked for starts a reconcile; the
		// reconciler's own writes do not (see desiredStateChanged).
		// Without the filter each create cost 3 to 5 reconciles instead
		// of 2 (docs/performance.md).
		For(obj.(client.Object), builder.WithPredicates(desiredStateChanged()))
	if extra != nil {
		b = extra(b)
	}
	if kind, ok := apis.ManagedKindOf(obj.(resource.Managed)); ok {
		b = watchConfigs(b, mgr.GetClient(), kind)
	}
	var rec reconcile.Reconciler = fairlimit.NewReconciler(name, r, o.Limiter)
	if o.Writes != nil {
		o.Writes.track(obj.(client.Object))
		newObj := func() client.Object { return obj.DeepCopyObject().(client.Object) }
		rec = &freshReconciler{name: name, inner: rec, cache: mgr.GetCache(), newObj: newObj, w: o.Writes}
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

// errConnect wraps a failure to reach Coder through the ProviderConfig.
const errConnect = "cannot connect to Coder"

// A Connector connects the managed resources of one kind to Coder through
// their ProviderConfig and wraps the kind's external client in the cleanup
// pass, which turns a delete into a bounded pass when the ProviderConfig is
// gone, released or in its grace.
type Connector struct {
	Options
	Kind string
	// Is reports whether a managed resource is of this kind; NotKind is the
	// error when it is not.
	Is      func(resource.Managed) bool
	NotKind string
	// CoderName is the name the resource has (or will have) in Coder.
	CoderName func(resource.Managed) string
	// Refused, if set, notes on a resource that Coder refused its create.
	Refused func(resource.Managed)
	// External builds the kind's client for a session that has one.
	External func(providerconfig.Session) managed.ExternalClient
}

// Connect implements managed.ExternalConnector.
func (c *Connector) Connect(ctx context.Context, mg resource.Managed) (managed.ExternalClient, error) {
	if !c.Is(mg) {
		return nil, errors.New(c.NotKind)
	}
	s, err := c.Connector.Connect(ctx, mg)
	if err != nil {
		return nil, errors.Wrap(err, errConnect)
	}
	pass := cleanup.Pass{
		Kind: c.Kind, Mode: s.Mode, Releases: c.Releases, CreateRefused: s.CreateRefused,
		Records: c.Records, DeploymentID: s.DeploymentID, CoderName: c.CoderName, Refused: c.Refused,
	}
	if s.Client == nil {
		return pass.Wrap(nil), nil
	}
	return pass.Wrap(c.External(s)), nil
}
