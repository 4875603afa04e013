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

// Package fakecoder is an in-memory test double of the external Coder
// server (v2.36.0), limited to the API surface provider-coder uses:
//
//	GET    /api/v2/buildinfo
//	GET    /api/v2/users/me
//	GET    /api/v2/users/me/keys/{keyid}   (the session token's own key)
//	GET    /api/v2/entitlements
//	GET    /api/v2/ai-gateway/keys
//	POST   /api/v2/ai-gateway/keys
//	DELETE /api/v2/ai-gateway/keys/{key}
//	GET    /api/v2/ai/providers
//	POST   /api/v2/ai/providers
//	GET    /api/v2/ai/providers/{idOrName}
//	PATCH  /api/v2/ai/providers/{idOrName}
//	DELETE /api/v2/ai/providers/{idOrName}
//	GET    /api/v2/ai-gateway/serve        (a gateway replica's WebSocket, no DRPC)
//	GET    /api/v2/users/{user}
//	GET    /api/v2/organizations/{organization}/groups/{groupName}
//	GET    /api/v2/groups/{group}/ai/budget    (and PUT, DELETE; budgets.go)
//	GET    /api/v2/groups/{group}/ai/spend
//	GET    /api/v2/users/{user}/ai/budget/override    (and PUT, DELETE)
//	GET    /api/v2/users/{user}/ai/spend
//
// It is meant to be driven through codersdk.Client exactly like a real
// deployment, so it mirrors the real server's status codes, JSON bodies
// (codersdk.Response with validations), validation order, authorization
// (owner-only, AI Gateway entitlement and enablement), the entitlements
// Coder reports for its AI Gateway feature, hard delete of gateway keys and
// soft delete of AI providers. Comments on handlers name the coder source
// file each behaviour was taken from.
//
// On top of the Coder API it offers what a real server cannot: per-endpoint
// fault injection (latency, error statuses, "commit then time out", a
// delete answered 204 or 404 that keeps the object), a clock that runs
// ahead of or behind the host's (every row it dates and every answer's Date
// header; SetClockOffset), refusing connections and coming back on the same
// address, request
// counters, and direct access to stored rows including secrets the real
// API never returns. The same features are served as JSON under
// /fakecoder/admin/ (see admin.go) for tests that run the fake in another
// process; cmd/fakecoder is that binary.
//
// It is not a Coder implementation: there is no database, no audit log,
// no pubsub, one organization, and one user with a session (whose token is
// configurable); other users and groups exist only for AI budgets
// (directory.go).
package fakecoder
