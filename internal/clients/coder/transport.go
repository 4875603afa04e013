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
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

const (
	errParseURL       = "cannot parse the Coder URL"
	errURLScheme      = "cannot use the Coder URL: scheme must be http or https, with a host"
	errURLUserinfo    = "cannot use the Coder URL: it must not carry credentials; put the session token in the credentials Secret"
	errURLQuery       = "cannot use the Coder URL: it must not have a query or fragment"
	errNoToken        = "cannot use an empty Coder session token"
	errCABundle       = "cannot use the CA bundle: it contains no PEM certificate"
	errFmtIDOrName    = "cannot use %q as an AI provider id or name"
	errTokenNotAPIKey = "cannot tell the session token's API key: the token is not in Coder's <id>-<secret> form"
	errFmtRedirect    = "cannot follow Coder's redirect to %s: set the ProviderConfig URL to the address Coder redirects to"
)

// parseURL accepts only plain http(s) URLs. Userinfo and queries are refused
// because codersdk copies the request URL into its errors verbatim.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// The parse error repeats the URL, which may hold credentials.
		return nil, invalid(errParseURL)
	}
	switch {
	case u.User != nil:
		return nil, invalid(errURLUserinfo)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, invalid(errURLScheme)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, invalid(errURLQuery)
	}
	return u, nil
}

func newHTTPClient(cfg Config, timeout time.Duration, b *breaker, clock *atomic.Pointer[Clock]) (*http.Client, error) {
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	t := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tc,
		TLSHandshakeTimeout: 10 * time.Second,
		// Just below the client's timeout, so a Coder that never answers
		// ends in the transport's timeout error, which the breaker sees,
		// and not in the client's cancellation, which it cannot tell apart
		// from a caller's.
		ResponseHeaderTimeout: timeout * 9 / 10,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   16,
		// A custom TLS config turns HTTP/2 off unless asked for.
		ForceAttemptHTTP2: true,
	}
	return &http.Client{
		Transport: &instrumented{next: t, breaker: b, clock: clock},
		Timeout:   timeout,
		// The token is a custom header, which Go forwards on redirects, even
		// to another host. Never follow one; the error names the target.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, nil
}

// tlsConfig trusts exactly CABundle when it is set, not CABundle plus the
// system roots: a ProviderConfig that names a CA says which authority vouches
// for its Coder, and adding every public CA would let any of them vouch too.
// A Coder with a publicly trusted certificate needs no bundle at all.
func tlsConfig(cfg Config) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cfg.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CABundle) {
			return nil, invalid(errCABundle)
		}
		tc.RootCAs = pool
	}
	// Explicit opt-in only; it overrides CABundle, as in Go itself.
	tc.InsecureSkipVerify = cfg.InsecureSkipVerify
	return tc, nil
}

// call is what one method call learned about its HTTP exchange. codersdk does
// not expose the status of every failure (a non-JSON-decodable error body
// loses it), so the transport records it here.
type call struct {
	method   string
	endpoint string
	secrets  []string

	status      int
	contentType string
	location    string
	// wrote is set from the transport's write goroutine.
	wrote atomic.Bool
}

type callKey struct{}

// begin starts one call: the transport reads the record from ctx to label
// metrics with the path template and to remember what happened on the wire.
func (c *Client) begin(ctx context.Context, method, endpoint string, secrets ...string) (context.Context, *call) {
	rec := &call{method: method, endpoint: endpoint, secrets: append(secrets, c.sdk.SessionToken())}
	return context.WithValue(ctx, callKey{}, rec), rec
}

// instrumented counts every request, records the outcome for errors,
// bounds every response body, and keeps Coder's clock as its latest
// successful answer showed it.
type instrumented struct {
	next    http.RoundTripper
	breaker *breaker
	clock   *atomic.Pointer[Clock]
}

func (t *instrumented) RoundTrip(req *http.Request) (*http.Response, error) {
	endpoint := "unknown"
	rec, _ := req.Context().Value(callKey{}).(*call)
	if rec != nil {
		endpoint = rec.endpoint
		// Once the request is on the wire Coder may act on it, so a failure
		// after this point leaves the outcome uncertain.
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { rec.wrote.Store(true) }}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	}
	start := time.Now()
	probe, err := t.breaker.allow(start)
	release := func() {}
	if err == nil && !probe {
		// The probe goes out whatever the slots: it is what tells whether
		// the Coder answers again.
		if err = t.breaker.acquire(req.Context(), start); err == nil {
			release = t.breaker.release
		}
	}
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		metrics.ObserveCoderRequest(endpoint, req.Method, metrics.CodeError, 0)
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	received := time.Now()
	t.breaker.done(probe, err, received)
	code := metrics.CodeError
	if err != nil {
		release()
	}
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
		if c, ok := clockOf(resp, received); ok {
			t.clock.Store(&c)
		}
		// codersdk reads bodies whole (io.ReadAll, json.Decoder); this is
		// the one place to bound them. The slot is held until the body is
		// closed: a Coder that sends its headers at once and drips the body
		// holds the request as long as one that answers late.
		resp.Body = holdSlot(limitBody(resp.Body, maxResponseBody), release)
		if rec != nil {
			rec.status = resp.StatusCode
			rec.contentType = resp.Header.Get("Content-Type")
			rec.location = redirectTarget(resp)
		}
	}
	metrics.ObserveCoderRequest(endpoint, req.Method, code, time.Since(start))
	return resp, err
}

// slotBody gives its request slot back once, when the body is closed.
type slotBody struct {
	io.ReadCloser
	release func()
	once    sync.Once
}

// holdSlot returns rc, which calls release when closed; a body Go's
// transport made empty (http.NoBody) is done with, so release runs at once.
func holdSlot(rc io.ReadCloser, release func()) io.ReadCloser {
	if rc == nil || rc == http.NoBody {
		release()
		return rc
	}
	return &slotBody{ReadCloser: rc, release: release}
}

func (b *slotBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

func (t *instrumented) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// redirectTarget is the redirect's scheme, host and path; its query may hold
// anything, so it is dropped.
func redirectTarget(resp *http.Response) string {
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return ""
	}
	u, err := resp.Location()
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}
