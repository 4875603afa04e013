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

package coder

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/coder/coder/v2/codersdk"

	pcmetrics "github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// Distinctive values that must never show up in an error or a log line.
const (
	testToken  = "tok-S3CRET-session-7f9c2a"
	testAPIKey = "sk-PLAINTEXT-api-key-41d8e3"
)

// writeJSON answers the way coderd's httpapi.Write does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func coderError(status int, r codersdk.Response) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, status, r) }
}

// newServer starts a server and a client for it with the test token.
// testTimeout is the timeout of newServer's clients.
const testTimeout = 2 * time.Second

func newServer(t testing.TB, h http.Handler) (*httptest.Server, *Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(Config{URL: srv.URL, Token: testToken, Timeout: testTimeout})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return srv, c
}

// requests reads provider_coder_coder_api_requests_total for one label set.
func requests(t *testing.T, endpoint, method, code string) float64 {
	t.Helper()
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	want := map[string]string{pcmetrics.LabelCoderEndpoint: endpoint, "method": method, "code": code}
	for _, mf := range mfs {
		if mf.GetName() != "provider_coder_coder_api_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labelsEqual(m.GetLabel(), want) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func labelsEqual(got []*dto.LabelPair, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, l := range got {
		if want[l.GetName()] != l.GetValue() {
			return false
		}
	}
	return true
}
