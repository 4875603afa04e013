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

package metrics

import (
	"cmp"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// What the provider is and what its ProviderConfigs can do now.
var (
	buildInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "build_info",
		Help:      "Always 1; its labels say which build of provider-coder runs: module version, VCS revision (\"unknown\" when the build did not record one) and Go version.",
	}, []string{"version", "revision", "goversion"})

	providerConfigs = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "providerconfigs",
		Help:      "ProviderConfigs of every kind by the status (True, False) and reason of their Ready condition, as of their last reconcile.",
	}, []string{"ready", "reason"})

	tokenExpiry = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "token_expiry_timestamp_seconds",
		Help:      "The earliest expiry, as Unix time by Coder's clock, of the session tokens of the ProviderConfigs of a scope (Cluster: ClusterProviderConfigs and legacy ProviderConfigs; Namespaced: the tenants' ProviderConfigs) whose expiry Coder does not extend on use. No series while there is none.",
	}, []string{"scope"})
)

// Scopes of the token expiry: the platform team's ProviderConfigs and the
// tenants'.
const (
	ScopeCluster    = "Cluster"
	ScopeNamespaced = "Namespaced"
)

// Readiness is one value of the providerconfigs gauge's labels.
type Readiness struct {
	Ready  string
	Reason string
}

// published remembers every readiness the gauge has shown, so that one no
// ProviderConfig has any more reads 0 instead of its last count.
var published = struct {
	mu   sync.Mutex
	seen map[Readiness]bool
}{seen: map[Readiness]bool{}}

// SetProviderConfigs sets how many ProviderConfigs have each readiness;
// every readiness shown before and missing from n is set to 0.
func SetProviderConfigs(n map[Readiness]int) {
	published.mu.Lock()
	defer published.mu.Unlock()
	for r := range n {
		published.seen[r] = true
	}
	for r := range published.seen {
		providerConfigs.WithLabelValues(r.Ready, r.Reason).Set(float64(n[r]))
	}
}

// SetTokenExpiry sets the earliest token expiry of a scope; zero removes
// the scope's series.
func SetTokenExpiry(scope string, at time.Time) {
	if at.IsZero() {
		tokenExpiry.DeleteLabelValues(scope)
		return
	}
	tokenExpiry.WithLabelValues(scope).Set(float64(at.UnixMilli()) / 1000)
}

// publishBuildInfo sets the one build_info series.
func publishBuildInfo() { buildInfo.WithLabelValues(buildLabels()...).Set(1) }

// buildLabels are the version, revision and Go version the Go toolchain
// recorded in the binary.
func buildLabels() []string {
	version, revision := "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = cmp.Or(bi.Main.Version, version)
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = cmp.Or(s.Value, revision)
			}
		}
	}
	return []string{version, revision, runtime.Version()}
}

// Known are the label values a series exists for before anything
// happened, so that a rule like increase(x[1h]) > 0 sees the first event
// after a start: a counter created by its first increment has no earlier
// sample to increase from.
type Known struct {
	// Kinds are the managed kinds (AIGatewayKey, AIProvider).
	Kinds []string
	// DeleteFailureReasons are the reasons external_delete_failures_total
	// counts.
	DeleteFailureReasons []string
	// BudgetKinds are the kinds whose records a sweep can find superseded.
	BudgetKinds []string
	// RotatingKinds are the kinds that rotate keys, and Settles how a
	// rotation's settle window can end.
	RotatingKinds, Settles []string
	// RecordPhases are the phases of a cleanup record.
	RecordPhases []string
	// Readiness are the Ready status and reasons a ProviderConfig can have.
	Readiness []Readiness
}

// Sweep results, the label values of swept_total: deleted (verified
// absent in Coder, the record removed), superseded (someone wrote the
// budget since the provider's last write: left in Coder, the record
// removed) or error (retried).
const (
	SweepDeleted    = "deleted"
	SweepSuperseded = "superseded"
	SweepError      = "error"
)

// Initialise creates every series of k at zero. It is safe to call more
// than once: a series that exists keeps its value.
func Initialise(k Known) {
	for _, kind := range k.Kinds {
		releasedWithoutDelete.WithLabelValues(kind)
		deletionDuration.WithLabelValues(kind)
		for _, r := range []string{SweepDeleted, SweepError} {
			swept.WithLabelValues(kind, r)
		}
		for _, r := range k.DeleteFailureReasons {
			externalDeleteFailures.WithLabelValues(kind, r)
		}
	}
	for _, kind := range k.BudgetKinds {
		swept.WithLabelValues(kind, SweepSuperseded)
	}
	for _, kind := range k.RotatingKinds {
		for _, s := range k.Settles {
			keyRotations.WithLabelValues(kind, s)
		}
		for _, o := range []string{InUseKept, InUseRevoked} {
			retiringInUse.WithLabelValues(kind, o)
		}
	}
	for _, p := range k.RecordPhases {
		records.WithLabelValues(p)
	}
	published.mu.Lock()
	defer published.mu.Unlock()
	for _, r := range k.Readiness {
		if !published.seen[r] {
			published.seen[r] = true
			providerConfigs.WithLabelValues(r.Ready, r.Reason)
		}
	}
}

// DeferrableController creates the deferred-reconcile series of a
// controller the per-namespace rate applies to.
func DeferrableController(name string) { reconcilesDeferred.WithLabelValues(name) }
