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
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/gatewayreplica"
)

// getServe sends a plain GET to the serve endpoint (no upgrade) with key in
// the gateway key header unless empty, and the aibridged version query
// unless noVersion.
func getServe(t *testing.T, s *Server, key string, noVersion bool) (int, codersdk.Response) {
	t.Helper()
	u := s.URL() + "/api/v2/ai-gateway/serve"
	if !noVersion {
		u += "?version=1.2"
	}
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(codersdk.AIGatewayKeyHeader, key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	var body codersdk.Response
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return res.StatusCode, body
}

// newKey creates a gateway key through the API and returns its id and
// plaintext.
func newKey(t *testing.T, c *codersdk.Client, name string) (uuid.UUID, string) {
	t.Helper()
	k, err := c.CreateAIGatewayKey(testContext(t), codersdk.CreateAIGatewayKeyRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return k.ID, k.Key
}

// startReplica runs a replica for the test and waits until it is Ready
// and the fake counts its session (the test's only one).
func startReplica(t *testing.T, s *Server, key string) *gatewayreplica.Replica {
	t.Helper()
	r := gatewayreplica.Start(t.Context(), s.URL(), key)
	t.Cleanup(r.Stop)
	waitFor(t, func() bool { return r.Ready() && len(s.OpenSessions()) == 1 })
	return r
}

// exitErr waits up to within for r to exit and returns Wait's error.
func exitErr(t *testing.T, r *gatewayreplica.Replica, within time.Duration) error {
	t.Helper()
	select {
	case <-r.Done():
		return r.Wait()
	case <-time.After(within):
		t.Fatalf("the replica still runs after %v", within)
		return nil
	}
}

func TestServeRefusesAMissingOrUnknownKeyWithCoders401AndABadVersionWith400(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	_, plain := newKey(t, c, "gw")
	cases := map[string]struct {
		key       string
		noVersion bool
		status    int
		body      codersdk.Response
	}{
		"no key":      {status: 401, body: codersdk.Response{Message: "AI Gateway key required."}},
		"unknown key": {key: "not-a-key", status: 401, body: codersdk.Response{Message: "AI Gateway key invalid."}},
		"the session token is no gateway key": {key: s.Token(), status: 401,
			body: codersdk.Response{Message: "AI Gateway key invalid."}},
		"a valid key without the version": {key: plain, noVersion: true, status: 400, body: codersdk.Response{
			Message: "Incompatible or unparsable version",
			Validations: []codersdk.ValidationError{
				{Field: "version", Detail: "invalid version string: "},
				{Field: "client_api_version", Detail: ""},
				{Field: "server_api_version", Detail: "1.2"},
			},
		}},
	}
	for name, tc := range cases {
		status, body := getServe(t, s, tc.key, tc.noVersion)
		if status != tc.status {
			t.Errorf("%s: status %d, want %d", name, status, tc.status)
		}
		if diff := cmp.Diff(tc.body, body); diff != "" {
			t.Errorf("%s: body (-want +got):\n%s", name, diff)
		}
	}
	if n := s.Requests(EndpointServe); n != len(cases) {
		t.Errorf("Requests(EndpointServe) = %d, want %d: every dial counts", n, len(cases))
	}
}

func TestServeAnswersThePremium403BeforeLookingAtTheKey(t *testing.T) {
	t.Parallel()
	premium := codersdk.Response{Message: "AI Gateway is a Premium feature. Contact sales!"}
	for name, o := range map[string]Options{"unlicensed": {Unlicensed: true}, "AI Gateway disabled": {AIGatewayDisabled: true}} {
		s, c := start(t, o)
		s.SetLicensed(true) // long enough to make a key
		s.SetAIGatewayEnabled(true)
		_, plain := newKey(t, c, "gw")
		s.SetLicensed(!o.Unlicensed)
		s.SetAIGatewayEnabled(!o.AIGatewayDisabled)
		for _, key := range []string{"", "not-a-key", plain} {
			status, body := getServe(t, s, key, false)
			if status != http.StatusForbidden || !cmp.Equal(body, premium) {
				t.Errorf("%s, key %t: %d %+v, want 403 %+v", name, key != "", status, body, premium)
			}
		}
	}
}

func TestAReplicasSessionHeartbeatsAtOnceOnTheDeploymentsClockAndIsCounted(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{}) // Coder's 60 s: only the accept's heartbeat
	s.SetClockOffset(2 * time.Hour)
	id, plain := newKey(t, c, "gw")
	startReplica(t, s, plain)

	row := s.Keys()[0]
	if row.LastHeartbeatAt == nil || !near(*row.LastHeartbeatAt, s.Now()) {
		t.Errorf("last_heartbeat_at = %v, want the deployment's now %v", row.LastHeartbeatAt, s.Now())
	}
	if got := s.OpenSessions(); !cmp.Equal(got, map[uuid.UUID]int{id: 1}) {
		t.Errorf("OpenSessions() = %v, want one for the key", got)
	}
	var overAdmin map[uuid.UUID]int
	if st := admin(t, s.URL(), http.MethodGet, "/serve", nil, &overAdmin); st != 200 || !cmp.Equal(overAdmin, map[uuid.UUID]int{id: 1}) {
		t.Errorf("GET /fakecoder/admin/serve = %d %v, want one for the key", st, overAdmin)
	}
	if n := s.Requests(EndpointServe); n != 1 {
		t.Errorf("Requests(EndpointServe) = %d, want 1", n)
	}
}

func TestAnOpenSessionHeartbeatsEveryInterval(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{heartbeatInterval: 50 * time.Millisecond})
	_, plain := newKey(t, c, "gw")
	startReplica(t, s, plain)
	first := *s.Keys()[0].LastHeartbeatAt
	waitFor(t, func() bool { return s.Keys()[0].LastHeartbeatAt.After(first.Add(100 * time.Millisecond)) })
}

func TestADeletedKeysSessionClosesWithinAnIntervalAndTheReplicaExitsOnTheRedials401(t *testing.T) {
	t.Parallel()
	const interval = 500 * time.Millisecond
	s, c := start(t, Options{heartbeatInterval: interval})
	id, plain := newKey(t, c, "gw")
	r := startReplica(t, s, plain)

	deleted := time.Now()
	if err := c.DeleteAIGatewayKey(testContext(t), id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done():
	case <-time.After(5 * interval):
		t.Fatal("the replica of a deleted key is still running after 5 intervals")
	}
	if took := time.Since(deleted); took > interval+400*time.Millisecond {
		t.Errorf("the session ended %v after the delete, want within one interval (%v)", took, interval)
	}
	err := r.Wait()
	var refused *gatewayreplica.RefusedError
	if !errors.As(err, &refused) || refused.Status != 401 || refused.Message != "AI Gateway key invalid." {
		t.Errorf("Wait() = %v, want Coder's 401 for an invalid key", err)
	}
	if err != nil && strings.Contains(err.Error(), plain) {
		t.Error("the replica's error contains the key")
	}
	waitFor(t, func() bool { return len(s.OpenSessions()) == 0 })
	if n := s.Requests(EndpointServe); n != 2 {
		t.Errorf("Requests(EndpointServe) = %d, want the first dial and the refused redial", n)
	}
}

func TestALapsedEntitlementClosesTheSessionAndTheReplicaExitsOnTheRedials403(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{heartbeatInterval: 50 * time.Millisecond})
	_, plain := newKey(t, c, "gw")
	r := startReplica(t, s, plain)
	s.SetLicensed(false)
	var refused *gatewayreplica.RefusedError
	if err := exitErr(t, r, 5*time.Second); !errors.As(err, &refused) || refused.Status != 403 {
		t.Errorf("Wait() = %v, want the Premium 403", err)
	}
}

func TestASessionEndsWhenTheKeyIsGoneOrTheFeatureOff(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		keyExists, entitled, want bool
	}{
		"key and feature": {keyExists: true, entitled: true, want: false},
		"key deleted":     {keyExists: false, entitled: true, want: true},
		"feature off":     {keyExists: true, entitled: false, want: true},
		"both gone":       {keyExists: false, entitled: false, want: true},
	}
	for name, tc := range cases {
		if got := sessionEnds(tc.keyExists, tc.entitled); got != tc.want {
			t.Errorf("%s: sessionEnds = %t, want %t", name, got, tc.want)
		}
	}
}

func TestServeTakesNoFaultThatWrapsTheUpgrade(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	for _, f := range []Fault{{Drip: time.Second}, {Status: 500, Commit: true}, {CommitThenTimeout: true}} {
		if err := s.SetFault(EndpointServe, f); err == nil {
			t.Errorf("SetFault(serve, %+v) accepted", f)
		}
	}
	if err := s.SetFault(EndpointServe, Fault{Status: 503, Latency: time.Millisecond}); err != nil {
		t.Errorf("a status fault on serve: %v", err)
	}
}

func TestDefaultHeartbeatIntervalIsCoders(t *testing.T) {
	t.Parallel()
	if got := New(Options{}).heartbeatInterval; got != 60*time.Second {
		t.Errorf("heartbeat interval %v, want Coder's 60s", got)
	}
}
