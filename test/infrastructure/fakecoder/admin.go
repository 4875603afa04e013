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
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// The admin API exposes the Go API as JSON for tests that run the fake in
// another process. It needs no token and is never counted or faulted.
//
//	GET    /fakecoder/admin/config                  AdminConfig (token included)
//	PATCH  /fakecoder/admin/config                  AdminConfigPatch -> AdminConfig
//	GET    /fakecoder/admin/faults                  {endpoint: AdminFault}
//	PUT    /fakecoder/admin/faults                  AdminFault (with "endpoint") -> 204
//	DELETE /fakecoder/admin/faults[?endpoint=E]     clear one or all -> 204
//	GET    /fakecoder/admin/requests                {endpoint: count}
//	DELETE /fakecoder/admin/requests                reset counters -> 204
//	GET    /fakecoder/admin/keys                    []KeyRow
//	POST   /fakecoder/admin/keys/{id}/heartbeat     {"at": RFC3339} (default the deployment's now) -> 204
//	GET    /fakecoder/admin/serve                   {keyID: open /serve sessions} (keys with none left out)
//	GET    /fakecoder/admin/providers[?include_deleted=true]  []ProviderRow
//	PATCH  /fakecoder/admin/providers/{idOrName}    ProviderEdit -> ProviderRow
//	POST   /fakecoder/admin/down                    {"duration": "5s"} -> 202
//	POST   /fakecoder/admin/up                      -> 204
//	GET    /fakecoder/admin/clock                   AdminClock
//	PUT    /fakecoder/admin/clock                   {"offset": "-2m"} -> AdminClock
//	POST   /fakecoder/admin/reset                   -> 204
//
// Users, groups, memberships and spend: admin_directory.go. The
// environment's AI providers: envseed.go.
//
// Durations are Go duration strings. Down answers before the listener
// closes. Without a duration the server stays down until /up, which is only
// reachable on a separate admin listener (StartAdminOn, --admin-listen);
// the main listener therefore requires a duration.

// AdminConfig is the deployment-wide state.
type AdminConfig struct {
	Token string `json:"token"`
	Owner bool   `json:"owner"`
	// UserAdmin is Coder's User Admin site role (fakecoder.Options).
	UserAdmin bool `json:"user_admin"`
	Licensed  bool `json:"licensed"`
	// AIGatewayEnabled is CODER_AI_GATEWAY_ENABLED: with Licensed, AI
	// Gateway keys work; licensed but not enabled, they answer 403 and the
	// entitlements show aibridge entitled but disabled.
	AIGatewayEnabled bool   `json:"ai_gateway_enabled"`
	DeploymentID     string `json:"deployment_id"`
	Version          string `json:"version"`
}

// AdminConfigPatch changes the fields that are set.
type AdminConfigPatch struct {
	Token            *string `json:"token,omitempty"`
	Owner            *bool   `json:"owner,omitempty"`
	UserAdmin        *bool   `json:"user_admin,omitempty"`
	Licensed         *bool   `json:"licensed,omitempty"`
	AIGatewayEnabled *bool   `json:"ai_gateway_enabled,omitempty"`
}

// AdminClock is the deployment's clock: its offset from the host's (a Go
// duration; negative runs behind) and the time it shows now.
type AdminClock struct {
	Offset string    `json:"offset"`
	Now    time.Time `json:"now"`
}

// AdminFault is a Fault on the wire.
type AdminFault struct {
	Endpoint          string  `json:"endpoint,omitempty"`
	Latency           string  `json:"latency,omitempty"`
	Drip              string  `json:"drip,omitempty"`
	Status            int     `json:"status,omitempty"`
	Message           string  `json:"message,omitempty"`
	Commit            bool    `json:"commit,omitempty"`
	CommitThenTimeout bool    `json:"commit_then_timeout,omitempty"`
	ErrorRate         float64 `json:"error_rate,omitempty"`
	Times             int     `json:"times,omitempty"`
}

func (a AdminFault) fault() (Fault, error) {
	f := Fault{Status: a.Status, Message: a.Message, Commit: a.Commit,
		CommitThenTimeout: a.CommitThenTimeout, ErrorRate: a.ErrorRate, Times: a.Times}
	for _, d := range []struct {
		text string
		to   *time.Duration
	}{{a.Latency, &f.Latency}, {a.Drip, &f.Drip}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil {
			return Fault{}, err
		}
		*d.to = v
	}
	return f, nil
}

func adminFault(f Fault) AdminFault {
	a := AdminFault{Status: f.Status, Message: f.Message, Commit: f.Commit,
		CommitThenTimeout: f.CommitThenTimeout, ErrorRate: f.ErrorRate, Times: f.Times}
	if f.Latency > 0 {
		a.Latency = f.Latency.String()
	}
	if f.Drip > 0 {
		a.Drip = f.Drip.String()
	}
	return a
}

// ProviderEdit is what the admin API can change on a provider "in the
// Coder UI". APIKeys is the full list of plaintexts afterwards: keys whose
// plaintext is listed keep their ID, the others are removed, new ones added.
type ProviderEdit struct {
	DisplayName *string                      `json:"display_name,omitempty"`
	Icon        *string                      `json:"icon,omitempty"`
	Enabled     *bool                        `json:"enabled,omitempty"`
	BaseURL     *string                      `json:"base_url,omitempty"`
	APIKeys     *[]string                    `json:"api_keys,omitempty"`
	Settings    *codersdk.AIProviderSettings `json:"settings,omitempty"`
}

// Apply changes p as described; it suits EditProvider.
func (e ProviderEdit) Apply(p *ProviderRow) {
	set := func(dst, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&p.DisplayName, e.DisplayName)
	set(&p.Icon, e.Icon)
	set(&p.BaseURL, e.BaseURL)
	if e.Enabled != nil {
		p.Enabled = *e.Enabled
	}
	if e.Settings != nil {
		p.Settings = cloneSettings(*e.Settings)
	}
	if e.APIKeys != nil {
		var keys []ProviderKeyRow
		for _, plain := range *e.APIKeys {
			i := slices.IndexFunc(p.APIKeys, func(k ProviderKeyRow) bool { return k.APIKey == plain })
			if i >= 0 {
				keys = append(keys, p.APIKeys[i])
			} else {
				keys = append(keys, ProviderKeyRow{APIKey: plain}) // EditProvider assigns the ID
			}
		}
		p.APIKeys = keys
	}
}

// adminHandler serves the admin API. standalone is true on the separate
// admin listener, which survives SetDown.
func (s *Server) adminHandler(standalone bool) http.Handler {
	mux := http.NewServeMux()
	const p = "/fakecoder/admin"
	for route, h := range map[string]http.HandlerFunc{
		"GET " + p + "/config":                 func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.adminConfig()) },
		"PATCH " + p + "/config":               s.adminPatchConfig,
		"GET " + p + "/faults":                 s.adminGetFaults,
		"PUT " + p + "/faults":                 s.adminPutFault,
		"DELETE " + p + "/faults":              s.adminClearFaults,
		"GET " + p + "/requests":               func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.RequestCounts()) },
		"DELETE " + p + "/requests":            func(w http.ResponseWriter, _ *http.Request) { s.ResetCounts(); w.WriteHeader(http.StatusNoContent) },
		"GET " + p + "/keys":                   func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.Keys()) },
		"POST " + p + "/keys/{id}/heartbeat":   s.adminHeartbeat,
		"GET " + p + "/serve":                  func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.OpenSessions()) },
		"GET " + p + "/providers":              s.adminProviders,
		"PATCH " + p + "/providers/{idOrName}": s.adminEditProvider,
		"POST " + p + "/down":                  func(w http.ResponseWriter, r *http.Request) { s.adminDown(w, r, standalone) },
		"POST " + p + "/up":                    s.adminUp,
		"GET " + p + "/clock":                  func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.adminClock()) },
		"PUT " + p + "/clock":                  s.adminSetClock,
		"POST " + p + "/reset":                 func(w http.ResponseWriter, _ *http.Request) { s.Reset(); w.WriteHeader(http.StatusNoContent) },
		p + "/": func(w http.ResponseWriter, _ *http.Request) {
			adminError(w, http.StatusNotFound, errors.New("no such admin route"))
		},
	} {
		mux.HandleFunc(route, h)
	}
	s.directoryAdminRoutes(mux, p)
	s.envAdminRoutes(mux, p)
	return mux
}

// adminPatchConfig sets what the patch names of the token, owner and licence.
func (s *Server) adminPatchConfig(w http.ResponseWriter, r *http.Request) {
	var patch AdminConfigPatch
	if !decodeAdmin(w, r, &patch) {
		return
	}
	s.mu.Lock()
	if patch.Token != nil {
		s.token = *patch.Token
	}
	if patch.Owner != nil {
		s.owner = *patch.Owner
	}
	if patch.UserAdmin != nil {
		s.userAdmin = *patch.UserAdmin
	}
	if patch.Licensed != nil {
		s.licensed = *patch.Licensed
	}
	if patch.AIGatewayEnabled != nil {
		s.aiGatewayEnabled = *patch.AIGatewayEnabled
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.adminConfig())
}

// adminGetFaults lists the faults set, by endpoint.
func (s *Server) adminGetFaults(w http.ResponseWriter, _ *http.Request) {
	out := map[string]AdminFault{}
	for e, f := range s.Faults() {
		out[e] = adminFault(f)
	}
	writeJSON(w, http.StatusOK, out)
}

// adminPutFault sets a fault on an endpoint.
func (s *Server) adminPutFault(w http.ResponseWriter, r *http.Request) {
	var a AdminFault
	if !decodeAdmin(w, r, &a) {
		return
	}
	f, err := a.fault()
	if err == nil {
		err = s.SetFault(a.Endpoint, f)
	}
	if err != nil {
		adminError(w, http.StatusBadRequest, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// adminClearFaults clears the fault of ?endpoint=, or every fault.
func (s *Server) adminClearFaults(w http.ResponseWriter, r *http.Request) {
	if e := r.URL.Query().Get("endpoint"); e != "" {
		s.ClearFault(e)
	} else {
		s.ClearFaults()
	}
	w.WriteHeader(http.StatusNoContent)
}

// adminHeartbeat records a gateway heartbeat for a key, now or at the body's time.
func (s *Server) adminHeartbeat(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		adminError(w, http.StatusBadRequest, err)
		return
	}
	var body struct {
		At *time.Time `json:"at"`
	}
	if r.ContentLength != 0 && !decodeAdmin(w, r, &body) {
		return
	}
	at := s.now()
	if body.At != nil {
		at = *body.At
	}
	if err := s.Heartbeat(id, at); err != nil {
		adminError(w, http.StatusNotFound, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// adminProviders lists the providers, soft-deleted ones with ?include_deleted=true.
func (s *Server) adminProviders(w http.ResponseWriter, r *http.Request) {
	rows := s.Providers(r.URL.Query().Get("include_deleted") == "true")
	if rows == nil {
		rows = []ProviderRow{}
	}
	writeJSON(w, http.StatusOK, rows)
}

// adminEditProvider edits a provider behind the API's back.
func (s *Server) adminEditProvider(w http.ResponseWriter, r *http.Request) {
	var edit ProviderEdit
	if !decodeAdmin(w, r, &edit) {
		return
	}
	row, err := s.EditProvider(r.PathValue("idOrName"), edit.Apply)
	switch {
	case errors.Is(err, ErrNotFound):
		adminError(w, http.StatusNotFound, err)
	case err != nil:
		adminError(w, http.StatusBadRequest, err)
	default:
		writeJSON(w, http.StatusOK, row)
	}
}

// adminDown takes the main listener down, for the body's duration or (on the
// standalone admin listener only) until /up.
func (s *Server) adminDown(w http.ResponseWriter, r *http.Request, standalone bool) {
	var body struct {
		Duration string `json:"duration"`
	}
	if r.ContentLength != 0 && !decodeAdmin(w, r, &body) {
		return
	}
	var d time.Duration
	if body.Duration != "" {
		var err error
		if d, err = time.ParseDuration(body.Duration); err != nil || d <= 0 {
			adminError(w, http.StatusBadRequest, errors.New("duration must be a positive Go duration"))
			return
		}
	}
	if d == 0 && !standalone {
		adminError(w, http.StatusBadRequest, errors.New("a duration is required on the main listener: nothing could bring it back up"))
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_ = http.NewResponseController(w).Flush()
	// Go down after answering: closing the listener from inside this
	// request would cut the answer off.
	go func() {
		if d > 0 {
			_ = s.DownFor(d)
		} else {
			_ = s.SetDown(true)
		}
	}()
}

// adminUp brings the main listener back.
func (s *Server) adminUp(w http.ResponseWriter, _ *http.Request) {
	if err := s.SetDown(false); err != nil {
		adminError(w, http.StatusConflict, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// adminSetClock shifts the server's clock by the body's offset.
func (s *Server) adminSetClock(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Offset string `json:"offset"`
	}
	if !decodeAdmin(w, r, &body) {
		return
	}
	d, err := time.ParseDuration(body.Offset)
	if err != nil {
		adminError(w, http.StatusBadRequest, errors.New("offset must be a Go duration, e.g. -2m"))
		return
	}
	s.SetClockOffset(d)
	writeJSON(w, http.StatusOK, s.adminClock())
}

func (s *Server) adminConfig() AdminConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return AdminConfig{Token: s.token, Owner: s.owner, UserAdmin: s.userAdmin, Licensed: s.licensed, AIGatewayEnabled: s.aiGatewayEnabled,
		DeploymentID: s.deploymentID, Version: s.version}
}

func (s *Server) adminClock() AdminClock {
	return AdminClock{Offset: s.ClockOffset().String(), Now: s.now()}
}

func decodeAdmin(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields() // catch typos in test setups early
	if err := dec.Decode(v); err != nil {
		adminError(w, http.StatusBadRequest, err)
		return false
	}
	return true
}

func adminError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, codersdk.Response{Message: err.Error()})
}
