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
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/coder/coder/v2/codersdk"
)

// start runs a fake for the test and returns it with an authenticated
// codersdk client.
func start(t *testing.T, o Options) (*Server, *codersdk.Client) {
	t.Helper()
	s := New(o)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c := client(t, s.URL())
	c.SetSessionToken(s.Token())
	return s, c
}

func client(t *testing.T, rawURL string) *codersdk.Client {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return codersdk.New(u)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// apiError returns err as a *codersdk.Error, failing the test otherwise.
func apiError(t *testing.T, err error) *codersdk.Error {
	t.Helper()
	var sdkErr *codersdk.Error
	if !errors.As(err, &sdkErr) {
		t.Fatalf("want a *codersdk.Error, got %v", err)
	}
	return sdkErr
}

// wantAPIError checks the status and body of a failed call.
func wantAPIError(t *testing.T, err error, status int, body codersdk.Response) {
	t.Helper()
	sdkErr := apiError(t, err)
	if sdkErr.StatusCode() != status {
		t.Errorf("status = %d, want %d (%v)", sdkErr.StatusCode(), status, err)
	}
	if diff := cmp.Diff(body, sdkErr.Response); diff != "" {
		t.Errorf("error body (-want +got):\n%s", diff)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestBuildInfoNeedsNoToken(t *testing.T) {
	t.Parallel()
	s, _ := start(t, Options{DeploymentID: "dep-123", Version: "v2.36.1"})

	got, err := client(t, s.URL()).BuildInfo(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if got.DeploymentID != "dep-123" || got.Version != "v2.36.1" {
		t.Errorf("buildinfo = %+v", got)
	}
}

func TestAMissingWrongMalformedOrRotatedTokenGetsCoders401(t *testing.T) {
	t.Parallel()
	const token = "abcdefghij-0123456789abcdefghijkl"
	s, _ := start(t, Options{Token: token})

	tests := []struct {
		name       string
		token      string
		wantDetail string // empty means the call succeeds
	}{
		{"missing", "", `Cookie "coder_session_token" or query parameter must be provided.`},
		{"wrong", "abcdefghij-XXXXXXXXXXXXXXXXXXXXXX", "API key is invalid."},
		{"malformed", "nope", "Invalid API key format: incorrect amount of API key parts, expected 2 got 1"},
		{"valid", token, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t, s.URL())
			c.SetSessionToken(tt.token)
			_, err := c.User(testContext(t), codersdk.Me)
			if tt.wantDetail == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantAPIError(t, err, http.StatusUnauthorized, codersdk.Response{Message: signedOutMessage, Detail: tt.wantDetail})
		})
	}

	t.Run("rotated", func(t *testing.T) {
		c := client(t, s.URL())
		c.SetSessionToken(token)
		s.SetToken("klmnopqrst-0123456789abcdefghijkl")
		t.Cleanup(func() { s.SetToken(token) })
		_, err := c.AIProviders(testContext(t))
		if got := apiError(t, err).StatusCode(); got != http.StatusUnauthorized {
			t.Errorf("status = %d, want 401", got)
		}
	})
}

func TestTheTokensUserHasTheOwnerRoleOnlyWhileOwner(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)

	me := must[codersdk.User](t)(c.User(ctx, codersdk.Me))
	if diff := cmp.Diff([]codersdk.SlimRole{{Name: codersdk.RoleOwner, DisplayName: "Owner"}}, me.Roles); diff != "" {
		t.Errorf("owner roles (-want +got):\n%s", diff)
	}

	s.SetOwner(false)
	me = must[codersdk.User](t)(c.User(ctx, codersdk.Me))
	if len(me.Roles) != 0 {
		t.Errorf("member roles = %v, want none", me.Roles)
	}
}

func TestAnUnknownRouteGetsCodersNotFound(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{})
	res, err := c.Request(testContext(t), http.MethodGet, "/api/v2/nope", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, codersdk.ReadBodyAsError(res), http.StatusNotFound, codersdk.Response{Message: "Route not found."})
}
