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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// hostile answers like Coder but also echoes the request body and the session
// token back in the detail, as a careless proxy or server might, so every case
// proves the client redacts them.
func hostile(status int, r codersdk.Response) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.Detail = strings.TrimSpace(r.Detail + " request=" + string(b) + " token=" + req.Header.Get(codersdk.SessionTokenHeader))
		writeJSON(w, status, r)
	}
}

// hostileText answers with a non-JSON body, as a proxy in front of Coder does.
func hostileText(status int, text string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, "<html>%s %s %s</html>", text, b, req.Header.Get(codersdk.SessionTokenHeader))
	}
}

type caller func(context.Context, *Client) error

var (
	createProvider caller = func(ctx context.Context, c *Client) error {
		secret := testAPIKey + "-bedrock"
		_, err := c.CreateProvider(ctx, codersdk.CreateAIProviderRequest{
			Type: codersdk.AIProviderTypeAnthropic, Name: "anthropic", BaseURL: "https://api.anthropic.com",
			APIKeys:  []string{testAPIKey},
			Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{AccessKeySecret: &secret}},
		})
		return err
	}
	updateProvider caller = func(ctx context.Context, c *Client) error {
		k := testAPIKey
		_, err := c.UpdateProvider(ctx, "anthropic", codersdk.UpdateAIProviderRequest{APIKeys: &[]codersdk.AIProviderKeyMutation{{APIKey: &k}}})
		return err
	}
	createKey caller = func(ctx context.Context, c *Client) error {
		_, err := c.CreateKey(ctx, "gateway-1")
		return err
	}
	deleteKey caller = func(ctx context.Context, c *Client) error {
		return c.DeleteKey(ctx, uuid.MustParse("0b0e7c4e-6a53-4a4f-9d0c-2f1f3b4b5c6d"))
	}
	buildInfo caller = func(ctx context.Context, c *Client) error {
		_, err := c.BuildInfo(ctx)
		return err
	}
)

func TestErrorsAreClassifiedAndNeverCarrySecrets(t *testing.T) {
	// Nothing in this package logs; capture the process log anyway so a
	// future log line with a secret fails here.
	logged := &syncBuffer{}
	log.SetOutput(logged)
	t.Cleanup(func() { log.SetOutput(io.Discard) })

	refused := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		return "http://" + addr
	}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })

	type want struct {
		Class   Class
		Timeout bool
		Cause   string
		Text    string
	}
	cases := map[string]struct {
		reason  string
		handler http.Handler
		tls     bool
		url     func(t *testing.T, srv *httptest.Server) string
		short   bool // a short client timeout
		call    caller
		want    want
	}{
		"Unauthorized": {
			reason:  "401 means the token is not accepted",
			handler: hostile(401, codersdk.Response{Message: "You are signed out or your session has expired. Please sign in again to continue."}),
			call:    createProvider,
			want:    want{Class: ClassUnauthorized, Text: "POST /api/v2/ai/providers: 401 Unauthorized: You are signed out or your session has expired."},
		},
		"ForbiddenNotLicensed": {
			reason:  "Coder's entitlement middleware answers 403 with a Premium-feature message",
			handler: hostile(403, codersdk.Response{Message: "AI Gateway is a Premium feature. Contact sales!"}),
			call:    createKey,
			want:    want{Class: ClassForbidden, Cause: CauseNotLicensed, Text: "POST /api/v2/ai-gateway/keys: 403 Forbidden: " + CauseNotLicensed + ": AI Gateway is a Premium feature. Contact sales!"},
		},
		"ForbiddenNoPermission": {
			reason:  "a 403 from authorization names the permission the call needs and the role that has it",
			handler: hostile(403, codersdk.Response{Message: "Forbidden.", Detail: "You don't have permission to view this content."}),
			call:    createProvider,
			want:    want{Class: ClassForbidden, Cause: providerCreateRefused, Text: "POST /api/v2/ai/providers: 403 Forbidden: " + providerCreateRefused + ": Forbidden. (You don't have permission to view this content."},
		},
		"NotFound": {
			reason:  "Coder's own 404 for the object is verified absence",
			handler: hostile(404, codersdk.Response{Message: "Resource not found or you do not have access to this resource"}),
			call:    deleteKey,
			want:    want{Class: ClassNotFound, Text: "DELETE /api/v2/ai-gateway/keys/{id}: 404 Not Found: Resource not found"},
		},
		"RouteNotFound": {
			reason:  "a 404 for a route Coder does not serve must never read as absence",
			handler: hostile(404, codersdk.Response{Message: "Route not found."}),
			call:    deleteKey,
			want:    want{Class: ClassInvalid, Text: "DELETE /api/v2/ai-gateway/keys/{id}: 404 Not Found: Route not found. (" + hintRouteNotFound + ")"},
		},
		"NotFoundFromProxy": {
			reason:  "a non-JSON 404 is not Coder's answer, so not absence either",
			handler: hostileText(404, "nothing here"),
			call:    deleteKey,
			want:    want{Class: ClassInvalid, Text: "DELETE /api/v2/ai-gateway/keys/{id}: 404 Not Found: unexpected non-JSON response"},
		},
		"Conflict": {
			reason:  "a provider name in use is a 409",
			handler: hostile(409, codersdk.Response{Message: `AI provider "anthropic" already exists.`}),
			call:    createProvider,
			want:    want{Class: ClassConflict, Text: `POST /api/v2/ai/providers: 409 Conflict: AI provider "anthropic" already exists.`},
		},
		"KeyNameTaken": {
			reason: "Coder answers a duplicate key name with 400, which is still a conflict",
			handler: hostile(400, codersdk.Response{Message: "Key name must be unique.", Validations: []codersdk.ValidationError{
				{Field: "name", Detail: "A key with this name already exists."},
			}}),
			call: createKey,
			want: want{Class: ClassConflict, Text: "; name: A key with this name already exists."},
		},
		"Validation": {
			reason: "a 400 with validations is invalid and names every field",
			handler: hostile(400, codersdk.Response{Message: "Invalid AI provider.", Validations: []codersdk.ValidationError{
				{Field: "base_url", Detail: "base_url is required"},
				{Field: "api_keys[0]", Detail: "bad key " + testAPIKey},
			}}),
			call: updateProvider,
			want: want{Class: ClassInvalid, Text: "; base_url: base_url is required; api_keys[0]: bad key [REDACTED]"},
		},
		"ServerError": {
			reason:  "a 500 is worth retrying and did not apply",
			handler: hostile(500, codersdk.Response{Message: "Internal error creating AI provider."}),
			call:    createProvider,
			want:    want{Class: ClassUnavailable, Text: "POST /api/v2/ai/providers: 500 Internal Server Error: Internal error creating AI provider."},
		},
		"ServerErrorUnreadable": {
			reason: "codersdk drops the status of an error body it cannot decode; the transport keeps it",
			handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(503)
				_, _ = w.Write([]byte("{not json"))
			}),
			call: createProvider,
			want: want{Class: ClassUnavailable, Text: "POST /api/v2/ai/providers: 503 Service Unavailable: " + errDecode},
		},
		"BadGateway": {
			reason:  "a proxy's 502 may hide a request Coder applied",
			handler: hostileText(502, "bad gateway"),
			call:    createKey,
			want:    want{Class: ClassUnavailable, Timeout: true, Text: "POST /api/v2/ai-gateway/keys: 502 Bad Gateway: unexpected non-JSON response"},
		},
		"TooManyRequests": {
			reason:  "rate limiting is worth retrying",
			handler: hostile(429, codersdk.Response{Message: "You've been rate limited."}),
			call:    createProvider,
			want:    want{Class: ClassUnavailable, Text: "429 Too Many Requests"},
		},
		"KeyCreateAnsweredWith200": {
			reason: "a success the call did not expect carries the key's plaintext; nothing of it is quoted (found by FuzzErrorsNeverCarrySecrets)",
			handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, 200, codersdk.CreateAIGatewayKeyResponse{Name: "gateway-1", Key: testKeyPlaintext, KeyPrefix: testKeyPlaintext[:11]})
			}),
			call: createKey,
			want: want{Class: ClassUnknown, Timeout: true, Text: "POST /api/v2/ai-gateway/keys: 200 OK: unexpected success status"},
		},
		"ProviderCreateAnsweredWithAnEmpty200": {
			reason: "a success status means Coder may have made the provider, whatever the body: the create is uncertain, not refused (found by soak seed 118707505893)",
			handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(200)
			}),
			call: createProvider,
			want: want{Class: ClassInvalid, Timeout: true, Text: "POST /api/v2/ai/providers: 200 OK: unexpected non-JSON response"},
		},
		"NotCoder": {
			reason:  "a web page answering 200 to buildinfo is not Coder",
			handler: hostileText(200, "welcome"),
			call:    buildInfo,
			want:    want{Class: ClassInvalid, Text: "GET /api/v2/buildinfo: 200 OK: unexpected non-JSON response"},
		},
		"SuccessBodyLost": {
			reason: "a create whose success body broke off applied, but its answer is lost",
			handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", "1000")
				w.WriteHeader(201)
				_, _ = w.Write([]byte(`{"id":"`))
			}),
			call: createKey,
			want: want{Class: ClassUnavailable, Timeout: true, Text: "POST /api/v2/ai-gateway/keys: 201 Created: " + errDecode + ": unexpected EOF"},
		},
		"ConnectionRefused": {
			reason: "nothing listening: refused before sending, so certainly not applied",
			url:    func(t *testing.T, _ *httptest.Server) string { return refused(t) },
			call:   createProvider,
			want:   want{Class: ClassUnavailable, Text: "POST /api/v2/ai/providers: no response from Coder: dial tcp"},
		},
		"Timeout": {
			reason: "a request that was sent and then timed out may have been applied",
			handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}),
			short: true,
			call:  createProvider,
			want:  want{Class: ClassUnavailable, Timeout: true, Text: "POST /api/v2/ai/providers: no response from Coder: "},
		},
		"TLSUnknownAuthority": {
			reason:  "an untrusted certificate is a configuration problem, not an outage",
			handler: hostile(200, codersdk.Response{}),
			tls:     true,
			call:    createProvider,
			want:    want{Class: ClassTLS, Text: "x509: certificate signed by unknown authority"},
		},
		"HTTPSToHTTPPort": {
			reason:  "an https URL pointing at a plain http port is a TLS configuration problem",
			handler: hostile(200, codersdk.Response{}),
			url: func(_ *testing.T, srv *httptest.Server) string {
				return strings.Replace(srv.URL, "http://", "https://", 1)
			},
			call: createProvider,
			want: want{Class: ClassTLS, Text: "server gave HTTP response to HTTPS client"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := tc.handler
			if h == nil {
				h = http.NotFoundHandler()
			}
			srv := httptest.NewUnstartedServer(h)
			srv.Config.ErrorLog = log.New(logged, "", 0)
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			t.Cleanup(srv.Close)
			u := srv.URL
			if tc.url != nil {
				u = tc.url(t, srv)
			}
			timeout := 5 * time.Second
			if tc.short {
				timeout = 300 * time.Millisecond
			}
			c, err := New(Config{URL: u, Token: testToken, Timeout: timeout})
			if err != nil {
				t.Fatalf("New: %v", err)
			}

			err = tc.call(context.Background(), c)
			if err == nil {
				t.Fatalf("%s: call succeeded", tc.reason)
			}
			t.Log(err)

			got := want{Class: ClassOf(err), Timeout: Timeout(err), Cause: ForbiddenCause(err), Text: tc.want.Text}
			if !strings.Contains(err.Error(), tc.want.Text) {
				got.Text = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			wrapped := fmt.Errorf("cannot observe: %w", err)
			for _, s := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), wrapped.Error(), logged.String()} {
				for _, secret := range []string{testToken, testAPIKey} {
					if strings.Contains(s, secret) {
						t.Errorf("%s: %q leaked into: %s", tc.reason, secret, s)
					}
				}
			}
		})
	}
}

// syncBuffer collects log output written from server goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestTimeoutIsFalseForARequestNeverSent(t *testing.T) {
	_, c := newServer(t, http.NotFoundHandler())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	err := createProvider(ctx, c)

	if Timeout(err) {
		t.Errorf("Timeout(%v) = true for a request cancelled before sending", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false; callers cannot tell their own cancellation", err)
	}
	if diff := cmp.Diff(ClassUnknown, ClassOf(err)); diff != "" {
		t.Errorf("a caller's cancellation says nothing about Coder\nClassOf: -want, +got:\n%s", diff)
	}
}

func TestRawCoderSDKErrorsAreClassifiedByStatusAndCause(t *testing.T) {
	cases := map[string]struct {
		reason string
		err    error
		want   Class
		cause  string
	}{
		"Nil": {
			reason: "no error has no class",
			err:    nil,
			want:   "",
		},
		"NotFound": {
			reason: "a bare *codersdk.Error is classified by its status",
			err:    codersdk.NewError(404, codersdk.Response{Message: "Resource not found"}),
			want:   ClassNotFound,
		},
		"Premium": {
			reason: "a bare Premium-feature 403 is not licensed",
			err:    fmt.Errorf("wrapped: %w", codersdk.NewError(403, codersdk.Response{Message: "AI Gateway is a Premium feature. Contact sales!"})),
			want:   ClassForbidden,
			cause:  CauseNotLicensed,
		},
		"Deadline": {
			reason: "a context deadline means Coder did not answer in time",
			err:    context.DeadlineExceeded,
			want:   ClassUnavailable,
		},
		"Other": {
			reason: "anything else is unknown",
			err:    errors.New("boom"),
			want:   ClassUnknown,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ClassOf(tc.err)); diff != "" {
				t.Errorf("%s\nClassOf: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.cause, ForbiddenCause(tc.err)); diff != "" {
				t.Errorf("%s\nForbiddenCause: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
