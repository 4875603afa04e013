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
	"net/http"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

// near reports whether got is within two seconds of want: the Date header
// has whole seconds, and the requests take a moment.
func near(got, want time.Time) bool {
	d := got.Sub(want)
	return d > -2*time.Second && d < 2*time.Second
}

func TestClockOffsetShiftsEveryTimestampAndTheDateHeader(t *testing.T) {
	t.Parallel()
	for name, offset := range map[string]time.Duration{"Behind": -2 * time.Minute, "Ahead": 2 * time.Minute} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, c := start(t, Options{})
			ctx := testContext(t)
			var clock AdminClock
			if got := admin(t, s.URL(), http.MethodPut, "/clock", map[string]string{"offset": offset.String()}, &clock); got != http.StatusOK {
				t.Fatalf("PUT /clock = %d", got)
			}
			if clock.Offset != offset.String() || !near(clock.Now, time.Now().Add(offset)) {
				t.Errorf("PUT /clock answered %+v, want offset %s and the shifted now", clock, offset)
			}

			want := time.Now().Add(offset)
			key := must[codersdk.CreateAIGatewayKeyResponse](t)(c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw"}))
			p := must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("p", keyA)))
			if !near(key.CreatedAt, want) || !near(p.CreatedAt, want) || !near(p.APIKeys[0].CreatedAt, want) {
				t.Errorf("key created %s, provider %s (its key %s): want all near %s", key.CreatedAt, p.CreatedAt, p.APIKeys[0].CreatedAt, want)
			}
			if got := admin(t, s.URL(), http.MethodPost, "/keys/"+key.ID.String()+"/heartbeat", nil, nil); got != http.StatusNoContent {
				t.Fatalf("heartbeat = %d", got)
			}
			if hb := s.Keys()[0].LastHeartbeatAt; hb == nil || !near(*hb, want) {
				t.Errorf("a heartbeat without a time is dated %v, want the deployment's now, near %s", hb, want)
			}

			res, err := http.Get(s.URL() + "/api/v2/buildinfo") //nolint:noctx // test
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Body.Close()
			date, err := http.ParseTime(res.Header.Get("Date"))
			if err != nil || !near(date, time.Now().Add(offset)) {
				t.Errorf("Date header %q (%v), want the deployment's now, near %s", res.Header.Get("Date"), err, time.Now().Add(offset))
			}
			if !near(s.Now(), time.Now().Add(offset)) {
				t.Errorf("Now() = %s, want near %s", s.Now(), time.Now().Add(offset))
			}

			// Reset brings the clock back, as it clears every other fault.
			admin(t, s.URL(), http.MethodPost, "/reset", nil, nil)
			admin(t, s.URL(), http.MethodGet, "/clock", nil, &clock)
			if clock.Offset != "0s" || !near(clock.Now, time.Now()) {
				t.Errorf("after reset the clock is %+v, want no offset", clock)
			}
		})
	}
}

func TestAdminClientSetsTheClockOffsetAndHeartbeats(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	a := &AdminClient{BaseURL: s.URL()}
	if err := a.SetClockOffset(ctx, -90*time.Second); err != nil {
		t.Fatal(err)
	}
	clock, err := a.Clock(ctx)
	if err != nil || s.ClockOffset() != -90*time.Second || !near(clock.Now, time.Now().Add(-90*time.Second)) {
		t.Fatalf("Clock() = %+v, %v; offset %s; want -1m30s", clock, err, s.ClockOffset())
	}
	key := must[codersdk.CreateAIGatewayKeyResponse](t)(c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw"}))
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := a.Heartbeat(ctx, key.ID, at); err != nil {
		t.Fatal(err)
	}
	if hb := s.Keys()[0].LastHeartbeatAt; hb == nil || !hb.Equal(at) {
		t.Errorf("heartbeat at %v, want %s", hb, at)
	}
	if err := a.Heartbeat(ctx, key.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if hb := s.Keys()[0].LastHeartbeatAt; hb == nil || !near(*hb, time.Now().Add(-90*time.Second)) {
		t.Errorf("heartbeat without a time at %v, want the deployment's now", hb)
	}
	if err := a.SetClockOffset(ctx, 0); err != nil || s.ClockOffset() != 0 {
		t.Errorf("SetClockOffset(0): %v, offset %s", err, s.ClockOffset())
	}
}
