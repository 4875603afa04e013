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

package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"

	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// errNoFaults is what the real Coder answers to fault injection: faults
// stay in the fake.
var errNoFaults = errors.New("the real Coder injects no faults; use the fake for this scenario")

// realCoder is the real Coder server as the scenarios drive it. Keys and
// Providers read its PostgreSQL tables, as the fake's read its store, so a
// scenario counts rows the API hides (soft-deleted providers). SetDown stops
// and starts the server process; other faults are unsupported.
type realCoder struct{ c *realcoder.Coder }

var _ Coder = realCoder{}

// IsReal reports whether c is the real Coder server.
func IsReal(c Coder) bool {
	_, ok := c.(realCoder)
	return ok
}

// StoredKeyIs reports whether Coder stored plaintext as the key of row: the
// fake keeps the plaintext, the real server its SHA-256.
func StoredKeyIs(c Coder, row fakecoder.KeyRow, plaintext []byte) bool {
	want := sha256.Sum256(plaintext)
	if r, ok := c.(realCoder); ok {
		h, found := r.hashedSecret(row.ID.String())
		return found && string(h) == string(want[:])
	}
	return sha256.Sum256([]byte(row.Key)) == want
}

// sharedRealCoder is started by the first scenario that needs it and
// stopped by StopRealCoder at the end of the run: one PostgreSQL and one
// server for every scenario, as one fake serves them all.
var sharedRealCoder struct {
	once sync.Once
	c    *realcoder.Coder
	err  error
}

// RealCoder returns the shared real Coder, starting it on first use. It
// skips t when the real Coder cannot run here (see realcoder.SkipUnlessAvailable).
func RealCoder(t *testing.T) Coder {
	t.Helper()
	realcoder.SkipUnlessAvailable(t)
	s := &sharedRealCoder
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		s.c, s.err = realcoder.Start(ctx, realcoder.Options{})
		if s.err == nil {
			fmt.Printf("PostgreSQL and the real Coder started in %s (%s)\n", time.Since(start).Round(time.Millisecond), s.c.Licence())
		}
	})
	if s.err != nil {
		t.Fatalf("cannot start the real Coder: %v", s.err)
	}
	return realCoder{s.c}
}

// StartedRealCoder returns the shared real Coder when a scenario started
// it, for the scans after the scenarios.
func StartedRealCoder() (Coder, bool) {
	if c := sharedRealCoder.c; c != nil {
		return realCoder{c}, true
	}
	return nil, false
}

// StopRealCoder stops the shared real Coder, if a scenario started it.
func StopRealCoder() {
	if c := sharedRealCoder.c; c != nil {
		c.Stop()
	}
}

func (r realCoder) URL() string   { return r.c.URL.String() }
func (r realCoder) Token() string { return r.c.Token }

func (r realCoder) SetFault(string, fakecoder.Fault) error { return errNoFaults }
func (r realCoder) ClearFault(string)                      {}

// SetDown stops the server process (connections are refused) or starts it
// again on the same address and database.
func (r realCoder) SetDown(refuse bool) error {
	if refuse {
		r.c.StopServer()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return r.c.StartServer(ctx)
}

// Keys reads ai_gateway_keys. Coder keeps no plaintext, so Key is empty;
// storedKeyIs compares hashes instead. A failed read panics: an empty
// answer would pass for "no keys left".
func (r realCoder) Keys() []fakecoder.KeyRow {
	rows, err := r.c.Keys(context.Background())
	if err != nil {
		panic(err)
	}
	out := make([]fakecoder.KeyRow, 0, len(rows))
	for _, k := range rows {
		out = append(out, fakecoder.KeyRow{ID: k.ID, Name: k.Name, KeyPrefix: k.KeyPrefix, CreatedAt: k.CreatedAt, LastHeartbeatAt: k.LastHeartbeatAt})
	}
	return out
}

// Providers reads ai_providers (without keys or settings). A failed read
// panics, as in Keys.
func (r realCoder) Providers(includeDeleted bool) []fakecoder.ProviderRow {
	rows, err := r.c.Providers(context.Background(), includeDeleted)
	if err != nil {
		panic(err)
	}
	out := make([]fakecoder.ProviderRow, 0, len(rows))
	for _, p := range rows {
		out = append(out, fakecoder.ProviderRow{
			ID: p.ID, Type: codersdk.AIProviderType(p.Type), Name: p.Name, DisplayName: p.DisplayName,
			Enabled: p.Enabled, Deleted: p.Deleted, BaseURL: p.BaseURL, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		})
	}
	return out
}

// Requests is not counted by the real server; a scenario that needs it is
// a fake-only scenario.
func (r realCoder) Requests(string) int {
	panic("the real Coder counts no requests; use the fake for this scenario")
}

func (r realCoder) SDK(*testing.T) *codersdk.Client { return r.c.Client() }

// ServesKeys reports whether the real Coder runs with a licence.
func (r realCoder) ServesKeys() bool { return r.c.Licensed }

// SetClockOffset is a fault: the real Coder runs on this host's clock.
func (r realCoder) SetClockOffset(time.Duration) error { return errNoFaults }

// Now is the host's clock, which the real Coder runs on.
func (r realCoder) Now() time.Time { return time.Now() }

// Heartbeat is what a gateway replica does; the harness runs none against
// the real Coder.
func (r realCoder) Heartbeat(uuid.UUID, time.Time) error { return errNoFaults }

// MCPServers are the real Coder's MCP server configs as the fake's rows,
// secrets included (read from its database).
func (r realCoder) MCPServers() []fakecoder.MCPServerRow {
	rows, err := r.c.MCPServers(context.Background())
	if err != nil {
		panic(err)
	}
	out := make([]fakecoder.MCPServerRow, 0, len(rows))
	for _, m := range rows {
		row := fakecoder.MCPServerRow{
			ID: m.ID, Slug: m.Slug, DisplayName: m.DisplayName, URL: m.URL, AuthType: m.AuthType,
			OAuth2ClientSecret: m.OAuth2ClientSecret, APIKeyHeader: m.APIKeyHeader, APIKeyValue: m.APIKeyValue,
			Enabled: m.Enabled, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		}
		for _, f := range []struct {
			raw string
			to  any
		}{{m.CustomHeaders, &row.CustomHeaders}, {m.ToolAllowList, &row.ToolAllowList}, {m.ToolDenyList, &row.ToolDenyList}} {
			if err := json.Unmarshal([]byte(f.raw), f.to); err != nil {
				panic(err)
			}
		}
		if len(row.CustomHeaders) == 0 {
			row.CustomHeaders = nil
		}
		out = append(out, row)
	}
	return out
}

// hashedSecret returns the SHA-256 Coder stored for the key with the id.
func (r realCoder) hashedSecret(id string) ([]byte, bool) {
	rows, err := r.c.Keys(context.Background())
	if err != nil {
		panic(err)
	}
	for _, k := range rows {
		if k.ID.String() == id {
			return k.HashedSecret, true
		}
	}
	return nil, false
}

// IsNotFound reports whether err is Coder's 404.
func IsNotFound(err error) bool {
	var se *codersdk.Error
	return errors.As(err, &se) && se.StatusCode() == http.StatusNotFound
}

// SkipUnlessServesKeys skips a scenario that needs AI Gateway keys on a
// Coder that does not serve them (the real one without a licence).
func SkipUnlessServesKeys(t *testing.T, c Coder) {
	t.Helper()
	if !c.ServesKeys() {
		t.Skip(realcoder.UnlicensedSkip)
	}
}
