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

// Package provider builds and runs the provider-coder manager. The binary
// and the integration tests run the provider through the same function, so
// the tests exercise the real wiring.
package provider

import (
	"context"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	changelogs "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"
	xpcontroller "github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/controller"
	"github.com/crossplane-contrib/provider-coder/internal/fairlimit"
	"github.com/crossplane-contrib/provider-coder/internal/version"
	"github.com/crossplane-contrib/provider-coder/internal/writes"
)

// Options are the provider's settings; the binary's flags fill them.
type Options struct {
	Debug                  bool
	PollInterval           time.Duration
	SyncInterval           time.Duration
	MaxReconcileRate       int
	LeaderElection         bool
	ManagementPolicies     bool
	MetricsBindAddress     string
	HealthProbeBindAddress string
	// PprofBindAddress serves Go's /debug/pprof profiles; empty or "0"
	// serves none.
	PprofBindAddress string
	CoderTimeout     time.Duration
	KeyListTTL       time.Duration
	// Sweep enables the cleanup-record sweep (triggered, and every SyncInterval).
	Sweep bool
	// SweepInterval overrides SyncInterval for the sweep.
	SweepInterval time.Duration
	// SweepGrace is how old an Active cleanup record must be before its
	// missing managed resource counts as gone.
	SweepGrace time.Duration
	// ConsoleLogs writes human-readable lines instead of JSON.
	ConsoleLogs bool
	// LogOutput receives the provider's logs; standard error when nil.
	LogOutput io.Writer
	// SkipControllerNameValidation lets one process run the provider more
	// than once, as tests that simulate a crash and restart do.
	SkipControllerNameValidation bool
	// MemoryLimit, when above zero, is the Go runtime's soft memory limit
	// (SoftMemoryLimit); the binary sets it, tests running the provider in
	// their own process do not.
	MemoryLimit int64
	// EnableChangelogs sends an entry for every create, update and delete
	// in Coder, and every release without delete, to the change-log
	// service (Crossplane's change-logs sidecar) at ChangelogsSocket.
	EnableChangelogs bool
	ChangelogsSocket string
	// Namespace is the namespace the provider runs in, where it keeps the
	// Secret of its fingerprint key. Empty: $POD_NAMESPACE, which
	// Crossplane sets on every provider pod, else the namespace of the
	// pod's ServiceAccount, else "default" (a provider run outside the
	// cluster).
	Namespace string
}

// serviceAccountNamespace is where Kubernetes mounts the namespace of a
// pod's ServiceAccount.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// namespaceOf is the namespace the provider keeps its own Secrets in.
func namespaceOf(o Options) string {
	if o.Namespace != "" {
		return o.Namespace
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(serviceAccountNamespace); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	return "default"
}

// DefaultOptions are the defaults Crossplane users expect.
func DefaultOptions() Options {
	return Options{
		PollInterval:           time.Minute,
		SyncInterval:           time.Hour,
		MaxReconcileRate:       10,
		ManagementPolicies:     true,
		MetricsBindAddress:     ":8080",
		HealthProbeBindAddress: ":8081",
		CoderTimeout:           30 * time.Second,
		KeyListTTL:             5 * time.Second,
		Sweep:                  true,
		SweepGrace:             time.Minute,
		ChangelogsSocket:       DefaultChangelogsSocket,
	}
}

// Scheme returns a scheme with Kubernetes' and provider-coder's types.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := apis.AddToScheme(s); err != nil {
		return nil, err
	}
	// The CRD gate reads CRDs to learn which kinds are served.
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// RESTConfig returns a copy of cfg with the provider's client-side rate
// limits: none, as controller-runtime's GetConfig chooses, so the API
// server's priority and fairness alone paces the provider. The binary and
// the scenario tests both run the provider with it.
func RESTConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst, c.RateLimiter = -1, 0, nil
	return c
}

// Run runs the provider against the cluster cfg points at until ctx ends.
func Run(ctx context.Context, cfg *rest.Config, o Options) error {
	out := o.LogOutput
	if out == nil {
		out = os.Stderr
	}
	zo := []zap.Opts{zap.UseDevMode(o.Debug), zap.WriteTo(out), zap.Level(levelOf(o.Debug))}
	if o.ConsoleLogs {
		zo = append(zo, zap.ConsoleEncoder())
	}
	zl := zap.New(zo...)
	ctrl.SetLogger(zl)
	log := logging.NewLogrLogger(zl.WithName("provider-coder"))
	if o.MemoryLimit > 0 {
		debug.SetMemoryLimit(o.MemoryLimit)
		log.Info("Go soft memory limit set from the container's memory limit", "bytes", o.MemoryLimit)
	}

	s, err := Scheme()
	if err != nil {
		return errors.Wrap(err, "cannot build scheme")
	}
	if err := waitForGrant(ctx, cfg, s, log, o); err != nil {
		return err
	}
	// Every write of the manager's client is noted, so that a managed
	// resource is never reconciled from a cached copy older than it.
	own := writes.NewWrites()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		NewClient: func(cfg *rest.Config, o client.Options) (client.Client, error) {
			c, err := client.New(cfg, o)
			if err != nil {
				return nil, err
			}
			return own.Client(c), nil
		},
		Scheme:                     s,
		Logger:                     zl,
		LeaderElection:             o.LeaderElection,
		LeaderElectionID:           "crossplane-leader-election-provider-coder",
		LeaderElectionResourceLock: "leases",
		// Nothing reads managedFields: the cache holds every managed
		// resource, connection Secret and cleanup record without them
		// (docs/performance.md, memory at 5,000 resources).
		Cache: cache.Options{SyncPeriod: &o.SyncInterval, DefaultTransform: cache.TransformStripManagedFields(),
			// The CRD gate needs a CRD's names, versions and conditions,
			// not its schema.
			ByObject: map[client.Object]cache.ByObject{
				&apiextensionsv1.CustomResourceDefinition{}: {Transform: customresourcesgate.TransformStripCRDSchema},
			}},
		Metrics:                metricsserver.Options{BindAddress: o.MetricsBindAddress},
		HealthProbeBindAddress: o.HealthProbeBindAddress,
		PprofBindAddress:       o.PprofBindAddress,
		Controller:             ctrlconfig.Controller{SkipNameValidation: &o.SkipControllerNameValidation},
	})
	if err != nil {
		return errors.Wrap(err, "cannot create manager")
	}
	if err := addProbes(mgr); err != nil {
		return err
	}

	rate := max(1, o.MaxReconcileRate)
	changes, err := changeLogs(o)
	if err != nil {
		return err
	}
	kinds, err := gateKinds(ctx, mgr, log)
	if err != nil {
		return err
	}
	if err := controller.Setup(ctx, mgr, controller.Options{
		Options: xpcontroller.Options{
			Logger:                  log,
			PollInterval:            o.PollInterval,
			MaxConcurrentReconciles: rate,
			Features:                &feature.Flags{},
			MetricOptions:           managedMetrics(stateMetricsInterval),
			ChangeLogOptions:        changes,
		},
		CoderTimeout:       o.CoderTimeout,
		KeyListTTL:         o.KeyListTTL,
		ManagementPolicies: o.ManagementPolicies,
		SweepInterval:      sweepInterval(o),
		SweepGrace:         o.SweepGrace,
		Limiter:            fairlimit.New(rate),
		Writes:             own,
		Namespace:          namespaceOf(o),
		Kinds:              kinds,
	}); err != nil {
		return errors.Wrap(err, "cannot set up controllers")
	}
	log.Info("Starting provider-coder", "version", version.Version, "poll", o.PollInterval, "sync", o.SyncInterval, "max-reconcile-rate", rate, "namespace", namespaceOf(o))
	return errors.Wrap(mgr.Start(ctx), "cannot run manager")
}

// addProbes answers the health and readiness probes once the manager runs
// (before, WaitForGrant does).
func addProbes(mgr ctrl.Manager) error {
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return errors.Wrap(err, "cannot add health check")
	}
	return errors.Wrap(mgr.AddReadyzCheck("readyz", healthz.Ping), "cannot add ready check")
}

// DefaultChangelogsSocket is where Crossplane's change-logs sidecar listens
// in a provider pod (the volume its DeploymentRuntimeConfig mounts).
const DefaultChangelogsSocket = "/var/run/changelogs/changelogs.sock"

// changeLogs connects to the change-log service at o.ChangelogsSocket when
// change logs are enabled; nil options otherwise. The connection is lazy: an entry the service cannot take
// fails alone, as crossplane-runtime's logger reports, and never a
// reconcile.
func changeLogs(o Options) (*xpcontroller.ChangeLogOptions, error) {
	if !o.EnableChangelogs {
		return nil, nil
	}
	conn, err := grpc.NewClient("unix://"+o.ChangelogsSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, errors.Wrap(err, "cannot connect to the change-log service")
	}
	return &xpcontroller.ChangeLogOptions{ChangeLogger: managed.NewGRPCChangeLogger(
		changelogs.NewChangeLogServiceClient(conn), managed.WithProviderVersion("provider-coder:"+version.Version))}, nil
}

// crossplane-runtime's managed-resource metrics (time to first ready,
// deletion time, drift; resources by state), registered once per process:
// the scenario tests run the provider more than once in one.
var (
	registerManagedMetrics sync.Once
	mrMetrics              *managed.MRMetricRecorder
	mrStateMetrics         *statemetrics.MRStateMetrics
)

// stateMetricsInterval is how often the resources-by-state gauges are
// counted, from the cache; crossplane-runtime's providers default to 5s.
const stateMetricsInterval = 5 * time.Second

func managedMetrics(statePoll time.Duration) *xpcontroller.MetricOptions {
	registerManagedMetrics.Do(func() {
		mrMetrics = managed.NewMRMetricRecorder()
		mrStateMetrics = statemetrics.NewMRStateMetrics()
		metrics.Registry.MustRegister(mrMetrics, mrStateMetrics)
	})
	return &xpcontroller.MetricOptions{PollStateMetricInterval: statePoll, MRMetrics: mrMetrics, MRStateMetrics: mrStateMetrics}
}

func sweepInterval(o Options) time.Duration {
	switch {
	case !o.Sweep:
		return 0
	case o.SweepInterval > 0:
		return o.SweepInterval
	default:
		return o.SyncInterval
	}
}

func levelOf(debug bool) zapcore.Level {
	if debug {
		return zapcore.DebugLevel
	}
	return zapcore.InfoLevel
}
