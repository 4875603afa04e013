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

package fakecoder

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/coder/coder/v2/codersdk"

	"k8s.io/apimachinery/pkg/util/wait"
)

// admin calls the admin API the way an out-of-process test would and
// decodes the answer into out (if not nil).
func admin(t *testing.T, base, method, path string, in, out any) int {
	t.Helper()
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequestWithContext(testContext(t), method, base+"/fakecoder/admin"+path, &body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return res.StatusCode
}

func TestAdminAPISetsFaultsAndReadsAndResetsRequestCounts(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	base := s.URL()

	fault := AdminFault{Endpoint: EndpointKeysList, Status: 500, Latency: "1ms", Drip: "2ms", Times: 1}
	if got := admin(t, base, http.MethodPut, "/faults", fault, nil); got != http.StatusNoContent {
		t.Fatalf("PUT faults = %d", got)
	}
	if got := admin(t, base, http.MethodPut, "/faults", AdminFault{Endpoint: "GET /nope", Status: 500}, nil); got != http.StatusBadRequest {
		t.Errorf("PUT unknown endpoint = %d, want 400", got)
	}
	var faults map[string]AdminFault
	admin(t, base, http.MethodGet, "/faults", nil, &faults)
	fault.Endpoint = ""
	if diff := cmp.Diff(map[string]AdminFault{EndpointKeysList: fault}, faults); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}

	_, err := c.ListAIGatewayKeys(ctx)
	if got := apiError(t, err).StatusCode(); got != 500 {
		t.Errorf("status = %d, want 500", got)
	}
	var counts map[string]int
	admin(t, base, http.MethodGet, "/requests", nil, &counts)
	if counts[EndpointKeysList] != 1 || len(counts) != len(Endpoints()) {
		t.Errorf("counts = %v", counts)
	}
	admin(t, base, http.MethodDelete, "/requests", nil, nil)
	if got := s.Requests(EndpointKeysList); got != 0 {
		t.Errorf("count after DELETE = %d", got)
	}
}

func TestAdminAPIShowsTheRowsAndItsEditsReachCodersAPI(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	base := s.URL()
	key := must[codersdk.CreateAIGatewayKeyResponse](t)(c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw"}))
	must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("p", keyA)))

	beat := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	if got := admin(t, base, http.MethodPost, "/keys/"+key.ID.String()+"/heartbeat", map[string]any{"at": beat}, nil); got != http.StatusNoContent {
		t.Fatalf("heartbeat = %d", got)
	}
	var keys []KeyRow
	admin(t, base, http.MethodGet, "/keys", nil, &keys)
	if len(keys) != 1 || keys[0].Key != key.Key || !keys[0].LastHeartbeatAt.Equal(beat) {
		t.Errorf("keys = %+v", keys)
	}

	var edited ProviderRow
	edit := ProviderEdit{Enabled: ptr.To(false), APIKeys: &[]string{keyB}}
	if got := admin(t, base, http.MethodPatch, "/providers/p", edit, &edited); got != http.StatusOK {
		t.Fatalf("edit = %d", got)
	}
	if diff := cmp.Diff([]string{keyB}, edited.PlaintextKeys()); diff != "" {
		t.Errorf("edited keys (-want +got):\n%s", diff)
	}
	if got := must[codersdk.AIProvider](t)(c.AIProvider(ctx, "p")); got.Enabled || got.APIKeys[0].Masked != "sk-t...2222" {
		t.Errorf("API sees %+v", got)
	}

	if err := c.DeleteAIProvider(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	var live, all []ProviderRow
	admin(t, base, http.MethodGet, "/providers", nil, &live)
	admin(t, base, http.MethodGet, "/providers?include_deleted=true", nil, &all)
	if len(live) != 0 || len(all) != 1 || !all[0].Deleted {
		t.Errorf("live = %+v, all = %+v", live, all)
	}

	admin(t, base, http.MethodPost, "/reset", nil, nil)
	if len(s.Keys()) != 0 || len(s.Providers(true)) != 0 {
		t.Error("reset left rows behind")
	}
}

func TestAdminConfigChangesTheLicenceAndTokenCodersAPIChecks(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	base := s.URL()

	var cfg AdminConfig
	admin(t, base, http.MethodPatch, "/config", AdminConfigPatch{Licensed: ptr.To(false)}, &cfg)
	if cfg.Licensed || !cfg.Owner || cfg.Token != s.Token() {
		t.Errorf("config = %+v", cfg)
	}
	_, err := c.ListAIGatewayKeys(ctx)
	if got := apiError(t, err).StatusCode(); got != http.StatusForbidden {
		t.Errorf("unlicensed status = %d", got)
	}

	admin(t, base, http.MethodPatch, "/config", AdminConfigPatch{Token: ptr.To("other")}, nil)
	_, err = c.AIProviders(ctx)
	if got := apiError(t, err).StatusCode(); got != http.StatusUnauthorized {
		t.Errorf("old token status = %d", got)
	}
}

func TestOnlyTheSeparateAdminListenerCanTakeTheFakeDownUntimed(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	if err := s.StartAdminOn("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)

	// On the main listener only a timed outage is allowed.
	if got := admin(t, s.URL(), http.MethodPost, "/down", nil, nil); got != http.StatusBadRequest {
		t.Errorf("untimed down on main listener = %d, want 400", got)
	}
	if got := admin(t, s.URL(), http.MethodPost, "/down", map[string]string{"duration": "200ms"}, nil); got != http.StatusAccepted {
		t.Fatalf("timed down = %d", got)
	}
	waitFor(t, func() bool { _, err := c.BuildInfo(ctx); return err != nil })
	waitFor(t, func() bool { _, err := c.BuildInfo(ctx); return err == nil })

	// The separate admin listener can hold the server down and bring it up.
	admin(t, s.AdminURL(), http.MethodPost, "/down", nil, nil)
	waitFor(t, func() bool { _, err := c.BuildInfo(ctx); return err != nil })
	if got := admin(t, s.AdminURL(), http.MethodPost, "/up", nil, nil); got != http.StatusNoContent {
		t.Fatalf("up = %d", got)
	}
	if _, err := c.BuildInfo(ctx); err != nil {
		t.Errorf("after up: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 2*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		t.Fatal("condition not met within 2s")
	}
}
