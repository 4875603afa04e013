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

package gatewayreplica_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/gatewayreplica"
)

// fake runs a fake Coder (Coder's 60 s heartbeat interval) with one
// gateway key and returns it with the key's plaintext.
func fake(t *testing.T, o fakecoder.Options) (*fakecoder.Server, string) {
	t.Helper()
	s := fakecoder.New(o)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	licensed := !o.Unlicensed
	s.SetLicensed(true) // long enough to make the key
	c := codersdk.New(parseURL(t, s.URL()))
	c.SetSessionToken(s.Token())
	k, err := c.CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "gw"})
	if err != nil {
		t.Fatal(err)
	}
	s.SetLicensed(licensed)
	return s, k.Key
}

// eventually waits up to 5 s for cond, checking it again each time the
// replica's readiness or the fake's sessions change.
func eventually(t *testing.T, what string, r *gatewayreplica.Replica, s *fakecoder.Server, cond func() bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		replica, sessions := r.Changed(), s.SessionsChanged()
		if cond() {
			return
		}
		select {
		case <-replica:
		case <-sessions:
		case <-deadline:
			t.Fatalf("not within 5s: %s", what)
		}
	}
}

func TestAReplicaIsReadyOnceConnectedAndRedialsWhenCoderClosesTheSession(t *testing.T) {
	t.Parallel()
	s, key := fake(t, fakecoder.Options{})
	r := gatewayreplica.Start(t.Context(), s.URL(), key)
	defer r.Stop()
	eventually(t, "ready", r, s, r.Ready)

	if err := s.SetDown(true); err != nil { // closes every session
		t.Fatal(err)
	}
	eventually(t, "not ready while Coder is down", r, s, func() bool { return !r.Ready() })
	if err := s.SetDown(false); err != nil {
		t.Fatal(err)
	}
	eventually(t, "ready again", r, s, r.Ready)
	eventually(t, "one session again", r, s, func() bool { return len(s.OpenSessions()) == 1 })
	if n := s.Requests(fakecoder.EndpointServe); n != 2 {
		t.Errorf("serve dials = %d, want 2 (refused connections never reach it)", n)
	}
}

func TestAReplicaRetriesADialAnswerThatIsNotTerminal(t *testing.T) {
	t.Parallel()
	s, key := fake(t, fakecoder.Options{})
	if err := s.SetFault(fakecoder.EndpointServe, fakecoder.Fault{Status: 503, Times: 2}); err != nil {
		t.Fatal(err)
	}
	r := gatewayreplica.Start(t.Context(), s.URL(), key)
	defer r.Stop()
	eventually(t, "ready after two 503s", r, s, r.Ready)
	if n := s.Requests(fakecoder.EndpointServe); n != 3 {
		t.Errorf("serve dials = %d, want 3", n)
	}
}

func TestAReplicaExitsWhenCoderRefusesItsKey(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		opts    fakecoder.Options
		key     func(valid string) string
		status  int
		message string
	}{
		"unknown key": {key: func(string) string { return "Abcdefghij0123456789abcdefghij0123456789abc" },
			status: 401, message: "AI Gateway key invalid."},
		"no key": {key: func(string) string { return "" }, status: 401, message: "AI Gateway key required."},
		"unlicensed": {opts: fakecoder.Options{Unlicensed: true}, key: func(k string) string { return k },
			status: 403, message: "AI Gateway is a Premium feature. Contact sales!"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, valid := fake(t, tc.opts)
			key := tc.key(valid)
			r := gatewayreplica.Start(t.Context(), s.URL(), key)
			var err error
			select {
			case <-r.Done():
				err = r.Wait()
			case <-time.After(5 * time.Second):
				r.Stop()
				t.Fatal("the replica still runs after 5s")
			}
			var refused *gatewayreplica.RefusedError
			if !errors.As(err, &refused) || refused.Status != tc.status || refused.Message != tc.message {
				t.Errorf("Wait() = %v, want %d %q", err, tc.status, tc.message)
			}
			if key != "" && err != nil && strings.Contains(err.Error(), key) {
				t.Error("the error contains the key")
			}
			if n := s.Requests(fakecoder.EndpointServe); n != 1 {
				t.Errorf("serve dials = %d, want 1: a refusal is terminal", n)
			}
		})
	}
}

func TestAStoppedReplicaClosesItsSessionAndReportsNoError(t *testing.T) {
	t.Parallel()
	s, key := fake(t, fakecoder.Options{})
	r := gatewayreplica.Start(context.Background(), s.URL(), key)
	eventually(t, "one session", r, s, func() bool { return r.Ready() && len(s.OpenSessions()) == 1 })
	stopped := make(chan struct{})
	go func() { r.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not return within 5s")
	}
	if err := r.Wait(); err != nil {
		t.Errorf("Wait() after Stop = %v", err)
	}
	eventually(t, "the fake sees the session close", r, s, func() bool { return len(s.OpenSessions()) == 0 })
}

func parseURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
