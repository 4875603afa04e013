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
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// MCP server endpoints (coderd/coderd.go mounts them under
// /api/experimental/mcp with apiKeyMiddleware; coderd/mcp.go handles them).
const (
	EndpointMCPServersList  = "GET /api/experimental/mcp/servers"
	EndpointMCPServerCreate = "POST /api/experimental/mcp/servers"
	EndpointMCPServerGet    = "GET /api/experimental/mcp/servers/{mcpServer}"
	EndpointMCPServerUpdate = "PATCH /api/experimental/mcp/servers/{mcpServer}"
	EndpointMCPServerDelete = "DELETE /api/experimental/mcp/servers/{mcpServer}"
)

// mcpEndpoints are the endpoints of this file, in Endpoints' order.
var mcpEndpoints = []string{
	EndpointMCPServersList, EndpointMCPServerCreate, EndpointMCPServerGet, EndpointMCPServerUpdate, EndpointMCPServerDelete,
}

func (s *Server) mcpRoutes(handle func(endpoint string, h http.Handler)) {
	authed := func(f apiFunc) http.Handler { return s.requireAuth(s.api(f)) }
	handle(EndpointMCPServersList, authed(s.listMCPServers))
	handle(EndpointMCPServerCreate, authed(s.createMCPServer))
	handle(EndpointMCPServerGet, authed(s.getMCPServer))
	handle(EndpointMCPServerUpdate, authed(s.updateMCPServer))
	handle(EndpointMCPServerDelete, authed(s.deleteMCPServer))
}

// MCPServerRow is a stored MCP server config, secrets included.
type MCPServerRow struct {
	ID                  uuid.UUID
	DisplayName         string
	Slug                string
	Description         string
	IconURL             string
	Transport           string
	URL                 string
	AuthType            string
	OAuth2ClientID      string
	OAuth2ClientSecret  string
	OAuth2AuthURL       string
	OAuth2TokenURL      string
	OAuth2RevocationURL string
	OAuth2Scopes        string
	APIKeyHeader        string
	APIKeyValue         string
	CustomHeaders       map[string]string
	ToolAllowList       []string
	ToolDenyList        []string
	Availability        string
	Enabled             bool
	ModelIntent         bool
	AllowInPlanMode     bool
	ForwardCoderHeaders bool
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

func (m *MCPServerRow) clone() MCPServerRow {
	c := *m
	c.CustomHeaders = maps.Clone(m.CustomHeaders)
	c.ToolAllowList = slices.Clone(m.ToolAllowList)
	c.ToolDenyList = slices.Clone(m.ToolDenyList)
	return c
}

// toSDK mirrors convertMCPServerConfig: secrets only as has_* flags.
func (m *MCPServerRow) toSDK() codersdk.MCPServerConfig {
	return codersdk.MCPServerConfig{
		ID: m.ID, DisplayName: m.DisplayName, Slug: m.Slug, Description: m.Description, IconURL: m.IconURL,
		Transport: m.Transport, URL: m.URL, AuthType: m.AuthType,
		OAuth2ClientID: m.OAuth2ClientID, HasOAuth2Secret: m.OAuth2ClientSecret != "",
		OAuth2AuthURL: m.OAuth2AuthURL, OAuth2TokenURL: m.OAuth2TokenURL, OAuth2RevocationURL: m.OAuth2RevocationURL,
		OAuth2Scopes: m.OAuth2Scopes, APIKeyHeader: m.APIKeyHeader, HasAPIKey: m.APIKeyValue != "",
		HasCustomHeaders: len(m.CustomHeaders) > 0,
		ToolAllowList:    append([]string{}, m.ToolAllowList...),
		ToolDenyList:     append([]string{}, m.ToolDenyList...),
		Availability:     m.Availability, Enabled: m.Enabled, ModelIntent: m.ModelIntent,
		AllowInPlanMode: m.AllowInPlanMode, ForwardCoderHeaders: m.ForwardCoderHeaders,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		AuthConnected: m.AuthType != "oauth2",
	}
}

// MCPServers returns the stored MCP servers in creation order.
func (s *Server) MCPServers() []MCPServerRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]MCPServerRow, 0, len(s.mcpServers))
	for _, m := range s.mcpServers {
		out = append(out, m.clone())
	}
	return out
}

// EditMCPServer changes a server behind the API's back, as a human in
// Coder's UI would; UpdatedAt is bumped. edit runs under the server's
// lock, so it must not call the Server.
func (s *Server) EditMCPServer(id uuid.UUID, edit func(*MCPServerRow)) (MCPServerRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findMCPServer(id)
	if m == nil {
		return MCPServerRow{}, ErrNotFound
	}
	c := m.clone()
	edit(&c)
	c.UpdatedAt = s.now()
	*m = c
	return m.clone(), nil
}

func (s *Server) findMCPServer(id uuid.UUID) *MCPServerRow {
	for _, m := range s.mcpServers {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func (s *Server) slugTaken(slug string, except uuid.UUID) bool {
	return slices.ContainsFunc(s.mcpServers, func(m *MCPServerRow) bool { return m.Slug == slug && m.ID != except })
}

// listMCPServers mirrors listMCPServerConfigs for an admin: every row,
// ordered by display name.
func (s *Server) listMCPServers(*http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owner {
		// A member sees the enabled ones, redacted; the provider's token
		// is an Owner's, and a member's fake holds no rows.
		return reply{http.StatusOK, []codersdk.MCPServerConfig{}}
	}
	out := make([]codersdk.MCPServerConfig, 0, len(s.mcpServers))
	for _, m := range s.mcpServers {
		c := m.toSDK()
		if c.AuthType == "oauth2" {
			c.AuthConnected = false
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b codersdk.MCPServerConfig) int { return cmp.Compare(a.DisplayName, b.DisplayName) })
	return reply{http.StatusOK, out}
}

// mcpServerParam mirrors parseMCPServerConfigID: 400 for a value that is
// not a UUID.
func mcpServerParam(r *http.Request) (uuid.UUID, *reply) {
	id, err := uuid.Parse(r.PathValue("mcpServer"))
	if err != nil {
		rep := reply{http.StatusBadRequest, codersdk.Response{Message: "Invalid MCP server config ID.", Detail: err.Error()}}
		return uuid.Nil, &rep
	}
	return id, nil
}

func (s *Server) getMCPServer(r *http.Request) reply {
	id, rep := mcpServerParam(r)
	if rep != nil {
		return *rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findMCPServer(id)
	if m == nil || (!s.owner && !m.Enabled) {
		return notFoundReply
	}
	c := m.toSDK()
	if c.AuthType == "oauth2" {
		c.AuthConnected = false
	}
	return reply{http.StatusOK, c}
}

// mcpValidate is what httpapi.Read's validator says of a create request's
// tags, in field order.
func mcpValidate(req codersdk.CreateMCPServerConfigRequest) []codersdk.ValidationError {
	var v []codersdk.ValidationError
	required := func(field, value string) {
		if value == "" {
			v = append(v, tagFailed(field, "required", value))
		}
	}
	oneof := func(field, value string, allowed ...string) {
		if value == "" {
			v = append(v, tagFailed(field, "required", value))
		} else if !slices.Contains(allowed, value) {
			v = append(v, tagFailed(field, "oneof", value))
		}
	}
	isURL := func(field, value string, optional bool) {
		switch {
		case value == "" && optional:
		case value == "":
			v = append(v, tagFailed(field, "required", value))
		case !validURL(value):
			v = append(v, tagFailed(field, "url", value))
		}
	}
	required("display_name", req.DisplayName)
	required("slug", req.Slug)
	oneof("transport", req.Transport, "streamable_http", "sse")
	isURL("url", req.URL, false)
	oneof("auth_type", req.AuthType, "none", "oauth2", "api_key", "custom_headers", "user_oidc")
	isURL("oauth2_auth_url", req.OAuth2AuthURL, true)
	isURL("oauth2_token_url", req.OAuth2TokenURL, true)
	isURL("oauth2_revocation_url", req.OAuth2RevocationURL, true)
	oneof("availability", req.Availability, "force_on", "default_on", "default_off")
	return v
}

// validURL approximates go-playground's url tag: a scheme, and a host or a
// path after it.
func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Path != "" || u.Opaque != "")
}

// validRevocation mirrors mcpclient.ValidateRevocationEndpoint.
func validRevocation(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return false
	}
	h := u.Hostname()
	return u.Scheme == "https" || (u.Scheme == "http" && (h == "localhost" || h == "127.0.0.1" || h == "::1"))
}

func trimAll(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if t := strings.TrimSpace(s); t != "" {
			out = append(out, t)
		}
	}
	return out
}

const mcpSlugTaken = `pq: duplicate key value violates unique constraint "mcp_server_configs_slug_key"`

// createMCPServer mirrors createMCPServerConfig with manual OAuth2: the
// fake has no discovery, so an oauth2 request without a client is refused
// as a failed discovery.
func (s *Server) createMCPServer(r *http.Request) reply {
	s.mu.Lock()
	owner := s.owner
	s.mu.Unlock()
	if !owner {
		return forbiddenReply
	}
	var req codersdk.CreateMCPServerConfigRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	if v := mcpValidate(req); len(v) > 0 {
		return reply{http.StatusBadRequest, codersdk.Response{Message: "Validation failed.", Validations: v}}
	}
	if t := strings.TrimSpace(req.OAuth2RevocationURL); t != "" && !validRevocation(t) {
		return errorReply(http.StatusBadRequest, "Invalid OAuth2 revocation URL.", "oauth2_revocation_url must be an https URL (loopback hosts may use http).")
	}
	switch req.AuthType {
	case "oauth2":
		if req.OAuth2ClientID == "" && req.OAuth2AuthURL == "" && req.OAuth2TokenURL == "" {
			return errorReply(http.StatusBadRequest, "OAuth2 auto-discovery failed. Provide oauth2_client_id, oauth2_auth_url, and oauth2_token_url manually, or ensure the MCP server supports RFC 9728 (Protected Resource Metadata) and RFC 7591 (Dynamic Client Registration).", "fakecoder: no discovery")
		}
		if req.OAuth2ClientID == "" || req.OAuth2AuthURL == "" || req.OAuth2TokenURL == "" {
			return errorReply(http.StatusBadRequest, "OAuth2 auth type requires either all of oauth2_client_id, oauth2_auth_url, and oauth2_token_url (manual configuration), or none of them (automatic discovery via RFC 7591).", "")
		}
	case "api_key":
		if req.APIKeyHeader == "" || req.APIKeyValue == "" {
			return errorReply(http.StatusBadRequest, "API key auth type requires api_key_header and api_key_value.", "")
		}
	case "custom_headers":
		if len(req.CustomHeaders) == 0 {
			return errorReply(http.StatusBadRequest, "Custom headers auth type requires at least one custom header.", "")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	slug := strings.TrimSpace(req.Slug)
	if s.slugTaken(slug, uuid.Nil) {
		return errorReply(http.StatusConflict, "MCP server config already exists.", mcpSlugTaken)
	}
	t := s.now()
	m := &MCPServerRow{
		ID: s.newID(), DisplayName: strings.TrimSpace(req.DisplayName), Slug: slug,
		Description: strings.TrimSpace(req.Description), IconURL: strings.TrimSpace(req.IconURL),
		Transport: strings.TrimSpace(req.Transport), URL: strings.TrimSpace(req.URL), AuthType: strings.TrimSpace(req.AuthType),
		OAuth2ClientID: strings.TrimSpace(req.OAuth2ClientID), OAuth2ClientSecret: strings.TrimSpace(req.OAuth2ClientSecret),
		OAuth2AuthURL: strings.TrimSpace(req.OAuth2AuthURL), OAuth2TokenURL: strings.TrimSpace(req.OAuth2TokenURL),
		OAuth2RevocationURL: strings.TrimSpace(req.OAuth2RevocationURL), OAuth2Scopes: strings.TrimSpace(req.OAuth2Scopes),
		APIKeyHeader: strings.TrimSpace(req.APIKeyHeader), APIKeyValue: strings.TrimSpace(req.APIKeyValue),
		CustomHeaders: maps.Clone(req.CustomHeaders),
		ToolAllowList: trimAll(req.ToolAllowList), ToolDenyList: trimAll(req.ToolDenyList),
		Availability: strings.TrimSpace(req.Availability), Enabled: req.Enabled, ModelIntent: req.ModelIntent,
		AllowInPlanMode: req.AllowInPlanMode, ForwardCoderHeaders: req.ForwardCoderHeaders,
		CreatedAt: t, UpdatedAt: t,
	}
	s.mcpServers = append(s.mcpServers, m)
	return reply{http.StatusCreated, m.toSDK()}
}

// updateMCPServer mirrors updateMCPServerConfig: every field sent is
// trimmed and stored; a change of auth type clears the other types'
// fields.
func (s *Server) updateMCPServer(r *http.Request) reply {
	s.mu.Lock()
	owner := s.owner
	s.mu.Unlock()
	if !owner {
		return forbiddenReply
	}
	id, rep := mcpServerParam(r)
	if rep != nil {
		return *rep
	}
	var req codersdk.UpdateMCPServerConfigRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	if v := mcpValidateUpdate(req); len(v) > 0 {
		return reply{http.StatusBadRequest, codersdk.Response{Message: "Validation failed.", Validations: v}}
	}
	if req.OAuth2RevocationURL != nil {
		if t := strings.TrimSpace(*req.OAuth2RevocationURL); t != "" && (!validURL(t) || !validRevocation(t)) {
			return errorReply(http.StatusBadRequest, "Invalid OAuth2 revocation URL.", "oauth2_revocation_url must be an https URL (loopback hosts may use http).")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findMCPServer(id)
	if m == nil {
		return notFoundReply
	}
	c := m.clone()
	setTrimmed := func(dst *string, src *string) {
		if src != nil {
			*dst = strings.TrimSpace(*src)
		}
	}
	setTrimmed(&c.DisplayName, req.DisplayName)
	setTrimmed(&c.Slug, req.Slug)
	setTrimmed(&c.Description, req.Description)
	setTrimmed(&c.IconURL, req.IconURL)
	setTrimmed(&c.Transport, req.Transport)
	setTrimmed(&c.URL, req.URL)
	setTrimmed(&c.AuthType, req.AuthType)
	setTrimmed(&c.OAuth2ClientID, req.OAuth2ClientID)
	setTrimmed(&c.OAuth2ClientSecret, req.OAuth2ClientSecret)
	setTrimmed(&c.OAuth2AuthURL, req.OAuth2AuthURL)
	setTrimmed(&c.OAuth2TokenURL, req.OAuth2TokenURL)
	setTrimmed(&c.OAuth2RevocationURL, req.OAuth2RevocationURL)
	setTrimmed(&c.OAuth2Scopes, req.OAuth2Scopes)
	setTrimmed(&c.APIKeyHeader, req.APIKeyHeader)
	setTrimmed(&c.APIKeyValue, req.APIKeyValue)
	setTrimmed(&c.Availability, req.Availability)
	if req.CustomHeaders != nil {
		c.CustomHeaders = maps.Clone(*req.CustomHeaders)
	}
	if req.ToolAllowList != nil {
		c.ToolAllowList = trimAll(*req.ToolAllowList)
	}
	if req.ToolDenyList != nil {
		c.ToolDenyList = trimAll(*req.ToolDenyList)
	}
	for dst, src := range map[*bool]*bool{&c.Enabled: req.Enabled, &c.ModelIntent: req.ModelIntent, &c.AllowInPlanMode: req.AllowInPlanMode, &c.ForwardCoderHeaders: req.ForwardCoderHeaders} {
		if src != nil {
			*dst = *src
		}
	}
	if c.AuthType != m.AuthType {
		clearOtherAuth(&c)
	}
	if !slices.Contains([]string{"none", "oauth2", "api_key", "custom_headers", "user_oidc"}, c.AuthType) ||
		!slices.Contains([]string{"streamable_http", "sse"}, c.Transport) ||
		!slices.Contains([]string{"force_on", "default_on", "default_off"}, c.Availability) {
		return errorReply(http.StatusBadRequest, "Invalid MCP server config.", "pq: new row violates check constraint")
	}
	if s.slugTaken(c.Slug, c.ID) {
		return errorReply(http.StatusConflict, "MCP server config slug already exists.", "execute transaction: "+mcpSlugTaken)
	}
	c.UpdatedAt = s.now()
	*m = c
	return reply{http.StatusOK, m.toSDK()}
}

func mcpValidateUpdate(req codersdk.UpdateMCPServerConfigRequest) []codersdk.ValidationError {
	var v []codersdk.ValidationError
	oneof := func(field string, value *string, allowed ...string) {
		if value != nil && !slices.Contains(allowed, *value) {
			v = append(v, tagFailed(field, "oneof", *value))
		}
	}
	isURL := func(field string, value *string) {
		if value != nil && *value != "" && !validURL(*value) {
			v = append(v, tagFailed(field, "url", *value))
		}
	}
	oneof("transport", req.Transport, "streamable_http", "sse")
	isURL("url", req.URL)
	oneof("auth_type", req.AuthType, "none", "oauth2", "api_key", "custom_headers", "user_oidc")
	isURL("oauth2_auth_url", req.OAuth2AuthURL)
	isURL("oauth2_token_url", req.OAuth2TokenURL)
	oneof("availability", req.Availability, "force_on", "default_on", "default_off")
	return v
}

// clearOtherAuth mirrors the handler's switch on a changed auth type: the
// fields of every other type are cleared, so stale secrets do not persist.
func clearOtherAuth(c *MCPServerRow) {
	oauth2 := func() {
		c.OAuth2ClientID, c.OAuth2ClientSecret, c.OAuth2AuthURL, c.OAuth2TokenURL, c.OAuth2RevocationURL, c.OAuth2Scopes = "", "", "", "", "", ""
	}
	apiKey := func() { c.APIKeyHeader, c.APIKeyValue = "", "" }
	headers := func() { c.CustomHeaders = nil }
	switch c.AuthType {
	case "none", "user_oidc":
		oauth2()
		apiKey()
		headers()
	case "oauth2":
		apiKey()
		headers()
	case "api_key":
		oauth2()
		headers()
	case "custom_headers":
		oauth2()
		apiKey()
	}
}

// deleteMCPServer mirrors deleteMCPServerConfig: the row goes.
func (s *Server) deleteMCPServer(r *http.Request) reply {
	s.mu.Lock()
	owner := s.owner
	s.mu.Unlock()
	if !owner {
		return forbiddenReply
	}
	id, rep := mcpServerParam(r)
	if rep != nil {
		return *rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.mcpServers, func(m *MCPServerRow) bool { return m.ID == id })
	if i < 0 {
		return notFoundReply
	}
	s.mcpServers = slices.Delete(s.mcpServers, i, i+1)
	return reply{status: http.StatusNoContent}
}

// String keeps a row's secrets out of test output.
func (m MCPServerRow) String() string {
	return fmt.Sprintf("MCPServerRow{ID: %s, Slug: %q, AuthType: %q}", m.ID, m.Slug, m.AuthType)
}
