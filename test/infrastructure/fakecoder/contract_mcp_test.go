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

package fakecoder_test

// Not compared: a member's list (the enabled servers, redacted), since the
// fake's member is a server of its own, without the owner's rows.

// mcpContract is the MCP servers API (coderd/mcp.go), which needs no
// licence and no experiment: every auth type the provider creates (OAuth2
// configured by hand: the fake has no discovery), the refusals admission
// mirrors, a taken slug, a PATCH per drift, and a verified delete.
var mcpContract = []step{
	{name: "list MCP servers, none yet", as: owner, method: "GET", path: "/api/experimental/mcp/servers", wantRes: 200},
	{name: "create MCP server without auth", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Docs","slug":"contract-docs","description":" d ","icon_url":"/icon/docs.svg","transport":"streamable_http",` +
			`"url":"https://mcp.example.com/docs","auth_type":"none","tool_allow_list":["search"," read ",""],"tool_deny_list":["write"],` +
			`"availability":"default_on","enabled":true,"model_intent":true,"allow_in_plan_mode":true,"forward_coder_headers":true}`,
		save: map[string]string{"mcpNone": "id"}, wantRes: 201},
	{name: "create MCP server with oauth2", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"GitHub","slug":"contract-github","transport":"sse","url":"https://mcp.example.com/gh","auth_type":"oauth2",` +
			`"oauth2_client_id":"cid","oauth2_client_secret":"contract-oauth2-secret","oauth2_auth_url":"https://idp.example.com/authorize",` +
			`"oauth2_token_url":"https://idp.example.com/token","oauth2_revocation_url":"https://idp.example.com/revoke","oauth2_scopes":"repo read",` +
			`"availability":"default_off","enabled":false}`,
		save: map[string]string{"mcpOAuth2": "id"}, wantRes: 201},
	{name: "create MCP server with an api key", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Key","slug":"contract-key","transport":"streamable_http","url":"https://mcp.example.com/key","auth_type":"api_key",` +
			`"api_key_header":"X-Api-Key","api_key_value":"contract-api-key","availability":"force_on","enabled":true}`,
		save: map[string]string{"mcpKey": "id"}, wantRes: 201},
	{name: "create MCP server with custom headers", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Headers","slug":"contract-headers","transport":"streamable_http","url":"https://mcp.example.com/h","auth_type":"custom_headers",` +
			`"custom_headers":{"X-One":"contract-header-one","X-Two":"contract-header-two"},"availability":"default_off","enabled":true}`,
		save: map[string]string{"mcpHeaders": "id"}, wantRes: 201},
	{name: "create MCP server with user oidc", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"OIDC","slug":"contract-oidc","transport":"streamable_http","url":"https://mcp.example.com/oidc","auth_type":"user_oidc",` +
			`"availability":"default_off","enabled":true}`,
		save: map[string]string{"mcpOIDC": "id"}, wantRes: 201},
	{name: "create MCP server with a taken slug", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Again","slug":"contract-docs","transport":"sse","url":"https://mcp.example.com/again","auth_type":"none","availability":"default_off"}`, wantRes: 409},
	{name: "create MCP server with nothing", as: owner, method: "POST", path: "/api/experimental/mcp/servers", body: `{}`, wantRes: 400},
	{name: "create MCP server with bad enums and URL", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Bad","slug":"contract-bad","transport":"ws","url":"nope","auth_type":"basic","availability":"always"}`, wantRes: 400},
	{name: "create MCP server with oauth2 half configured", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Half","slug":"contract-half","transport":"sse","url":"https://mcp.example.com/half","auth_type":"oauth2","oauth2_client_id":"cid","availability":"default_off"}`, wantRes: 400},
	{name: "create MCP server with an http revocation URL", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Rev","slug":"contract-rev","transport":"sse","url":"https://mcp.example.com/rev","auth_type":"oauth2","oauth2_client_id":"cid",` +
			`"oauth2_auth_url":"https://idp.example.com/a","oauth2_token_url":"https://idp.example.com/t","oauth2_revocation_url":"http://idp.example.com/r","availability":"default_off"}`, wantRes: 400},
	{name: "create MCP server with an api key but no value", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"NoKey","slug":"contract-nokey","transport":"sse","url":"https://mcp.example.com/nokey","auth_type":"api_key","api_key_header":"X","availability":"default_off"}`, wantRes: 400},
	{name: "create MCP server with no custom headers", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"NoH","slug":"contract-noh","transport":"sse","url":"https://mcp.example.com/noh","auth_type":"custom_headers","availability":"default_off"}`, wantRes: 400},
	{name: "list MCP servers, five", as: owner, method: "GET", path: "/api/experimental/mcp/servers", wantRes: 200},
	{name: "get MCP server", as: owner, method: "GET", path: "/api/experimental/mcp/servers/{mcpOAuth2}", wantRes: 200},
	{name: "get MCP server by slug", as: owner, method: "GET", path: "/api/experimental/mcp/servers/contract-docs", wantRes: 400},
	{name: "get MCP server that does not exist", as: owner, method: "GET", path: "/api/experimental/mcp/servers/" + noKey, wantRes: 404},
	{name: "patch MCP server fields and tool lists", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/{mcpNone}",
		body: `{"display_name":"Docs 2","description":"","tool_allow_list":[],"tool_deny_list":["write","delete"],"availability":"force_on","enabled":false,"model_intent":false}`, wantRes: 200},
	{name: "patch MCP server api key value", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/{mcpKey}",
		body: `{"api_key_value":"contract-api-key-2"}`, wantRes: 200},
	{name: "patch MCP server custom headers", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/{mcpHeaders}",
		body: `{"custom_headers":{"X-Three":"contract-header-three"}}`, wantRes: 200},
	{name: "patch MCP server from api key to custom headers", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/{mcpKey}",
		body: `{"auth_type":"custom_headers","custom_headers":{"X-K":"contract-header-k"}}`, wantRes: 200},
	{name: "patch MCP server from oauth2 to none", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/{mcpOAuth2}",
		body: `{"auth_type":"none"}`, wantRes: 200},
	{name: "patch MCP server to a taken slug", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/{mcpKey}", body: `{"slug":"contract-docs"}`, wantRes: 409},
	{name: "patch MCP server with a bad transport", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/{mcpKey}", body: `{"transport":"ws"}`, wantRes: 400},
	{name: "patch MCP server that does not exist", as: owner, method: "PATCH", path: "/api/experimental/mcp/servers/" + noKey, body: `{"enabled":true}`, wantRes: 404},
	{name: "create MCP server as a member", as: member, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"M","slug":"contract-m","transport":"sse","url":"https://mcp.example.com/m","auth_type":"none","availability":"default_off"}`, wantRes: 403},
	{name: "delete MCP server as a member", as: member, method: "DELETE", path: "/api/experimental/mcp/servers/" + noKey, wantRes: 403},
	{name: "list MCP servers without a token", as: anonymous, method: "GET", path: "/api/experimental/mcp/servers", wantRes: 401},
	{name: "list MCP servers after the edits", as: owner, method: "GET", path: "/api/experimental/mcp/servers", wantRes: 200},
	{name: "delete MCP server", as: owner, method: "DELETE", path: "/api/experimental/mcp/servers/{mcpNone}", wantRes: 204},
	{name: "get deleted MCP server", as: owner, method: "GET", path: "/api/experimental/mcp/servers/{mcpNone}", wantRes: 404},
	{name: "delete deleted MCP server", as: owner, method: "DELETE", path: "/api/experimental/mcp/servers/{mcpNone}", wantRes: 404},
	{name: "create MCP server with a deleted server's slug", as: owner, method: "POST", path: "/api/experimental/mcp/servers",
		body: `{"display_name":"Docs","slug":"contract-docs","transport":"sse","url":"https://mcp.example.com/docs","auth_type":"none","availability":"default_off"}`,
		save: map[string]string{"mcpNone": "id"}, wantRes: 201},
	{name: "delete the rest", as: owner, method: "DELETE", path: "/api/experimental/mcp/servers/{mcpOAuth2}", wantRes: 204},
	{name: "delete the api key server", as: owner, method: "DELETE", path: "/api/experimental/mcp/servers/{mcpKey}", wantRes: 204},
	{name: "delete the headers server", as: owner, method: "DELETE", path: "/api/experimental/mcp/servers/{mcpHeaders}", wantRes: 204},
	{name: "delete the oidc server", as: owner, method: "DELETE", path: "/api/experimental/mcp/servers/{mcpOIDC}", wantRes: 204},
	{name: "delete the re-created server", as: owner, method: "DELETE", path: "/api/experimental/mcp/servers/{mcpNone}", wantRes: 204},
	{name: "list MCP servers, none left", as: owner, method: "GET", path: "/api/experimental/mcp/servers", wantRes: 200},
}
