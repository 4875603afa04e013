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
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

func TestObserveCoderRequestCountsByEndpointMethodAndCode(t *testing.T) {
	coderAPIRequests.Reset()
	coderAPIRequestDuration.Reset()

	ObserveCoderRequest("/api/v2/ai-gateway/keys/{id}", "DELETE", "204", 20*time.Millisecond)
	ObserveCoderRequest("/api/v2/ai-gateway/keys/{id}", "DELETE", "204", 30*time.Millisecond)
	ObserveCoderRequest("/api/v2/ai/providers/{idOrName}", "GET", CodeError, 2*time.Second)

	cases := map[string]struct {
		reason string
		labels []string
		want   float64
	}{
		"RepeatedCallsAddUp": {
			reason: "two deletes with the same outcome share one series",
			labels: []string{"/api/v2/ai-gateway/keys/{id}", "DELETE", "204"},
			want:   2,
		},
		"TransportFailure": {
			reason: "a request without a response is counted with code \"error\"",
			labels: []string{"/api/v2/ai/providers/{idOrName}", "GET", "error"},
			want:   1,
		},
		"OtherCodeUntouched": {
			reason: "a code that was never observed stays at zero",
			labels: []string{"/api/v2/ai-gateway/keys/{id}", "DELETE", "404"},
			want:   0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := testutil.ToFloat64(coderAPIRequests.WithLabelValues(tc.labels...))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nrequests_total: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCoderRequestMetricsAreServedFromControllerRuntimeRegistry(t *testing.T) {
	coderAPIRequests.Reset()
	coderAPIRequestDuration.Reset()

	ObserveCoderRequest("/api/v2/buildinfo", "GET", "200", 50*time.Millisecond)

	want := `
# HELP provider_coder_coder_api_request_duration_seconds Duration of requests to the Coder API by endpoint path template and method.
# TYPE provider_coder_coder_api_request_duration_seconds histogram
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="0.01"} 0
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="0.025"} 0
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="0.05"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="0.1"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="0.25"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="0.5"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="1"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="2.5"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="5"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="10"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="30"} 1
provider_coder_coder_api_request_duration_seconds_bucket{coder_endpoint="/api/v2/buildinfo",method="GET",le="+Inf"} 1
provider_coder_coder_api_request_duration_seconds_sum{coder_endpoint="/api/v2/buildinfo",method="GET"} 0.05
provider_coder_coder_api_request_duration_seconds_count{coder_endpoint="/api/v2/buildinfo",method="GET"} 1
# HELP provider_coder_coder_api_requests_total Requests to the Coder API by endpoint path template, method and HTTP status code ("error" when no response arrived).
# TYPE provider_coder_coder_api_requests_total counter
provider_coder_coder_api_requests_total{code="200",coder_endpoint="/api/v2/buildinfo",method="GET"} 1
`
	err := testutil.GatherAndCompare(metrics.Registry, strings.NewReader(want),
		"provider_coder_coder_api_requests_total",
		"provider_coder_coder_api_request_duration_seconds")
	if err != nil {
		t.Error(err)
	}
}

func TestKeyRotatedCountsByKindAndHowTheWindowEnded(t *testing.T) {
	keyRotations.Reset()
	KeyRotated("AIGatewayKey", "early")
	KeyRotated("AIGatewayKey", "full")
	KeyRotated("AIGatewayKey", "full")

	want := `
# HELP provider_coder_key_rotations_total AI Gateway key rotations whose settle window ended and whose retiring key was deleted in Coder, by kind and how the window ended (early: Coder showed the gateway replicas on the new key; full: the window ran its length).
# TYPE provider_coder_key_rotations_total counter
provider_coder_key_rotations_total{kind="AIGatewayKey",settle="early"} 1
provider_coder_key_rotations_total{kind="AIGatewayKey",settle="full"} 2
`
	if err := testutil.GatherAndCompare(metrics.Registry, strings.NewReader(want), "provider_coder_key_rotations_total"); err != nil {
		t.Error(err)
	}
}

func TestCountersExistAtZeroBeforeTheirFirstEvent(t *testing.T) {
	releasedWithoutDelete.Reset()
	externalDeleteFailures.Reset()
	swept.Reset()
	Initialise(Known{Kinds: []string{"AIGatewayKey", "AIProvider"}, DeleteFailureReasons: []string{"Unavailable"}})

	// A rule such as increase(x[1h]) > 0 needs a sample before the first
	// release to see it: the series must be there at 0.
	want := `
# HELP provider_coder_cleanup_released_without_delete_total Managed resources whose finalizer was removed without a verified delete in Coder, by kind. Counted after the finalizer removal is persisted; an intentional Orphan is not counted.
# TYPE provider_coder_cleanup_released_without_delete_total counter
provider_coder_cleanup_released_without_delete_total{kind="AIGatewayKey"} 0
provider_coder_cleanup_released_without_delete_total{kind="AIProvider"} 0
# HELP provider_coder_cleanup_external_delete_failures_total Failed deletes in Coder, by kind and error class (Unavailable, Forbidden, Unauthorized, Invalid, TLS, Unknown, StillPresent).
# TYPE provider_coder_cleanup_external_delete_failures_total counter
provider_coder_cleanup_external_delete_failures_total{kind="AIGatewayKey",reason="Unavailable"} 0
provider_coder_cleanup_external_delete_failures_total{kind="AIProvider",reason="Unavailable"} 0
# HELP provider_coder_cleanup_swept_total Abandoned cleanup records swept, by kind and result (deleted: verified absent in Coder and the record removed; superseded: a budget someone wrote since the provider did, left in Coder and the record removed; error: retried on the next tick).
# TYPE provider_coder_cleanup_swept_total counter
provider_coder_cleanup_swept_total{kind="AIGatewayKey",result="deleted"} 0
provider_coder_cleanup_swept_total{kind="AIGatewayKey",result="error"} 0
provider_coder_cleanup_swept_total{kind="AIProvider",result="deleted"} 0
provider_coder_cleanup_swept_total{kind="AIProvider",result="error"} 0
`
	if err := testutil.GatherAndCompare(metrics.Registry, strings.NewReader(want),
		"provider_coder_cleanup_released_without_delete_total",
		"provider_coder_cleanup_external_delete_failures_total",
		"provider_coder_cleanup_swept_total"); err != nil {
		t.Error(err)
	}

	// Initialising again keeps what was counted.
	ReleasedWithoutDelete("AIProvider")
	Initialise(Known{Kinds: []string{"AIProvider"}})
	if got := testutil.ToFloat64(releasedWithoutDelete.WithLabelValues("AIProvider")); got != 1 {
		t.Errorf("released_without_delete_total{kind=AIProvider} after a second Initialise: got %v, want 1", got)
	}
}

func TestBuildInfoNamesTheGoVersion(t *testing.T) {
	if n := testutil.CollectAndCount(buildInfo); n != 1 {
		t.Fatalf("build_info: %d series, want 1", n)
	}
	if got := testutil.ToFloat64(buildInfo.WithLabelValues(buildLabels()...)); got != 1 {
		t.Errorf("build_info%v = %v, want 1", buildLabels(), got)
	}
	if l := buildLabels(); l[2] != runtime.Version() || l[0] == "" || l[1] == "" {
		t.Errorf("build_info labels %v: want a version, a revision and goversion %s", l, runtime.Version())
	}
}

func TestProviderConfigReadinessNoLongerHeldReadsZero(t *testing.T) {
	providerConfigs.Reset()
	connected := Readiness{Ready: "True", Reason: "Connected"}
	unreachable := Readiness{Ready: "False", Reason: "CoderUnreachable"}
	Initialise(Known{Readiness: []Readiness{connected}})
	SetProviderConfigs(map[Readiness]int{unreachable: 2})
	SetProviderConfigs(map[Readiness]int{connected: 2})

	want := `
# HELP provider_coder_providerconfigs ProviderConfigs of every kind by the status (True, False) and reason of their Ready condition, as of their last reconcile.
# TYPE provider_coder_providerconfigs gauge
provider_coder_providerconfigs{ready="False",reason="CoderUnreachable"} 0
provider_coder_providerconfigs{ready="True",reason="Connected"} 2
`
	if err := testutil.GatherAndCompare(metrics.Registry, strings.NewReader(want), "provider_coder_providerconfigs"); err != nil {
		t.Error(err)
	}
}

func TestTokenExpiryIsTheEarliestPerScopeAndGoesWithTheLastToken(t *testing.T) {
	tokenExpiry.Reset()
	SetTokenExpiry(ScopeCluster, time.Unix(1800000000, 500e6))
	SetTokenExpiry(ScopeNamespaced, time.Unix(1700000000, 0))
	SetTokenExpiry(ScopeNamespaced, time.Time{})

	want := `
# HELP provider_coder_token_expiry_timestamp_seconds The earliest expiry, as Unix time by Coder's clock, of the session tokens of the ProviderConfigs of a scope (Cluster: ClusterProviderConfigs and legacy ProviderConfigs; Namespaced: the tenants' ProviderConfigs) whose expiry Coder does not extend on use. No series while there is none.
# TYPE provider_coder_token_expiry_timestamp_seconds gauge
provider_coder_token_expiry_timestamp_seconds{scope="Cluster"} 1.8000000005e+09
`
	if err := testutil.GatherAndCompare(metrics.Registry, strings.NewReader(want), "provider_coder_token_expiry_timestamp_seconds"); err != nil {
		t.Error(err)
	}
}

func TestBudgetSpendRatioIsOneSeriesPerBudgetAndGoesWithIt(t *testing.T) {
	budgetSpendRatio.Reset()
	SetBudgetSpendRatio("GroupAIBudget", "team-a", "ml", 0.5)
	SetBudgetSpendRatio("GroupAIBudget", "team-a", "ml", 0.92)
	SetBudgetSpendRatio("UserAIBudgetOverride", "", "alice", 1.25)
	SetBudgetSpendRatio("GroupAIBudget", "team-b", "gone", 0.1)
	ForgetBudgetSpendRatio("GroupAIBudget", "team-b", "gone")

	want := `
# HELP provider_coder_budget_spend_ratio The spend of each AI budget resource this budget period over its limit, as of its last poll: a GroupAIBudget's group spend over the combined limit of its members, a UserAIBudgetOverride's user spend over the override's limit; 1 is the limit. By kind and the resource's namespace (empty for the cluster-scoped kinds) and name. No series for a budget without a limit, or deleted.
# TYPE provider_coder_budget_spend_ratio gauge
provider_coder_budget_spend_ratio{kind="GroupAIBudget",resource_name="ml",resource_namespace="team-a"} 0.92
provider_coder_budget_spend_ratio{kind="UserAIBudgetOverride",resource_name="alice",resource_namespace=""} 1.25
`
	if err := testutil.GatherAndCompare(metrics.Registry, strings.NewReader(want), "provider_coder_budget_spend_ratio"); err != nil {
		t.Error(err)
	}
}
