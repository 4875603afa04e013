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
	"slices"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
)

// MCP servers Coder's agents may call, open source and unlicensed
// (coderd/mcp.go): an Owner, or a user allowed to update the deployment
// config, manages them. Coder never returns their secrets, only whether it
// holds them (has_oauth2_secret, has_api_key, has_custom_headers).
const (
	EndpointMCPServers = "/api/experimental/mcp/servers"
	EndpointMCPServer  = "/api/experimental/mcp/servers/{id}"
)

// ListMCPServers lists every MCP server (an admin sees disabled ones too).
func (c *Client) ListMCPServers(ctx context.Context) ([]codersdk.MCPServerConfig, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointMCPServers)
	s, err := c.sdk.MCPServerConfigs(ctx)
	return s, wrap(rec, err)
}

// GetMCPServer returns one MCP server by id. One that does not exist is a
// NotFound error.
func (c *Client) GetMCPServer(ctx context.Context, id uuid.UUID) (codersdk.MCPServerConfig, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointMCPServer)
	s, err := c.sdk.MCPServerConfigByID(ctx, id)
	return s, wrap(rec, err)
}

// CreateMCPServer creates an MCP server. A slug in use is a Conflict error.
// The request's secrets never appear in an error.
func (c *Client) CreateMCPServer(ctx context.Context, req codersdk.CreateMCPServerConfigRequest) (codersdk.MCPServerConfig, error) {
	ctx, rec := c.begin(ctx, http.MethodPost, EndpointMCPServers, mcpSecrets(req.OAuth2ClientSecret, req.APIKeyValue, req.CustomHeaders)...)
	s, err := c.sdk.CreateMCPServerConfig(ctx, req)
	return s, wrap(rec, err)
}

// UpdateMCPServer patches an MCP server by id. The request's secrets never
// appear in an error.
func (c *Client) UpdateMCPServer(ctx context.Context, id uuid.UUID, req codersdk.UpdateMCPServerConfigRequest) (codersdk.MCPServerConfig, error) {
	var headers map[string]string
	if req.CustomHeaders != nil {
		headers = *req.CustomHeaders
	}
	ctx, rec := c.begin(ctx, http.MethodPatch, EndpointMCPServer, mcpSecrets(deref(req.OAuth2ClientSecret), deref(req.APIKeyValue), headers)...)
	s, err := c.sdk.UpdateMCPServerConfig(ctx, id, req)
	return s, wrap(rec, err)
}

// DeleteMCPServer deletes an MCP server by id (Coder deletes the row). One
// that does not exist is a NotFound error.
func (c *Client) DeleteMCPServer(ctx context.Context, id uuid.UUID) error {
	ctx, rec := c.begin(ctx, http.MethodDelete, EndpointMCPServer)
	return wrap(rec, c.sdk.DeleteMCPServerConfig(ctx, id))
}

// mcpSecrets are the values of a request that must never appear in an
// error: the OAuth2 client secret, the API key value and every custom
// header's value.
func mcpSecrets(clientSecret, apiKey string, headers map[string]string) []string {
	s := []string{clientSecret, apiKey}
	for _, v := range headers {
		s = append(s, v)
	}
	return slices.DeleteFunc(s, func(v string) bool { return v == "" })
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
