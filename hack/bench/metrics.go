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

package main

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// sample is the provider's counters the benchmark reads, at one moment.
type sample struct {
	// coder counts requests to Coder by "METHOD endpoint".
	coder map[string]float64
	// reconciles counts reconciles by controller.
	reconciles map[string]float64
	// released counts the resources released without a verified delete.
	released float64
}

func scrape(ctx context.Context, url string) (sample, error) {
	resp, err := httpGet(ctx, url)
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return sample{}, fmt.Errorf("%s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return sample{}, err
	}
	s := sample{coder: map[string]float64{}, reconciles: map[string]float64{}}
	for _, m := range families["provider_coder_coder_api_requests_total"].GetMetric() {
		s.coder[label(m, "method")+" "+label(m, metrics.LabelCoderEndpoint)] += m.GetCounter().GetValue()
	}
	// Reconciles that ran: the rate limit's deferrals return at once.
	for _, m := range families["controller_runtime_reconcile_total"].GetMetric() {
		s.reconciles[label(m, "controller")] += m.GetCounter().GetValue()
	}
	for _, m := range families["provider_coder_reconciles_deferred_total"].GetMetric() {
		s.reconciles[label(m, "controller")] -= m.GetCounter().GetValue()
	}
	for _, m := range families["provider_coder_cleanup_released_without_delete_total"].GetMetric() {
		s.released += m.GetCounter().GetValue()
	}
	return s, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// since is s minus an earlier sample.
func (s sample) since(before sample) sample {
	return sample{coder: minus(s.coder, before.coder), reconciles: minus(s.reconciles, before.reconciles)}
}

func minus(a, b map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range a {
		if d := v - b[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// managedReconciles sums the reconciles of the managed controllers.
func managedReconciles(m map[string]float64) float64 {
	var t float64
	for k, v := range m {
		if strings.HasPrefix(k, "managed/") {
			t += v
		}
	}
	return t
}

func total(m map[string]float64) float64 {
	var t float64
	for _, v := range m {
		t += v
	}
	return t
}

// perEach renders counts divided by n, largest first: "GET /keys 1.02, ...".
func perEach[V int | float64](m map[string]V, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, float64(m[k])/float64(n)))
	}
	return strings.Join(parts, ", ")
}
