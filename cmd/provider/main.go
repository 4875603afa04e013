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

// Command provider runs provider-coder, the Crossplane provider for Coder's
// AI Gateway keys and AI providers.
package main

import (
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
)

func main() {
	o := provider.DefaultOptions()
	fs := flag.NewFlagSet("provider", flag.ExitOnError)
	fs.BoolVar(&o.Debug, "debug", o.Debug, "Run with debug logging.")
	fs.DurationVar(&o.PollInterval, "poll", o.PollInterval, "How often each managed resource checks Coder for drift.")
	fs.DurationVar(&o.SyncInterval, "sync", o.SyncInterval, "How often every watched object is reconciled again.")
	fs.IntVar(&o.MaxReconcileRate, "max-reconcile-rate", o.MaxReconcileRate, "How many reconciles of managed resources per second each namespace may start; also the concurrent reconciles per controller.")
	fs.BoolVar(&o.LeaderElection, "leader-election", o.LeaderElection, "Use leader election so that only one replica reconciles.")
	fs.BoolVar(&o.ManagementPolicies, "enable-management-policies", o.ManagementPolicies, "Honour spec.managementPolicies on managed resources.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "Address the Prometheus metrics endpoint binds to; 0 disables it.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, "Address the health and readiness probes bind to.")
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", o.PprofBindAddress, "Address Go's profiles (/debug/pprof) bind to; empty or 0 serves none.")
	fs.DurationVar(&o.CoderTimeout, "coder-timeout", o.CoderTimeout, "Timeout of each request to Coder.")
	fs.DurationVar(&o.KeyListTTL, "key-list-ttl", o.KeyListTTL, "How long one list of AI Gateway keys serves every key of a ProviderConfig.")
	fs.BoolVar(&o.Sweep, "sweep", o.Sweep, "Sweep Abandoned cleanup records: delete in Coder what a release without delete left, at start, when a record turns Abandoned or a ProviderConfig turns Ready, with backoff while records are left, and otherwise every --sync.")
	fs.DurationVar(&o.SweepInterval, "sweep-interval", o.SweepInterval, "How often to sweep, when not every --sync (0 means every --sync).")
	fs.DurationVar(&o.SweepGrace, "sweep-grace", o.SweepGrace, "How old an Active cleanup record must be before its missing managed resource counts as gone.")
	fs.BoolVar(&o.EnableChangelogs, "enable-changelogs", o.EnableChangelogs, "Send an entry for every create, update, delete and rotation step in Coder, and every release without delete, to Crossplane's change-logs sidecar at --changelogs-socket.")
	fs.StringVar(&o.ChangelogsSocket, "changelogs-socket", o.ChangelogsSocket, "The Unix socket of the change-log service, with --enable-changelogs.")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "The provider's own namespace, where it keeps the Secret of its fingerprint key; empty means $POD_NAMESPACE (Crossplane sets it), else the pod's.")
	_ = fs.Parse(os.Args[1:])
	o.MemoryLimit, _ = provider.SoftMemoryLimit(os.Getenv, os.ReadFile)

	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider-coder: cannot get Kubernetes config:", err)
		os.Exit(1)
	}
	if err := provider.Run(ctrl.SetupSignalHandler(), provider.RESTConfig(cfg), o); err != nil {
		fmt.Fprintln(os.Stderr, "provider-coder:", err)
		os.Exit(1)
	}
}
