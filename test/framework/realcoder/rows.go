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

package realcoder

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// KeyRow is a row of ai_gateway_keys. Coder keeps only the secret's hash.
type KeyRow struct {
	ID        uuid.UUID
	Name      string
	KeyPrefix string
	// HashedSecret is the SHA-256 of the key's plaintext (apikey.HashSecret).
	HashedSecret    []byte
	CreatedAt       time.Time
	LastHeartbeatAt *time.Time
}

// ProviderRow is a row of ai_providers (without settings, which may be
// encrypted, and without keys, which live in ai_provider_keys).
type ProviderRow struct {
	ID          uuid.UUID
	Type        string
	Name        string
	DisplayName string
	Enabled     bool
	Deleted     bool
	BaseURL     string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Keys reads every AI Gateway key in creation order. Coder deletes keys for
// good, so there are no deleted rows.
func (c *Coder) Keys(ctx context.Context) ([]KeyRow, error) {
	rows, err := c.Postgres.DB.QueryContext(ctx,
		`SELECT id, name, secret_prefix, hashed_secret, created_at, last_heartbeat_at FROM ai_gateway_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("cannot read ai_gateway_keys: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []KeyRow
	for rows.Next() {
		var k KeyRow
		var hb sql.NullTime
		if err := rows.Scan(&k.ID, &k.Name, &k.KeyPrefix, &k.HashedSecret, &k.CreatedAt, &hb); err != nil {
			return nil, fmt.Errorf("cannot read ai_gateway_keys: %w", err)
		}
		if hb.Valid {
			t := hb.Time
			k.LastHeartbeatAt = &t
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Providers reads the AI providers in creation order; soft-deleted ones
// only with includeDeleted.
func (c *Coder) Providers(ctx context.Context, includeDeleted bool) ([]ProviderRow, error) {
	rows, err := c.Postgres.DB.QueryContext(ctx,
		`SELECT id, type, name, COALESCE(display_name, ''), enabled, deleted, base_url, created_at, updated_at
		 FROM ai_providers WHERE $1 OR NOT deleted ORDER BY created_at, id`, includeDeleted)
	if err != nil {
		return nil, fmt.Errorf("cannot read ai_providers: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []ProviderRow
	for rows.Next() {
		var p ProviderRow
		if err := rows.Scan(&p.ID, &p.Type, &p.Name, &p.DisplayName, &p.Enabled, &p.Deleted, &p.BaseURL, &p.CreatedAt, &p.UpdatedAt); err != nil {
			return nil, fmt.Errorf("cannot read ai_providers: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CountRows returns the number of AI Gateway keys and of non-deleted AI
// providers in Coder's database.
func (c *Coder) CountRows(ctx context.Context) (keys, providers int, err error) {
	err = c.Postgres.DB.QueryRowContext(ctx,
		`SELECT (SELECT count(*) FROM ai_gateway_keys), (SELECT count(*) FROM ai_providers WHERE NOT deleted)`).
		Scan(&keys, &providers)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot count Coder's rows: %w", err)
	}
	return keys, providers, nil
}

// MCPServerRow is a row of mcp_server_configs, secrets included: the
// harness's Coder runs without database encryption, so they are stored as
// sent.
type MCPServerRow struct {
	ID                 uuid.UUID
	Slug               string
	DisplayName        string
	URL                string
	AuthType           string
	OAuth2ClientSecret string
	APIKeyHeader       string
	APIKeyValue        string
	// CustomHeaders is the stored JSON object of header names and values.
	CustomHeaders string
	// ToolAllowList and ToolDenyList are stored JSON arrays.
	ToolAllowList string
	ToolDenyList  string
	Enabled       bool
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// MCPServers reads the MCP server configs in creation order (Coder deletes
// them for good).
func (c *Coder) MCPServers(ctx context.Context) ([]MCPServerRow, error) {
	rows, err := c.Postgres.DB.QueryContext(ctx,
		`SELECT id, slug, display_name, url, auth_type, oauth2_client_secret, api_key_header, api_key_value, custom_headers,
		        array_to_json(tool_allow_list)::text, array_to_json(tool_deny_list)::text, enabled, created_at, updated_at
		 FROM mcp_server_configs ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("cannot read mcp_server_configs: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []MCPServerRow
	for rows.Next() {
		var m MCPServerRow
		if err := rows.Scan(&m.ID, &m.Slug, &m.DisplayName, &m.URL, &m.AuthType, &m.OAuth2ClientSecret, &m.APIKeyHeader,
			&m.APIKeyValue, &m.CustomHeaders, &m.ToolAllowList, &m.ToolDenyList, &m.Enabled, &m.CreatedAt, &m.UpdatedAt); err != nil {
			return nil, fmt.Errorf("cannot read mcp_server_configs: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
