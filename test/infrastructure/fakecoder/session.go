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
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

// DefaultTokenLifetime is Coder's default lifetime of an API token
// (CODER_DEFAULT_TOKEN_LIFETIME, codersdk/deployment.go), the fake's
// session token's unless Options say otherwise.
const DefaultTokenLifetime = 7 * 24 * time.Hour

// newKeyLocked is the API key row of token, made now: its id is the
// token's part before the dash, as httpmw.SplitAPIToken reads it.
func (s *Server) newKeyLocked(token string, loginType codersdk.LoginType, lifetime time.Duration) codersdk.APIKey {
	id, _, _ := strings.Cut(token, "-")
	created := s.now()
	k := codersdk.APIKey{
		ID: id, UserID: s.user.ID, LastUsed: created, CreatedAt: created, UpdatedAt: created,
		ExpiresAt: created.Add(lifetime), LoginType: loginType, LifetimeSeconds: int64(lifetime.Seconds()),
		// convertAPIKey (coderd/users.go): the legacy scope, then the stored
		// ones; a key made without scopes has coder:all and allows all.
		Scope: "all", Scopes: []codersdk.APIKeyScope{codersdk.APIKeyScopeCoderAll},
		AllowList: []codersdk.APIAllowListTarget{{Type: "*", ID: "*"}},
	}
	if loginType == codersdk.LoginTypeToken {
		k.TokenName = "fakecoder"
	}
	return k
}

// useKeyLocked is what httpmw.ValidateAPIKey does with a valid token's
// key (coderd/httpmw/apikey.go): an expired key is a 401, and a login
// session used an hour or more after its last extension is extended to
// now plus its lifetime. An API token's lifetime is fixed. The detail is
// "" when the key may be used.
func (s *Server) useKeyLocked() string {
	now := s.now()
	k := &s.key
	if k.ExpiresAt.Before(now) {
		return fmt.Sprintf("API key expired at %q.", k.ExpiresAt.String())
	}
	lifetime := time.Duration(k.LifetimeSeconds) * time.Second
	if k.LoginType != codersdk.LoginTypeToken && k.ExpiresAt.Sub(now) <= lifetime-time.Hour {
		k.ExpiresAt = now.Add(lifetime)
	}
	return ""
}

// apiKeyByID mirrors api.apiKeyByID (coderd/apikey.go) for the session's
// own key, the one key the fake has: any other id is GetAPIKeyByID's
// sql.ErrNoRows, a 404.
func (s *Server) apiKeyByID(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.PathValue("keyid") != s.key.ID || s.key.ID == "" {
		return notFoundReply
	}
	k := s.key
	k.Scopes = append([]codersdk.APIKeyScope(nil), s.key.Scopes...)
	k.AllowList = append([]codersdk.APIAllowListTarget(nil), s.key.AllowList...)
	return reply{http.StatusOK, k}
}

// TokenKey is the session token's API key as Coder stores it.
func (s *Server) TokenKey() codersdk.APIKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key
}

// SetTokenExpiry moves the session token's expiry, as an operator who
// made the token with another lifetime, or time passing, would.
func (s *Server) SetTokenExpiry(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key.ExpiresAt = at.UTC()
}
