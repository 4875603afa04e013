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

// Package metrics owns every Prometheus metric of provider-coder. Metrics are
// registered once, with controller-runtime's registry, so the manager serves
// them next to crossplane-runtime's managed-resource metrics; other packages
// record through the small functions here and never touch a collector.
//
// Labels carry only bounded values that are safe to publish: kinds, path
// templates, HTTP methods, status codes, reasons. Never a secret in a label,
// and never a per-object value (names, ids, URLs), which would also make the
// series count unbounded; the one exception is budget_spend_ratio, one
// series per AI budget resource, named by its namespace and name and
// removed with it, so the series follow the budgets the cluster holds.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

const namespace = "provider_coder"

// Coder API requests, as seen by the one Coder client.
var (
	coderAPIRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace,
		Subsystem: "coder_api",
		Name:      "requests_total",
		Help:      "Requests to the Coder API by endpoint path template, method and HTTP status code (\"error\" when no response arrived).",
	}, []string{LabelCoderEndpoint, "method", "code"})

	coderAPIRequestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace,
		Subsystem: "coder_api",
		Name:      "request_duration_seconds",
		Help:      "Duration of requests to the Coder API by endpoint path template and method.",
		// Up to the client's default 30s timeout, so slow Coders are visible.
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{LabelCoderEndpoint, "method"})
)

// LabelCoderEndpoint is the label of a Coder API path template. Not
// "endpoint": the Prometheus Operator sets that target label on every
// series it scrapes, and renames a metric's own to exported_endpoint.
const LabelCoderEndpoint = "coder_endpoint"

// Deletion: the hold and the dependents' side of it (DESIGN section 4).
var (
	releasedWithoutDelete = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace,
		Subsystem: "cleanup",
		Name:      "released_without_delete_total",
		Help:      "Managed resources whose finalizer was removed without a verified delete in Coder, by kind. Counted after the finalizer removal is persisted; an intentional Orphan is not counted.",
	}, []string{"kind"})

	deletionDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace,
		Subsystem: "cleanup",
		Name:      "deletion_duration_seconds",
		Help:      "Time from a managed resource's deletion timestamp to the removal of its finalizer, by kind.",
		Buckets:   []float64{0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900},
	}, []string{"kind"})

	externalDeleteFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace,
		Subsystem: "cleanup",
		Name:      "external_delete_failures_total",
		Help:      "Failed deletes in Coder, by kind and error class (Unavailable, Forbidden, Unauthorized, Invalid, TLS, Unknown, StillPresent).",
	}, []string{"kind", "reason"})

	holdDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace,
		Subsystem: "hold",
		Name:      "duration_seconds",
		Help:      "Time from a ProviderConfig's deletion timestamp to its release.",
		Buckets:   []float64{0.5, 1, 5, 10, 30, 60, 120, 300, 600, 900},
	})

	holding = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace,
		Subsystem: "hold",
		Name:      "providerconfigs",
		Help:      "ProviderConfigs being deleted that hold for their dependents now.",
	})

	holdingInGrace = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace,
		Subsystem: "hold",
		Name:      "grace_providerconfigs",
		Help:      "ProviderConfigs whose hold is in its grace, near its bound: past dependentTimeout, each dependent makes its one bounded pass, and what is not deleted by the end is released without delete.",
	})
)

// Cleanup records and the sweep (DESIGN section 5).
var (
	records = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace,
		Subsystem: "cleanup",
		Name:      "records",
		Help:      "Cleanup records by phase (Active, Abandoned), as of the last sweep.",
	}, []string{"phase"})

	swept = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace,
		Subsystem: "cleanup",
		Name:      "swept_total",
		Help:      "Abandoned cleanup records swept, by kind and result (deleted: verified absent in Coder and the record removed; superseded: a budget someone wrote since the provider did, left in Coder and the record removed; error: retried on the next tick).",
	}, []string{"kind", "result"})

	sweepDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace,
		Subsystem: "cleanup",
		Name:      "sweep_duration_seconds",
		Help:      "Duration of one sweep over every cleanup record.",
		Buckets:   prometheus.ExponentialBuckets(0.01, 4, 8),
	})
)

// AI budgets: one series per budget resource with a limit (internal/spendwarning).
var budgetSpendRatio = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Namespace: namespace,
	Subsystem: "budget",
	Name:      "spend_ratio",
	Help:      "The spend of each AI budget resource this budget period over its limit, as of its last poll: a GroupAIBudget's group spend over the combined limit of its members, a UserAIBudgetOverride's user spend over the override's limit; 1 is the limit. By kind and the resource's namespace (empty for the cluster-scoped kinds) and name. No series for a budget without a limit, or deleted.",
}, []string{"kind", LabelResourceNamespace, LabelResourceName})

// The labels of a budget resource. Not "namespace": the Prometheus
// Operator sets that target label (the provider pod's namespace) on every
// series it scrapes, and renames a metric's own to exported_namespace.
const (
	LabelResourceNamespace = "resource_namespace"
	LabelResourceName      = "resource_name"
)

// SetBudgetSpendRatio sets the spend over the limit of one budget resource.
func SetBudgetSpendRatio(kind, namespace, name string, ratio float64) {
	budgetSpendRatio.WithLabelValues(kind, namespace, name).Set(ratio)
}

// ForgetBudgetSpendRatio removes the series of one budget resource.
func ForgetBudgetSpendRatio(kind, namespace, name string) {
	budgetSpendRatio.DeleteLabelValues(kind, namespace, name)
}

// Key rotation.
var keyRotations = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: namespace,
	Name:      "key_rotations_total",
	Help:      "AI Gateway key rotations whose settle window ended and whose retiring key was deleted in Coder, by kind and how the window ended (early: Coder showed the gateway replicas on the new key; full: the window ran its length).",
}, []string{"kind", "settle"})

// retiringInUse counts the retiring keys that gateway replicas still used
// once their settle window was over.
var retiringInUse = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: namespace,
	Name:      "retiring_keys_in_use_total",
	Help:      "Retiring AI Gateway keys that gateway replicas still used after the settle window, by kind and outcome (kept: kept past the window while they heartbeat, up to rotation.maxSettleWindow, with the RetiringKeyInUse condition; revoked: deleted at rotation.maxSettleWindow while still in use).",
}, []string{"kind", "outcome"})

// The outcomes of retiring_keys_in_use_total.
const (
	InUseKept    = "kept"
	InUseRevoked = "revoked"
)

// RetiringKeyInUse counts a retiring key of kind still in use after its
// settle window: kept (InUseKept) or revoked at the window's bound
// (InUseRevoked).
func RetiringKeyInUse(kind, outcome string) { retiringInUse.WithLabelValues(kind, outcome).Inc() }

// The per-namespace reconcile rate (internal/fairlimit).
var reconcilesDeferred = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: namespace,
	Name:      "reconciles_deferred_total",
	Help:      "Reconciles of managed resources that the per-namespace rate (--max-reconcile-rate) sent back to wait, by controller. controller_runtime_reconcile_total counts them as well; the difference is the reconciles that ran.",
}, []string{"controller"})

// ReconcileDeferred counts one reconcile the rate limit deferred.
func ReconcileDeferred(controller string) { reconcilesDeferred.WithLabelValues(controller).Inc() }

// KeyRotated counts one rotation whose retiring key was deleted.
func KeyRotated(kind, settle string) { keyRotations.WithLabelValues(kind, settle).Inc() }

// SetRecords sets the number of cleanup records in a phase.
func SetRecords(phase string, n int) { records.WithLabelValues(phase).Set(float64(n)) }

// Swept counts one swept record.
func Swept(kind, result string) { swept.WithLabelValues(kind, result).Inc() }

// ObserveSweep records the duration of one sweep.
func ObserveSweep(d time.Duration) { sweepDuration.Observe(d.Seconds()) }

// ReleasedWithoutDelete counts one release without a verified delete.
func ReleasedWithoutDelete(kind string) { releasedWithoutDelete.WithLabelValues(kind).Inc() }

// ObserveDeletion records how long a managed resource took to delete.
func ObserveDeletion(kind string, d time.Duration) {
	deletionDuration.WithLabelValues(kind).Observe(d.Seconds())
}

// ExternalDeleteFailed counts one failed delete in Coder.
func ExternalDeleteFailed(kind, reason string) {
	externalDeleteFailures.WithLabelValues(kind, reason).Inc()
}

// ObserveHold records how long a ProviderConfig held before its release.
func ObserveHold(d time.Duration) { holdDuration.Observe(d.Seconds()) }

// SetHolding sets how many ProviderConfigs hold now, and how many of them
// are in their grace.
func SetHolding(n, grace int) {
	holding.Set(float64(n))
	holdingInGrace.Set(float64(grace))
}

// CodeError is the code label of a request that got no HTTP response.
const CodeError = "error"

// registered are every collector of the package, all in controller-runtime's
// registry: the metrics the provider serves.
var registered = []prometheus.Collector{
	coderAPIRequests,
	coderAPIRequestDuration,
	releasedWithoutDelete,
	deletionDuration,
	externalDeleteFailures,
	holdDuration,
	holding,
	holdingInGrace,
	records,
	swept,
	sweepDuration,
	keyRotations,
	retiringInUse,
	reconcilesDeferred,
	buildInfo,
	providerConfigs,
	tokenExpiry,
	budgetSpendRatio,
}

func init() {
	metrics.Registry.MustRegister(registered...)
	publishBuildInfo()
}

// ObserveCoderRequest records one request to the Coder API. endpoint must be a
// path template (/api/v2/ai/providers/{idOrName}), never a concrete path, and
// code an HTTP status code or CodeError.
func ObserveCoderRequest(endpoint, method, code string, d time.Duration) {
	coderAPIRequests.WithLabelValues(endpoint, method, code).Inc()
	coderAPIRequestDuration.WithLabelValues(endpoint, method).Observe(d.Seconds())
}
