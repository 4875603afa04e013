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
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="0.01"} 0
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="0.025"} 0
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="0.05"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="0.1"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="0.25"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="0.5"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="1"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="2.5"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="5"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="10"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="30"} 1
provider_coder_coder_api_request_duration_seconds_bucket{endpoint="/api/v2/buildinfo",method="GET",le="+Inf"} 1
provider_coder_coder_api_request_duration_seconds_sum{endpoint="/api/v2/buildinfo",method="GET"} 0.05
provider_coder_coder_api_request_duration_seconds_count{endpoint="/api/v2/buildinfo",method="GET"} 1
# HELP provider_coder_coder_api_requests_total Requests to the Coder API by endpoint path template, method and HTTP status code ("error" when no response arrived).
# TYPE provider_coder_coder_api_requests_total counter
provider_coder_coder_api_requests_total{code="200",endpoint="/api/v2/buildinfo",method="GET"} 1
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
