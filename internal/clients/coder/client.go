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

// Package coder is the one way provider-coder talks to Coder. It owns the
// HTTP client (TLS, timeouts, connection reuse, request metrics), one typed
// method per Coder call over codersdk, the classification of every error into
// a small set of classes controllers can act on, and the shared AI Gateway key
// list.
//
// It is built from plain data (Config) and must not import the provider's API
// types, build Kubernetes conditions, or log. Nothing it returns or prints may
// contain the session token or any request body: errors from this package are
// safe to put in a Kubernetes condition as they are.
package coder

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
)

// DefaultTimeout bounds one request when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Path templates of the Coder endpoints we call. They label metrics and
// errors, so they never contain a concrete id.
const (
	EndpointBuildInfo = "/api/v2/buildinfo"
	EndpointMe        = "/api/v2/users/me"
	// EndpointMyKey is Coder's record of the session token's own API key.
	EndpointMyKey = "/api/v2/users/me/keys/{keyid}"
	// EndpointEntitlements says which premium features the deployment's
	// licence grants and which are enabled.
	EndpointEntitlements = "/api/v2/entitlements"
	EndpointKeys         = "/api/v2/ai-gateway/keys"
	EndpointKey          = "/api/v2/ai-gateway/keys/{id}"
	EndpointProviders    = "/api/v2/ai/providers"
	EndpointProvider     = "/api/v2/ai/providers/{idOrName}"
)

// Config is everything needed to reach one Coder deployment.
type Config struct {
	// URL is Coder's access URL, http or https.
	URL string

	// Token is a Coder session token. It is sent only as a request header and
	// never appears in an error, a log line, or a printed Config.
	Token string `json:"-"`

	// CABundle is an optional PEM bundle. When set, Coder's certificate must
	// chain to exactly these roots; see tlsConfig for why the system roots are
	// then not trusted.
	CABundle []byte

	// InsecureSkipVerify disables certificate verification. Only an explicit
	// setting turns it on.
	InsecureSkipVerify bool

	// Timeout bounds one request, including reading the response body.
	// Zero means DefaultTimeout.
	Timeout time.Duration

	// MaxInFlight is how many requests the client sends at once; zero
	// means DefaultMaxInFlight. Further requests wait for a slot while
	// Coder answers and fail at once while it does not, so a Coder that
	// never answers holds no more reconcile workers than this. The
	// clients a Cache makes for one Tenant share these slots; the first
	// such client sizes them.
	MaxInFlight int

	// Tenant is the namespace of the ProviderConfig the client serves;
	// empty for the cluster-scoped kinds, which are the platform team's.
	Tenant string
}

// Format prints a Config without its token for every verb, so no %v, %+v,
// %#v or %s in a log line or error can leak it.
func (c Config) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "coder.Config{URL: %q, Token: %s, CABundle: %d bytes, InsecureSkipVerify: %t, Timeout: %s, Tenant: %q}",
		c.URL, redactedIfSet(c.Token), len(c.CABundle), c.InsecureSkipVerify, c.Timeout, c.Tenant)
}

func redactedIfSet(s string) string {
	if s == "" {
		return `""`
	}
	return "[REDACTED]"
}

// Client calls one Coder deployment. It is safe for concurrent use; reuse it
// (see Cache) so connections are reused across reconciles.
type Client struct {
	sdk     *codersdk.Client
	http    *http.Client
	url     string
	timeout time.Duration
	breaker *breaker
	clock   *atomic.Pointer[Clock]
	// deployment is Coder's last answer of its deployment id.
	deployment *answer[string]
	// seeded is Coder's last answer of its env-seeded providers (seeded.go).
	seeded *answer[EnvSeeded]
}

// New returns a Client for cfg, with request slots of its own. It does not
// contact Coder.
func New(cfg Config) (*Client, error) {
	return newClient(cfg, newSlots(cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight)))
}

// newClient returns a Client for cfg whose requests take slots from pool.
func newClient(cfg Config, pool chan struct{}) (*Client, error) {
	u, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Token == "" {
		return nil, invalid(errNoToken)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	b := newBreaker(timeout, pool, time.Now())
	clock := &atomic.Pointer[Clock]{}
	hc, err := newHTTPClient(cfg, timeout, b, clock)
	if err != nil {
		return nil, err
	}
	return &Client{
		sdk:     codersdk.New(u, codersdk.WithSessionToken(cfg.Token), codersdk.WithHTTPClient(hc)),
		http:    hc,
		url:     u.String(),
		timeout: timeout,
		breaker: b,
		clock:   clock,
		// One answer serves every deleting resource of the client for
		// deploymentTTL.
		deployment: newAnswer[string](deploymentTTL),
		seeded:     newAnswer[EnvSeeded](seededTTL),
	}, nil
}

// Format prints a Client as its URL. The token is held only inside codersdk's
// client, so not even a copied Client prints it.
func (c Client) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "coder.Client{URL: %q}", c.url)
}

// Stalled is an error while this Coder's last request got no answer in
// time and calls fail at once, or one probes whether it answers again.
func (c *Client) Stalled() error {
	return c.breaker.stalledNow(time.Now())
}

// Silent is an error when this Coder has answered nothing since a request
// sent at since, for long enough that whoever waits on that request should
// stop holding a worker for it.
func (c *Client) Silent(since time.Time) error {
	return c.breaker.silent(since, time.Now())
}

// SlotWait is how long a caller waits on this Coder before Silent may say
// it stopped answering.
func (c *Client) SlotWait() time.Duration {
	return c.breaker.slotWait
}

// Clock is Coder's clock as its latest successful answer to this client
// showed it; not Known before one with a Date. Every answer of one
// deployment dates the same clock, so the answer that brought a timestamp
// and any later one serve alike.
func (c *Client) Clock() Clock {
	if p := c.clock.Load(); p != nil {
		return *p
	}
	return Clock{}
}

// Timeout is the per-request bound of this client.
func (c *Client) Timeout() time.Duration { return c.timeout }

// CloseIdleConnections releases the client's idle connections.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// BuildInfo returns Coder's version and deployment id.
func (c *Client) BuildInfo(ctx context.Context) (codersdk.BuildInfoResponse, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointBuildInfo)
	bi, err := c.sdk.BuildInfo(ctx)
	return bi, wrap(rec, err)
}

// deploymentTTL is how long Coder's answer of its deployment id serves
// DeploymentID: as long as a shared key list serves (DefaultKeyListTTL).
// Without it every reconcile of every deleting resource asked once more,
// two requests per key delete.
const deploymentTTL = DefaultKeyListTTL

// DeploymentID returns the id of the deployment the client reaches, as
// Coder answered it at most deploymentTTL ago. A URL that reaches another
// deployment is another client (Cache keys clients by URL); this bounds how
// long the same URL answering for another deployment goes unseen. Callers
// that find the answer expired together share one request.
func (c *Client) DeploymentID(ctx context.Context) (string, error) {
	return c.deployment.get(ctx, c, func(ctx context.Context) (string, error) {
		bi, err := c.BuildInfo(ctx)
		return bi.DeploymentID, err
	})
}

// Me returns the user the token belongs to, which proves the token is valid.
func (c *Client) Me(ctx context.Context) (codersdk.User, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointMe)
	u, err := c.sdk.User(ctx, codersdk.Me)
	return u, wrap(rec, err)
}

// TokenKey returns Coder's record of the session token's own API key: when
// it expires, its lifetime and login type. The key's id is the part of the
// token before its dash (httpmw.SplitAPIToken); it goes only into the
// request path and is redacted from errors like the token, and the secret
// part never leaves the header.
func (c *Client) TokenKey(ctx context.Context) (codersdk.APIKey, error) {
	token := c.sdk.SessionToken()
	id, _, ok := strings.Cut(token, "-")
	if !ok || id == "" || strings.ContainsAny(id, "/?#%") {
		return codersdk.APIKey{}, &Error{method: http.MethodGet, endpoint: EndpointMyKey, message: errTokenNotAPIKey, local: true}
	}
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointMyKey, id)
	k, err := c.sdk.APIKeyByID(ctx, codersdk.Me, id)
	if err != nil {
		return codersdk.APIKey{}, wrap(rec, err)
	}
	return *k, nil
}

// Entitlements returns what the deployment's licence grants, feature by
// feature, and whether each feature is enabled on the deployment.
func (c *Client) Entitlements(ctx context.Context) (codersdk.Entitlements, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointEntitlements)
	e, err := c.sdk.Entitlements(ctx)
	return e, wrap(rec, err)
}

// ListProviders lists every AI provider that is not deleted.
func (c *Client) ListProviders(ctx context.Context) ([]codersdk.AIProvider, error) {
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointProviders)
	ps, err := c.sdk.AIProviders(ctx)
	return ps, wrap(rec, err)
}

// GetProvider returns one AI provider by id or name.
func (c *Client) GetProvider(ctx context.Context, idOrName string) (codersdk.AIProvider, error) {
	if err := checkIDOrName(http.MethodGet, idOrName); err != nil {
		return codersdk.AIProvider{}, err
	}
	ctx, rec := c.begin(ctx, http.MethodGet, EndpointProvider)
	p, err := c.sdk.AIProvider(ctx, idOrName)
	return p, wrap(rec, err)
}

// CreateProvider creates an AI provider. A name in use is a Conflict error.
func (c *Client) CreateProvider(ctx context.Context, req codersdk.CreateAIProviderRequest) (codersdk.AIProvider, error) {
	ctx, rec := c.begin(ctx, http.MethodPost, EndpointProviders, createSecrets(req)...)
	p, err := c.sdk.CreateAIProvider(ctx, req)
	return p, wrap(rec, err)
}

// UpdateProvider patches an AI provider by id or name.
func (c *Client) UpdateProvider(ctx context.Context, idOrName string, req codersdk.UpdateAIProviderRequest) (codersdk.AIProvider, error) {
	if err := checkIDOrName(http.MethodPatch, idOrName); err != nil {
		return codersdk.AIProvider{}, err
	}
	ctx, rec := c.begin(ctx, http.MethodPatch, EndpointProvider, updateSecrets(req)...)
	p, err := c.sdk.UpdateAIProvider(ctx, idOrName, req)
	return p, wrap(rec, err)
}

// DeleteProvider soft-deletes an AI provider by id or name. A provider that
// does not exist (or is already deleted) is a NotFound error.
func (c *Client) DeleteProvider(ctx context.Context, idOrName string) error {
	if err := checkIDOrName(http.MethodDelete, idOrName); err != nil {
		return err
	}
	ctx, rec := c.begin(ctx, http.MethodDelete, EndpointProvider)
	return wrap(rec, c.sdk.DeleteAIProvider(ctx, idOrName))
}

// checkIDOrName refuses values codersdk would paste into the path unescaped,
// so a name can never address another endpoint.
func checkIDOrName(method, idOrName string) error {
	if _, err := uuid.Parse(idOrName); err == nil {
		return nil
	}
	if codersdk.AIProviderNameRegex.MatchString(idOrName) {
		return nil
	}
	return &Error{method: method, endpoint: EndpointProvider, message: fmt.Sprintf(errFmtIDOrName, idOrName), local: true}
}

// createSecrets are the values of req that must never appear in an error.
func createSecrets(req codersdk.CreateAIProviderRequest) []string {
	s := append([]string{}, req.APIKeys...)
	return append(s, bedrockSecrets(req.Settings.Bedrock)...)
}

func updateSecrets(req codersdk.UpdateAIProviderRequest) []string {
	var s []string
	if req.APIKeys != nil {
		for _, m := range *req.APIKeys {
			if m.APIKey != nil {
				s = append(s, *m.APIKey)
			}
		}
	}
	if req.Settings != nil {
		s = append(s, bedrockSecrets(req.Settings.Bedrock)...)
	}
	return s
}

func bedrockSecrets(b *codersdk.AIProviderBedrockSettings) []string {
	var s []string
	if b == nil {
		return nil
	}
	if b.AccessKey != nil {
		s = append(s, *b.AccessKey)
	}
	if b.AccessKeySecret != nil {
		s = append(s, *b.AccessKeySecret)
	}
	return s
}
