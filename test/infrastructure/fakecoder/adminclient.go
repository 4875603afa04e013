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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
)

// AdminClient drives a fake Coder in another process through the admin API
// (admin.go), e.g. one in a kind cluster.
type AdminClient struct {
	// BaseURL is the fake's address; requests go to
	// BaseURL+"/fakecoder/admin/...", so a proxy path prefix is kept.
	BaseURL string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
}

// Config returns the deployment-wide state, token included.
func (c *AdminClient) Config(ctx context.Context) (AdminConfig, error) {
	var out AdminConfig
	err := c.do(ctx, http.MethodGet, "/config", nil, &out)
	return out, err
}

// SetFault makes endpoint misbehave as f describes.
func (c *AdminClient) SetFault(ctx context.Context, endpoint string, f Fault) error {
	a := adminFault(f)
	a.Endpoint = endpoint
	return c.do(ctx, http.MethodPut, "/faults", a, nil)
}

// ClearFault removes the fault of endpoint.
func (c *AdminClient) ClearFault(ctx context.Context, endpoint string) error {
	return c.do(ctx, http.MethodDelete, "/faults?endpoint="+url.QueryEscape(endpoint), nil, nil)
}

// Down refuses connections on the Coder API for d, or until Up when d is 0
// (which only the separate admin listener can serve).
func (c *AdminClient) Down(ctx context.Context, d time.Duration) error {
	var body any
	if d > 0 {
		body = map[string]string{"duration": d.String()}
	}
	return c.do(ctx, http.MethodPost, "/down", body, nil)
}

// Up listens on the Coder API again.
func (c *AdminClient) Up(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/up", nil, nil)
}

// Keys returns the stored AI Gateway keys.
func (c *AdminClient) Keys(ctx context.Context) ([]KeyRow, error) {
	var out []KeyRow
	err := c.do(ctx, http.MethodGet, "/keys", nil, &out)
	return out, err
}

// Providers returns the stored AI providers.
func (c *AdminClient) Providers(ctx context.Context, includeDeleted bool) ([]ProviderRow, error) {
	var out []ProviderRow
	err := c.do(ctx, http.MethodGet, fmt.Sprintf("/providers?include_deleted=%t", includeDeleted), nil, &out)
	return out, err
}

// OpenSessions returns the open gateway replica sessions by key id; see
// Server.OpenSessions.
func (c *AdminClient) OpenSessions(ctx context.Context) (map[uuid.UUID]int, error) {
	out := map[uuid.UUID]int{}
	err := c.do(ctx, http.MethodGet, "/serve", nil, &out)
	return out, err
}

// Requests returns how many requests each endpoint served.
func (c *AdminClient) Requests(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := c.do(ctx, http.MethodGet, "/requests", nil, &out)
	return out, err
}

// SetClockOffset makes the deployment's clock run d ahead of the host's
// (behind when d is negative); see Server.SetClockOffset.
func (c *AdminClient) SetClockOffset(ctx context.Context, d time.Duration) error {
	return c.do(ctx, http.MethodPut, "/clock", map[string]string{"offset": d.String()}, nil)
}

// Clock returns the deployment's clock offset and the time it shows.
func (c *AdminClient) Clock(ctx context.Context) (AdminClock, error) {
	var out AdminClock
	err := c.do(ctx, http.MethodGet, "/clock", nil, &out)
	return out, err
}

// Heartbeat records a heartbeat of the key id at at, as a gateway replica
// using it does; a zero at is the deployment's now.
func (c *AdminClient) Heartbeat(ctx context.Context, id uuid.UUID, at time.Time) error {
	var body any
	if !at.IsZero() {
		body = map[string]time.Time{"at": at}
	}
	return c.do(ctx, http.MethodPost, "/keys/"+id.String()+"/heartbeat", body, nil)
}

// Reset deletes every row and clears faults, the clock offset and request
// counts.
func (c *AdminClient) Reset(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/reset", nil, nil)
}

func (c *AdminClient) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+"/fakecoder/admin"+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("fakecoder admin %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// SetEnvProviders makes ps the AI providers of the deployment's environment
// and seeds them; see Server.SetEnvProviders.
func (c *AdminClient) SetEnvProviders(ctx context.Context, ps []EnvProvider) error {
	return c.do(ctx, http.MethodPut, "/env-providers", ps, nil)
}
