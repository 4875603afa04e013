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
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

func TestSessionTokensKeyShowsItsExpiry(t *testing.T) {
	s, c := start(t, Options{})
	ctx := testContext(t)
	id, _, _ := strings.Cut(s.Token(), "-")

	k, err := c.APIKeyByID(ctx, codersdk.Me, id)
	if err != nil {
		t.Fatal(err)
	}
	if k.ID != id || k.LoginType != codersdk.LoginTypeToken || k.LifetimeSeconds != int64(DefaultTokenLifetime.Seconds()) ||
		!k.ExpiresAt.Equal(k.CreatedAt.Add(DefaultTokenLifetime)) {
		t.Errorf("APIKeyByID(me, %s): %+v; want an API token of Coder's default lifetime", id, k)
	}

	var se *codersdk.Error
	if _, err := c.APIKeyByID(ctx, codersdk.Me, "abcdefghij"); !errors.As(err, &se) || se.StatusCode() != http.StatusNotFound {
		t.Errorf("APIKeyByID of a key no one has: %v, want 404", err)
	}

	// An API token's lifetime is fixed: using it does not move its expiry,
	// and once past it Coder answers 401.
	s.SetTokenExpiry(s.Now().Add(30 * time.Minute))
	if _, err := c.User(ctx, codersdk.Me); err != nil {
		t.Fatal(err)
	}
	if got := s.TokenKey().ExpiresAt; got.Sub(s.Now()) > 30*time.Minute {
		t.Errorf("an API token used 30 minutes before its expiry now expires at %s, want it unchanged", got)
	}
	s.SetTokenExpiry(s.Now().Add(-time.Second))
	if _, err := c.User(ctx, codersdk.Me); !errors.As(err, &se) || se.StatusCode() != http.StatusUnauthorized || !strings.Contains(se.Detail, "API key expired at") {
		t.Errorf("users/me with an expired token: %v, want 401 \"API key expired at ...\"", err)
	}
}

func TestLoginSessionIsExtendedWhenUsedAfterAnHour(t *testing.T) {
	s, c := start(t, Options{TokenLoginType: codersdk.LoginTypePassword, TokenLifetime: 24 * time.Hour})
	ctx := testContext(t)

	s.SetTokenExpiry(s.Now().Add(23*time.Hour + 30*time.Minute))
	if _, err := c.User(ctx, codersdk.Me); err != nil {
		t.Fatal(err)
	}
	if left := s.TokenKey().ExpiresAt.Sub(s.Now()); left > 23*time.Hour+30*time.Minute {
		t.Errorf("a session used within the hour after its extension has %s left, want it not extended again", left)
	}
	s.SetTokenExpiry(s.Now().Add(2 * time.Hour))
	if _, err := c.User(ctx, codersdk.Me); err != nil {
		t.Fatal(err)
	}
	if left := s.TokenKey().ExpiresAt.Sub(s.Now()); left < 23*time.Hour+59*time.Minute {
		t.Errorf("a session used with 2h left has %s left after, want it extended to its 24h lifetime", left)
	}
}
