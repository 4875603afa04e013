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

package e2e

import (
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// crossplane-runtime's managed-resource metrics are what Crossplane users
// already chart and alert on; the provider exposes them next to its own.
func TestCrossplaneManagedResourceMetricsAreExposed(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := newKey(ns, "metrics")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

	gvk := "ai.coder.m.crossplane.io/v1alpha1, Kind=AIGatewayKey"
	testenv.Eventually(t, testenv.WaitLong, "crossplane_managed_resource_* series for AIGatewayKey", func() (bool, string) {
		mfs, err := ctrlmetrics.Registry.Gather()
		if err != nil {
			return false, err.Error()
		}
		want := map[string]bool{
			"crossplane_managed_resource_exists":                          false,
			"crossplane_managed_resource_ready":                           false,
			"crossplane_managed_resource_first_time_to_readiness_seconds": false,
		}
		for _, mf := range mfs {
			if _, ok := want[mf.GetName()]; !ok {
				continue
			}
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "gvk" && strings.Contains(l.GetValue(), "AIGatewayKey") && strings.Contains(l.GetValue(), "ai.coder.m.crossplane.io") {
						if m.GetGauge().GetValue() >= 1 || m.GetHistogram().GetSampleCount() >= 1 {
							want[mf.GetName()] = true
						}
					}
				}
			}
		}
		var missing []string
		for n, ok := range want {
			if !ok {
				missing = append(missing, n)
			}
		}
		return len(missing) == 0, "missing or zero for " + gvk + ": " + strings.Join(missing, ", ")
	})
}
