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
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// CoderVersion is the Coder release this fake mirrors and the default
// version it reports from /api/v2/buildinfo.
const CoderVersion = "v2.36.0"

// Endpoint names identify an API endpoint for fault injection and request
// counting. Each is the http.ServeMux pattern the endpoint is served on, so
// it reads like the request it matches.
const (
	EndpointBuildInfo       = "GET /api/v2/buildinfo"
	EndpointUserMe          = "GET /api/v2/users/me"
	EndpointMyKey           = "GET /api/v2/users/me/keys/{keyid}"
	EndpointEntitlements    = "GET /api/v2/entitlements"
	EndpointKeysList        = "GET /api/v2/ai-gateway/keys"
	EndpointKeysCreate      = "POST /api/v2/ai-gateway/keys"
	EndpointKeysDelete      = "DELETE /api/v2/ai-gateway/keys/{key}"
	EndpointProvidersList   = "GET /api/v2/ai/providers"
	EndpointProvidersCreate = "POST /api/v2/ai/providers"
	EndpointProviderGet     = "GET /api/v2/ai/providers/{idOrName}"
	EndpointProviderUpdate  = "PATCH /api/v2/ai/providers/{idOrName}"
	EndpointProviderDelete  = "DELETE /api/v2/ai/providers/{idOrName}"
)

// Endpoints returns every endpoint name the fake serves.
func Endpoints() []string {
	return append([]string{
		EndpointBuildInfo, EndpointUserMe, EndpointMyKey, EndpointEntitlements,
		EndpointKeysList, EndpointKeysCreate, EndpointKeysDelete,
		EndpointProvidersList, EndpointProvidersCreate,
		EndpointProviderGet, EndpointProviderUpdate, EndpointProviderDelete,
		EndpointServe, EndpointDeploymentConfig, EndpointAuthCheck,
	}, append(slices.Clone(budgetEndpoints), mcpEndpoints...)...)
}

// ErrNotFound is returned by the Go API when a row does not exist.
var ErrNotFound = errors.New("fakecoder: not found")

// Options configure a Server. The zero value is a licensed deployment with
// AI Gateway enabled, whose single user is an owner and must present a
// generated session token.
type Options struct {
	// Token is the session token clients must present. Empty generates one
	// in Coder's "<10 chars>-<22 chars>" format; read it with Server.Token.
	Token string
	// DeploymentID is reported by /api/v2/buildinfo. Empty generates a UUID.
	DeploymentID string
	// Version is reported by /api/v2/buildinfo. Empty means CoderVersion.
	Version string
	// Member makes the user a plain member instead of an owner, so every AI
	// endpoint answers 403 as it does for non-owners in Coder.
	Member bool
	// UserAdmin gives the user Coder's User Admin site role: with Member,
	// it manages users, groups and their AI budgets, and no AI provider or
	// key.
	UserAdmin bool
	// Unlicensed removes the AI Gateway entitlement, so the gateway key
	// endpoints answer the "Premium feature" 403 and /api/v2/entitlements
	// shows aibridge not_entitled and disabled, has_license false.
	Unlicensed bool
	// AIGatewayDisabled is a deployment that is licensed for AI Gateway but
	// does not enable it (CODER_AI_GATEWAY_ENABLED=false): aibridge is
	// entitled but disabled, and the gateway key endpoints answer the same
	// "Premium feature" 403 as without a licence (RequireFeatureMW checks
	// Enabled). Unlicensed wins when both are set.
	AIGatewayDisabled bool
	// TokenLoginType and TokenLifetime make the session token's API key:
	// empty is an API token (coder tokens create) of DefaultTokenLifetime;
	// another login type is a session, which Coder extends on use.
	TokenLoginType codersdk.LoginType
	TokenLifetime  time.Duration

	// heartbeatInterval shortens HeartbeatInterval for the fake's own unit
	// tests; unexported so that every other user gets Coder's 60 s.
	heartbeatInterval time.Duration
}

// Server is the fake Coder deployment. Create it with New; serve it with
// Start/StartOn, or mount Handler in a server of your own.
type Server struct {
	deploymentID string
	version      string
	webPushKey   string
	user         codersdk.User // roles are filled in per request
	mux          *http.ServeMux
	done         chan struct{} // closed by Close to release hung requests
	closeOnce    sync.Once

	// mu guards the deployment state below. Handlers hold it only while
	// they read or change rows, never while sleeping or writing responses.
	mu    sync.Mutex
	token string
	key   codersdk.APIKey // the session token's
	// keyType and keyLifetime make the key of a new session token.
	keyType     codersdk.LoginType
	keyLifetime time.Duration
	owner       bool
	userAdmin   bool // Coder's User Admin site role (authcheck.go)
	licensed    bool
	// aiGatewayEnabled is CODER_AI_GATEWAY_ENABLED; it counts only while
	// licensed (aiGatewayLocked).
	aiGatewayEnabled bool
	keys             []*KeyRow       // in creation order; deleted keys are removed
	keyLog           []KeyLifetime   // every key ever created, for tests to read
	issued           []string        // every plaintext ever returned, for the secret scans
	providers        []*ProviderRow  // in creation order; soft-deleted rows stay
	mcpServers       []*MCPServerRow // in creation order; deleted rows are removed
	envProviders     []EnvProvider   // the AI providers env vars seed (envseed.go)
	dir              directory       // users, groups, AI budgets (directory.go)
	faults           map[string]*Fault
	// mimic are the ids the next created keys and providers take
	// (Mimic): a hostile server's.
	mimic  []uuid.UUID
	counts map[string]int
	// sessions counts open /serve sessions by key id (serve.go).
	sessions map[uuid.UUID]int
	// sessionsChanged is closed, and replaced, each time sessions changes.
	sessionsChanged   chan struct{}
	heartbeatInterval time.Duration
	// clockOffset is how far the deployment's clock runs ahead of the
	// host's (negative: behind), in nanoseconds: every timestamp the fake
	// writes and every answer's Date header show it. Atomic, so the
	// handlers read it while they hold mu.
	clockOffset atomic.Int64

	// netMu guards the listeners, so SetDown can swap them while requests
	// are in flight.
	netMu     sync.Mutex
	addr      string       // main address; kept while down to re-listen on it
	srv       *http.Server // nil while down or not started
	stopSrv   context.CancelFunc
	downTimer *time.Timer
	adminSrv  *http.Server
	adminAddr string
	closed    bool
}

// New returns a Server that is not listening yet.
func New(o Options) *Server {
	s := &Server{
		deploymentID:      o.DeploymentID,
		version:           o.Version,
		token:             o.Token,
		owner:             !o.Member,
		userAdmin:         o.UserAdmin,
		licensed:          !o.Unlicensed,
		aiGatewayEnabled:  !o.AIGatewayDisabled,
		done:              make(chan struct{}),
		faults:            map[string]*Fault{},
		counts:            map[string]int{},
		sessions:          map[uuid.UUID]int{},
		sessionsChanged:   make(chan struct{}),
		heartbeatInterval: cmp.Or(o.heartbeatInterval, HeartbeatInterval),
	}
	if s.deploymentID == "" {
		s.deploymentID = uuid.NewString()
	}
	if s.version == "" {
		s.version = CoderVersion
	}
	if s.token == "" {
		s.token = newSessionToken()
	}
	s.webPushKey = newWebPushPublicKey()
	created := now()
	s.user = codersdk.User{
		ReducedUser: codersdk.ReducedUser{
			MinimalUser: codersdk.MinimalUser{ID: uuid.New(), Username: "admin", Name: "Admin"},
			Email:       "admin@coder.com",
			CreatedAt:   created,
			UpdatedAt:   created,
			LastSeenAt:  created,
			Status:      codersdk.UserStatusActive,
			LoginType:   codersdk.LoginTypePassword,
		},
		OrganizationIDs: []uuid.UUID{uuid.New()},
	}
	s.keyType, s.keyLifetime = cmp.Or(o.TokenLoginType, codersdk.LoginTypeToken), cmp.Or(o.TokenLifetime, DefaultTokenLifetime)
	s.key = s.newKeyLocked(s.token, s.keyType, s.keyLifetime)
	s.dir = newDirectory(s.user)
	s.mux = s.routes()
	return s
}

// newSessionToken returns a token shaped like a Coder API key
// ("<id>-<secret>", see httpmw.SplitAPIToken), so clients that sanity-check
// the format accept it.
func newSessionToken() string {
	return randomAlphanumeric(10) + "-" + randomAlphanumeric(22)
}

// newWebPushPublicKey returns a VAPID public key as Coder serves it: a P-256
// point, uncompressed, unpadded base64url (coderd/webpush).
func newWebPushPublicKey() string {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes())
}

// randomAlphanumeric mirrors coder's cryptorand.String charset.
func randomAlphanumeric(n int) string {
	const charset = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails, see crypto/rand.Read
	for i := range b {
		b[i] = charset[int(b[i])%len(charset)]
	}
	return string(b)
}

// now returns the current time the way Coder stores it: UTC with
// Postgres' microsecond precision (coderd/database/dbtime).
func now() time.Time { return time.Now().UTC().Round(time.Microsecond) }

// Handler serves the Coder API and the admin API.
func (s *Server) Handler() http.Handler { return s.mux }

// Start listens on a free loopback port.
func (s *Server) Start() error { return s.StartOn("127.0.0.1:0") }

// StartOn listens on addr (host:port; port 0 picks a free one).
func (s *Server) StartOn(addr string) error {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.closed {
		return errors.New("fakecoder: server is closed")
	}
	if s.addr != "" {
		return errors.New("fakecoder: already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("fakecoder: listen: %w", err)
	}
	s.addr = ln.Addr().String()
	s.serveLocked(ln)
	return nil
}

// StartAdminOn serves only the admin API on a second address. Unlike the
// main listener it stays up while the server is down, so a test in another
// process can bring the server back (POST /fakecoder/admin/up).
func (s *Server) StartAdminOn(addr string) error {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.closed || s.adminSrv != nil {
		return errors.New("fakecoder: admin listener closed or already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("fakecoder: admin listen: %w", err)
	}
	s.adminAddr = ln.Addr().String()
	s.adminSrv = &http.Server{Handler: s.adminHandler(true), ReadHeaderTimeout: 10 * time.Second}
	go func(srv *http.Server) { _ = srv.Serve(ln) }(s.adminSrv)
	return nil
}

func (s *Server) serveLocked(ln net.Listener) {
	// Every request context derives from ctx, so closing this listener
	// generation also releases requests hung by CommitThenTimeout.
	ctx, cancel := context.WithCancel(context.Background())
	s.stopSrv = cancel
	s.srv = &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func(srv *http.Server) { _ = srv.Serve(ln) }(s.srv)
}

func (s *Server) stopLocked() {
	if s.srv == nil {
		return
	}
	s.stopSrv()
	_ = s.srv.Close() // closes the listener and every open connection
	s.srv = nil
}

// URL is the base URL of the main listener, e.g. http://127.0.0.1:41234.
// It stays the same across SetDown. Empty until started.
func (s *Server) URL() string {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.addr == "" {
		return ""
	}
	return "http://" + s.addr
}

// AdminURL is the base URL of the admin listener, empty unless
// StartAdminOn was called.
func (s *Server) AdminURL() string {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.adminAddr == "" {
		return ""
	}
	return "http://" + s.adminAddr
}

// SetDown with refuse=true closes the listener and every open connection,
// so clients get "connection refused". SetDown(false) listens again on the
// same address, so clients recover without being reconfigured.
func (s *Server) SetDown(refuse bool) error {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.downTimer != nil {
		s.downTimer.Stop()
		s.downTimer = nil
	}
	return s.setDownLocked(refuse)
}

// DownFor refuses connections for d, then comes back on the same address.
func (s *Server) DownFor(d time.Duration) error {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.downTimer != nil {
		s.downTimer.Stop()
	}
	if err := s.setDownLocked(true); err != nil {
		return err
	}
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		s.netMu.Lock()
		defer s.netMu.Unlock()
		if s.downTimer == t { // not superseded by a later SetDown/DownFor
			s.downTimer = nil
			_ = s.setDownLocked(false)
		}
	})
	s.downTimer = t
	return nil
}

func (s *Server) setDownLocked(refuse bool) error {
	switch {
	case s.closed:
		return errors.New("fakecoder: server is closed")
	case s.addr == "":
		return errors.New("fakecoder: SetDown needs a server started with Start or StartOn")
	case refuse:
		s.stopLocked()
		return nil
	case s.srv != nil:
		return nil // already up
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("fakecoder: re-listen on %s: %w", s.addr, err)
	}
	s.serveLocked(ln)
	return nil
}

// Close stops all listeners and releases hung requests. A closed Server
// cannot be restarted.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.netMu.Lock()
	defer s.netMu.Unlock()
	s.closed = true
	if s.downTimer != nil {
		s.downTimer.Stop()
		s.downTimer = nil
	}
	s.stopLocked()
	if s.adminSrv != nil {
		_ = s.adminSrv.Close()
	}
}

// Token returns the session token clients must present.
func (s *Server) Token() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

// SetToken changes the accepted session token, e.g. to simulate a revoked
// or rotated token.
func (s *Server) SetToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
	s.key = s.newKeyLocked(token, s.keyType, s.keyLifetime)
}

// SetOwner makes the user an owner (true) or a plain member (false).
func (s *Server) SetOwner(owner bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner = owner
}

// Reset deletes every key and provider row, every user, group, budget and
// spend but the session's user and Everyone, and clears faults, the clock
// offset and request counts; token, license, AI Gateway enablement and role
// are kept.
func (s *Server) Reset() {
	s.clockOffset.Store(0)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = nil
	s.keyLog = nil
	s.providers = nil
	s.mcpServers = nil
	s.dir = newDirectory(s.user)
	s.faults = map[string]*Fault{}
	s.counts = map[string]int{}
}
