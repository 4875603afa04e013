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
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

func TestTokenKeyReadsTheSessionTokensOwnKeyAndNeverShowsTheToken(t *testing.T) {
	const id, secret = "Ab3dEf7hIj", "S3CRETs3cretS3CRETs3cr"
	expires := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	var paths []string
	fail := false
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if fail {
			writeJSON(w, http.StatusInternalServerError, codersdk.Response{Message: "Internal error fetching API key.", Detail: "token " + id + "-" + secret + ", key " + id})
			return
		}
		writeJSON(w, http.StatusOK, codersdk.APIKey{ID: id, ExpiresAt: expires, LifetimeSeconds: 86400, LoginType: codersdk.LoginTypeToken})
	})
	srv, _ := newServer(t, mux)
	c, err := New(Config{URL: srv.URL, Token: id + "-" + secret, Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}

	k, err := c.TokenKey(context.Background())
	if err != nil || !k.ExpiresAt.Equal(expires) || k.LoginType != codersdk.LoginTypeToken || k.LifetimeSeconds != 86400 {
		t.Fatalf("TokenKey: %+v, %v; want the key Coder answered", k, err)
	}
	if want := "/api/v2/users/me/keys/" + id; len(paths) != 1 || paths[0] != want {
		t.Errorf("TokenKey requested %v, want only %s (the key id is the token's part before its dash)", paths, want)
	}
	if got := requests(t, EndpointMyKey, http.MethodGet, "200"); got < 1 {
		t.Errorf("requests_total{coder_endpoint=%q}: %v, want the path template counted", EndpointMyKey, got)
	}

	fail = true
	_, err = c.TokenKey(context.Background())
	if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), id) {
		t.Errorf("TokenKey on a 500 quoting the token: %v; want an error without the token or its id", err)
	}
}

func TestTokenKeyRefusesATokenWithoutAnAPIKeyID(t *testing.T) {
	sent := 0
	srv, _ := newServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sent++ }))
	for _, token := range []string{"nodash", "-leading", "a/b-c"} {
		c, err := New(Config{URL: srv.URL, Token: token, Timeout: testTimeout})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.TokenKey(context.Background())
		if err == nil || !strings.Contains(err.Error(), errTokenNotAPIKey) || strings.Contains(err.Error(), token) {
			t.Errorf("TokenKey with token %q: %v; want %q without the token", token, err, errTokenNotAPIKey)
		}
	}
	if sent != 0 {
		t.Errorf("%d requests sent for tokens without an API key id, want none", sent)
	}
}
