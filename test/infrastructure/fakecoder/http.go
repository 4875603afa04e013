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
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	handle := func(endpoint string, h http.Handler) {
		mux.Handle(endpoint, s.instrument(endpoint, h))
	}
	// Middleware order mirrors coderd: session first (401), then the
	// entitlement (403 "Premium feature"), then the handler, whose own
	// authorization check yields the plain 403 (enterprise/coderd/coderd.go).
	keys := func(f apiFunc) http.Handler { return s.requireAuth(s.requireAIGateway(s.api(f))) }
	authed := func(f apiFunc) http.Handler { return s.requireAuth(s.api(f)) }

	// buildinfo needs no session, as in coderd/coderd.go.
	handle(EndpointBuildInfo, s.api(s.buildInfo))
	// Nor do the entitlements: enterprise/coderd/coderd.go mounts
	// r.Get("/entitlements", api.serveEntitlements) without apiKeyMiddleware.
	handle(EndpointEntitlements, s.api(s.entitlements))
	handle(EndpointUserMe, authed(s.userMe))
	handle(EndpointMyKey, authed(s.apiKeyByID))
	handle(EndpointAuthCheck, authed(s.authCheck))
	handle(EndpointKeysList, keys(s.listKeys))
	handle(EndpointKeysCreate, keys(s.createKey))
	handle(EndpointKeysDelete, keys(s.deleteKey))
	// AI providers are an AGPL feature: session only, no entitlement
	// (coderd/coderd.go mounts aiProvidersHandler with apiKeyMiddleware).
	handle(EndpointProvidersList, authed(s.listProviders))
	handle(EndpointProvidersCreate, authed(s.createProvider))
	handle(EndpointProviderGet, authed(s.getProvider))
	handle(EndpointProviderUpdate, authed(s.updateProvider))
	handle(EndpointProviderDelete, authed(s.deleteProvider))
	// enterprise/coderd/coderd.go mounts /ai-gateway/serve with
	// RequireFeatureMW(FeatureAIBridge) and no apiKeyMiddleware: the
	// feature's 403 comes before the gateway key's 401 (serve.go).
	handle(EndpointServe, s.requireAIGateway(http.HandlerFunc(s.serveGateway)))
	s.budgetRoutes(handle)
	s.mcpRoutes(handle)
	s.envRoutes(handle)

	mux.Handle("/api/v2/", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// coderd/httpapi/httpapi.go RouteNotFound: 404 "Route not found."
		writeJSON(w, http.StatusNotFound, codersdk.Response{Message: "Route not found."})
	}))
	mux.Handle("/fakecoder/admin/", s.adminHandler(false))
	return mux
}

// reply is a status and a JSON body; a nil body writes no body (204).
type reply struct {
	status int
	body   any
}

// apiFunc handles a request and returns what to answer. Keeping handlers
// free of the ResponseWriter lets them hold the state lock for exactly the
// work they do, never while writing to a slow client.
type apiFunc func(r *http.Request) reply

func (s *Server) api(f apiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := f(r)
		if rep.body == nil {
			w.WriteHeader(rep.status)
			return
		}
		writeJSON(w, rep.status, rep.body)
	})
}

// writeJSON mirrors httpapi.Write (coderd/httpapi/httpapi.go).
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func errorReply(status int, message, detail string) reply {
	return reply{status, codersdk.Response{Message: message, Detail: detail}}
}

// Canned responses, verbatim from coderd/httpapi/httpapi.go.
var (
	// coderd/httpapi/httpapi.go ResourceNotFound (ResourceNotFoundResponse):
	// 404 "Resource not found or you do not have access to this resource".
	notFoundReply = reply{http.StatusNotFound, codersdk.Response{Message: "Resource not found or you do not have access to this resource"}}
	// coderd/httpapi/httpapi.go Forbidden (ResourceForbiddenResponse):
	// 403 "Forbidden." with the "You don't have permission ..." detail.
	forbiddenReply = reply{http.StatusForbidden, codersdk.Response{
		Message: "Forbidden.",
		Detail:  "You don't have permission to view this content. If you believe this is a mistake, please contact your administrator or try signing in with different credentials.",
	}}
)

// readJSON mirrors the decoding half of httpapi.Read: a body that does not
// decode (including settings without a _type discriminator) is a 400.
func readJSON(r *http.Request, v any) (reply, bool) {
	err := json.NewDecoder(r.Body).Decode(v)
	// Drain so net/http notices a client that hangs up while we stall
	// (it only watches the connection once the body is consumed).
	_, _ = io.Copy(io.Discard, r.Body)
	if err != nil {
		// coderd/httpapi/httpapi.go Read: 400 "Request body must be valid
		// JSON." with the decoder's error as detail.
		return errorReply(http.StatusBadRequest, "Request body must be valid JSON.", err.Error()), false
	}
	return reply{}, true
}

// signedOutMessage is httpmw.SignedOutErrorMessage (coderd/httpmw/apikey.go).
const signedOutMessage = "You are signed out or your session has expired. Please sign in again to continue."

// requireAuth mirrors the 401 paths of httpmw.ExtractAPIKey
// (coderd/httpmw/apikey.go): same token sources, messages and
// WWW-Authenticate header.
func (s *Server) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := tokenFromRequest(r)
		s.mu.Lock()
		want := s.token
		s.mu.Unlock()
		var detail string
		// Each case is a 401 of coderd/httpmw/apikey.go ValidateAPIKey.
		switch {
		case got == "":
			// ValidateAPIKey, empty token: 401 signedOutMessage,
			// "Cookie %q or query parameter must be provided." (the cookie
			// name codersdk.SessionTokenCookie).
			detail = fmt.Sprintf("Cookie %q or query parameter must be provided.", codersdk.SessionTokenCookie)
		case subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1:
			s.mu.Lock()
			detail = s.useKeyLocked()
			s.mu.Unlock()
			if detail == "" {
				next.ServeHTTP(w, r)
				return
			}
		case tokenFormatError(got) != "":
			// ValidateAPIKey, SplitAPIToken failed: 401 signedOutMessage,
			// "Invalid API key format: <SplitAPIToken's error>".
			detail = "Invalid API key format: " + tokenFormatError(got)
		default:
			// A well-formed token that is not ours: Coder finds no key
			// with that ID (ValidateAPIKey, GetAPIKeyByID sql.ErrNoRows):
			// 401 signedOutMessage, "API key is invalid.".
			detail = "API key is invalid."
		}
		// The real header's description is "has expired" because the
		// signed-out message contains "expired" (coderd/httpmw/apikey.go
		// buildWWWAuthenticateHeader, set by ExtractAPIKey).
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(
			`Bearer realm="coder", error="invalid_token", error_description="The access token has expired", resource_metadata=%q`,
			"http://"+r.Host+"/.well-known/oauth-protected-resource"))
		writeJSON(w, http.StatusUnauthorized, codersdk.Response{Message: signedOutMessage, Detail: detail})
	})
}

// tokenFromRequest mirrors httpmw.APITokenFromRequest's lookup order.
func tokenFromRequest(r *http.Request) string {
	if c, err := r.Cookie(codersdk.SessionTokenCookie); err == nil && c.Value != "" {
		return c.Value
	}
	if v := r.URL.Query().Get(codersdk.SessionTokenCookie); v != "" {
		return v
	}
	if v := r.Header.Get(codersdk.SessionTokenHeader); v != "" {
		return v
	}
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(strings.ToLower(auth), "bearer ") {
		return strings.TrimSpace(auth[len("bearer "):])
	}
	return strings.TrimSpace(r.URL.Query().Get("access_token"))
}

// tokenFormatError mirrors httpmw.SplitAPIToken's checks of the
// "<10 chars>-<22 chars>" shape, messages verbatim (coderd/httpmw/apikey.go);
// it returns "" for a well-formed token.
func tokenFormatError(t string) string {
	parts := strings.Split(t, "-")
	switch {
	case len(parts) != 2:
		return fmt.Sprintf("incorrect amount of API key parts, expected 2 got %d", len(parts))
	case len(parts[0]) != 10:
		return fmt.Sprintf("invalid API key ID length, expected 10 got %d", len(parts[0]))
	case len(parts[1]) != 22:
		return fmt.Sprintf("invalid API key secret length, expected 22 got %d", len(parts[1]))
	}
	return ""
}

// requireAIGateway mirrors RequireFeatureMW(codersdk.FeatureAIBridge)
// (enterprise/coderd/templates.go), which enterprise/coderd/coderd.go puts
// on /ai-gateway/keys after apiKeyMiddleware. It checks only the feature's
// Enabled, so an unlicensed deployment and a licensed one with AI Gateway
// off get the same answer.
func (s *Server) requireAIGateway(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		enabled := s.aiGatewayLocked().Enabled
		s.mu.Unlock()
		if !enabled {
			// enterprise/coderd/templates.go RequireFeatureMW: 403
			// "<feat.Humanize()> is a Premium feature. Contact sales!";
			// codersdk/deployment.go Humanize: FeatureAIBridge -> "AI Gateway".
			writeJSON(w, http.StatusForbidden, codersdk.Response{
				Message: fmt.Sprintf("%s is a Premium feature. Contact sales!", codersdk.FeatureAIBridge.Humanize()),
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// buildInfo mirrors the BuildInfoResponse built in coderd/coderd.go.
func (s *Server) buildInfo(r *http.Request) reply {
	return reply{http.StatusOK, codersdk.BuildInfoResponse{
		ExternalURL:           "https://github.com/coder/coder",
		Version:               s.version,
		DashboardURL:          "http://" + r.Host,
		AgentAPIVersion:       "1.0",
		ProvisionerAPIVersion: "1.18",
		DeploymentID:          s.deploymentID,
		WebPushPublicKey:      s.webPushKey,
	}}
}

func (s *Server) userMe(*http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.user
	u.OrganizationIDs = append([]uuid.UUID(nil), s.user.OrganizationIDs...)
	// Like db2sdk.User: only stored site roles are listed; "member" is
	// implicit and never shown.
	u.Roles = []codersdk.SlimRole{}
	u.Roles = s.siteRolesLocked()
	return reply{http.StatusOK, u}
}
