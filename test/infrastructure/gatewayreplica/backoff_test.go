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

package gatewayreplica

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestBackoffGrowsLikeCodersRetrierAndStartsAtOnce(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		delay, wait, next time.Duration
	}{
		"first dial":            {delay: 0, wait: 0, next: 50 * time.Millisecond},
		"after the first":       {delay: 50 * time.Millisecond, wait: 80901699, next: 80901699},
		"below the floor":       {delay: 10 * time.Millisecond, wait: 16180339, next: 50 * time.Millisecond},
		"capped at the ceiling": {delay: 9 * time.Second, wait: 10 * time.Second, next: 10 * time.Second},
	}
	for name, tc := range cases {
		wait, next := backoff(tc.delay)
		if wait != tc.wait || next != tc.next {
			t.Errorf("%s: backoff(%v) = %v, %v; want %v, %v", name, tc.delay, wait, next, tc.wait, tc.next)
		}
	}
}

func TestOnlyBadRequestUnauthorizedAndForbiddenAreTerminal(t *testing.T) {
	t.Parallel()
	for status := 100; status < 600; status++ {
		want := status == http.StatusBadRequest || status == http.StatusUnauthorized || status == http.StatusForbidden
		if got := terminal(status); got != want {
			t.Errorf("terminal(%d) = %t, want %t", status, got, want)
		}
	}
}

func TestTheDialCarriesTheAIBridgedAPIVersion(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(serveURL("http://coder:3000"))
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/api/v2/ai-gateway/serve" || u.Query().Get("version") != "1.2" {
		t.Errorf("serve URL %s, want /api/v2/ai-gateway/serve?version=1.2", u)
	}
}
