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
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

func TestClockPlacesOurInstantsOnCodersClock(t *testing.T) {
	ours := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		reason string
		clock  Clock
		t      time.Time
		want   time.Time
	}{
		"CoderBehind": {
			reason: "Coder's clock two minutes behind: our noon is its 11:58",
			clock:  Clock{Date: ours.Add(-2 * time.Minute), Received: ours},
			t:      ours, want: ours.Add(-2 * time.Minute),
		},
		"CoderAhead": {
			reason: "Coder's clock two minutes ahead, an instant a minute before the answer",
			clock:  Clock{Date: ours.Add(2 * time.Minute), Received: ours},
			t:      ours.Add(-time.Minute), want: ours.Add(time.Minute),
		},
		"Unknown": {
			reason: "no answer with a Date: nothing to place an instant with",
			clock:  Clock{}, t: ours,
		},
		"ZeroInstant": {
			reason: "a zero instant stays zero, not Coder's idea of year 1",
			clock:  Clock{Date: ours, Received: ours},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.clock.At(tc.t); !got.Equal(tc.want) {
				t.Errorf("%s\nAt(%s) = %s, want %s", tc.reason, tc.t, got, tc.want)
			}
		})
	}
}

func TestClientKeepsCodersClockFromItsSuccessfulAnswers(t *testing.T) {
	coderNow := time.Now().Add(-2 * time.Minute).UTC().Truncate(time.Second)
	status, date := http.StatusOK, coderNow.Format(http.TimeFormat)
	_, c := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", date)
		writeJSON(w, status, codersdk.BuildInfoResponse{DeploymentID: "d"})
	}))
	if c.Clock().Known() {
		t.Fatal("a client that has had no answer knows Coder's clock")
	}
	before := time.Now()
	if _, err := c.BuildInfo(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := c.Clock()
	if !got.Date.Equal(coderNow) || got.Received.Before(before) || time.Since(got.Received) > time.Minute {
		t.Fatalf("Clock() = %+v, want the answer's Date %s, received after %s", got, coderNow, before)
	}
	now := time.Now()
	if off := got.At(now).Sub(now); off > -2*time.Minute+2*time.Second || off < -2*time.Minute-2*time.Second {
		t.Errorf("Coder's clock placed %s from ours, want about -2m", off)
	}

	// An error page may come from a proxy, with its own clock; an answer
	// without a Date dates nothing. Neither replaces what Coder showed.
	for _, tc := range []struct {
		status int
		date   string
	}{
		{http.StatusBadGateway, time.Now().UTC().Format(http.TimeFormat)},
		{http.StatusOK, "not a date"},
	} {
		status, date = tc.status, tc.date
		_, _ = c.BuildInfo(context.Background())
		if now := c.Clock(); !now.Date.Equal(coderNow) {
			t.Errorf("after an answer %d with Date %q, Clock().Date = %s, want still %s", tc.status, tc.date, now.Date, coderNow)
		}
	}
}
