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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// seen is one request as the fake Coder received it.
type seen struct {
	Method string
	Path   string
	Token  string
	Body   string
}

func TestClientSpeaksCodersWireFormat(t *testing.T) {
	keyID := uuid.MustParse("0b0e7c4e-6a53-4a4f-9d0c-2f1f3b4b5c6d")
	provID := uuid.MustParse("9a1c1c2e-1111-4c4c-8888-123456789abc")
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	provider := codersdk.AIProvider{ID: provID, Type: codersdk.AIProviderTypeOpenAI, Name: "openai", Enabled: true, BaseURL: "https://api.openai.com/v1", CreatedAt: created, UpdatedAt: created}

	var got seen
	mux := http.NewServeMux()
	record := func(status int, body any) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got = seen{Method: r.Method, Path: r.URL.Path, Token: r.Header.Get(codersdk.SessionTokenHeader), Body: strings.TrimSpace(string(b))}
			if body == nil {
				w.WriteHeader(status)
				return
			}
			writeJSON(w, status, body)
		}
	}
	mux.Handle("GET /api/v2/buildinfo", record(200, codersdk.BuildInfoResponse{Version: "v2.36.0", DeploymentID: "dep-1"}))
	mux.Handle("GET /api/v2/users/me", record(200, codersdk.User{ReducedUser: codersdk.ReducedUser{MinimalUser: codersdk.MinimalUser{Username: "admin"}}}))
	mux.Handle("GET /api/v2/ai-gateway/keys", record(200, []codersdk.AIGatewayKey{{ID: keyID, Name: "k1", KeyPrefix: "abc", CreatedAt: created}}))
	mux.Handle("POST /api/v2/ai-gateway/keys", record(201, codersdk.CreateAIGatewayKeyResponse{ID: keyID, Name: "k1", Key: "plain", KeyPrefix: "abc", CreatedAt: created}))
	mux.Handle("DELETE /api/v2/ai-gateway/keys/{id}", record(204, nil))
	mux.Handle("GET /api/v2/ai/providers", record(200, []codersdk.AIProvider{provider}))
	mux.Handle("POST /api/v2/ai/providers", record(201, provider))
	mux.Handle("GET /api/v2/ai/providers/{idOrName}", record(200, provider))
	mux.Handle("PATCH /api/v2/ai/providers/{idOrName}", record(200, provider))
	mux.Handle("DELETE /api/v2/ai/providers/{idOrName}", record(204, nil))
	_, c := newServer(t, mux)

	enabled := false
	cases := map[string]struct {
		reason   string
		call     func(ctx context.Context) (any, error)
		wantSeen seen
		want     any
		endpoint string
		code     string
	}{
		"BuildInfo": {
			reason:   "BuildInfo reads /api/v2/buildinfo",
			call:     func(ctx context.Context) (any, error) { return c.BuildInfo(ctx) },
			wantSeen: seen{Method: "GET", Path: "/api/v2/buildinfo", Token: testToken},
			want:     codersdk.BuildInfoResponse{Version: "v2.36.0", DeploymentID: "dep-1"},
			endpoint: EndpointBuildInfo, code: "200",
		},
		"Me": {
			reason:   "Me reads the token's own user",
			call:     func(ctx context.Context) (any, error) { u, err := c.Me(ctx); return u.Username, err },
			wantSeen: seen{Method: "GET", Path: "/api/v2/users/me", Token: testToken},
			want:     "admin",
			endpoint: EndpointMe, code: "200",
		},
		"ListKeys": {
			reason:   "ListKeys lists AI Gateway keys",
			call:     func(ctx context.Context) (any, error) { return c.ListKeys(ctx) },
			wantSeen: seen{Method: "GET", Path: "/api/v2/ai-gateway/keys", Token: testToken},
			want:     []codersdk.AIGatewayKey{{ID: keyID, Name: "k1", KeyPrefix: "abc", CreatedAt: created}},
			endpoint: EndpointKeys, code: "200",
		},
		"CreateKey": {
			reason:   "CreateKey posts the name and returns the one-time plaintext",
			call:     func(ctx context.Context) (any, error) { return c.CreateKey(ctx, "k1") },
			wantSeen: seen{Method: "POST", Path: "/api/v2/ai-gateway/keys", Token: testToken, Body: `{"name":"k1"}`},
			want:     codersdk.CreateAIGatewayKeyResponse{ID: keyID, Name: "k1", Key: "plain", KeyPrefix: "abc", CreatedAt: created},
			endpoint: EndpointKeys, code: "201",
		},
		"DeleteKey": {
			reason:   "DeleteKey deletes by id and is counted under the path template",
			call:     func(ctx context.Context) (any, error) { return nil, c.DeleteKey(ctx, keyID) },
			wantSeen: seen{Method: "DELETE", Path: "/api/v2/ai-gateway/keys/" + keyID.String(), Token: testToken},
			endpoint: EndpointKey, code: "204",
		},
		"ListProviders": {
			reason:   "ListProviders lists AI providers",
			call:     func(ctx context.Context) (any, error) { return c.ListProviders(ctx) },
			wantSeen: seen{Method: "GET", Path: "/api/v2/ai/providers", Token: testToken},
			want:     []codersdk.AIProvider{provider},
			endpoint: EndpointProviders, code: "200",
		},
		"GetProvider": {
			reason:   "GetProvider reads one provider by name",
			call:     func(ctx context.Context) (any, error) { return c.GetProvider(ctx, "openai") },
			wantSeen: seen{Method: "GET", Path: "/api/v2/ai/providers/openai", Token: testToken},
			want:     provider,
			endpoint: EndpointProvider, code: "200",
		},
		"CreateProvider": {
			reason: "CreateProvider posts the request as codersdk encodes it",
			call: func(ctx context.Context) (any, error) {
				return c.CreateProvider(ctx, codersdk.CreateAIProviderRequest{Type: codersdk.AIProviderTypeOpenAI, Name: "openai", Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: []string{"k"}})
			},
			wantSeen: seen{Method: "POST", Path: "/api/v2/ai/providers", Token: testToken, Body: `{"type":"openai","name":"openai","enabled":true,"base_url":"https://api.openai.com/v1","api_keys":["k"]}`},
			want:     provider,
			endpoint: EndpointProviders, code: "201",
		},
		"UpdateProvider": {
			reason: "UpdateProvider patches by id, sending only the set fields",
			call: func(ctx context.Context) (any, error) {
				return c.UpdateProvider(ctx, provID.String(), codersdk.UpdateAIProviderRequest{Enabled: &enabled})
			},
			wantSeen: seen{Method: "PATCH", Path: "/api/v2/ai/providers/" + provID.String(), Token: testToken, Body: `{"enabled":false}`},
			want:     provider,
			endpoint: EndpointProvider, code: "200",
		},
		"DeleteProvider": {
			reason:   "DeleteProvider deletes by name",
			call:     func(ctx context.Context) (any, error) { return nil, c.DeleteProvider(ctx, "openai") },
			wantSeen: seen{Method: "DELETE", Path: "/api/v2/ai/providers/openai", Token: testToken},
			endpoint: EndpointProvider, code: "204",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			method := tc.wantSeen.Method
			before := requests(t, tc.endpoint, method, tc.code)

			out, err := tc.call(context.Background())
			if err != nil {
				t.Fatalf("%s: unexpected error: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.wantSeen, got); diff != "" {
				t.Errorf("%s\nrequest: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, out); diff != "" {
					t.Errorf("%s\nresult: -want, +got:\n%s", tc.reason, diff)
				}
			}
			if diff := cmp.Diff(before+1, requests(t, tc.endpoint, method, tc.code)); diff != "" {
				t.Errorf("%s\nrequests_total{coder_endpoint=%q}: -want, +got:\n%s", tc.reason, tc.endpoint, diff)
			}
		})
	}
}

func TestClientRefusesIDOrNameThatWouldChangeThePath(t *testing.T) {
	called := false
	_, c := newServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))

	cases := map[string]struct {
		reason string
		value  string
	}{
		"Empty":     {reason: "an empty name would address the list endpoint", value: ""},
		"Traversal": {reason: "a slash would address another endpoint", value: "../../ai-gateway/keys"},
		"Query":     {reason: "a question mark would add a query", value: "x?y=z"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.DeleteProvider(context.Background(), tc.value)
			if diff := cmp.Diff(ClassInvalid, ClassOf(err)); diff != "" {
				t.Errorf("%s\nClassOf(%v): -want, +got:\n%s", tc.reason, err, diff)
			}
			if called {
				t.Errorf("%s: the request was sent", tc.reason)
			}
		})
	}
}

func TestNewRefusesUnsafeConfig(t *testing.T) {
	cases := map[string]struct {
		reason string
		cfg    Config
		want   string
	}{
		"UserInfo": {
			reason: "credentials in the URL would be copied into codersdk's errors",
			cfg:    Config{URL: "https://admin:" + testToken + "@coder.example.com", Token: testToken},
			want:   errURLUserinfo,
		},
		"Query": {
			reason: "a query could carry a token and is copied into errors",
			cfg:    Config{URL: "https://coder.example.com/?token=" + testToken, Token: testToken},
			want:   errURLQuery,
		},
		"Scheme": {
			reason: "only http and https reach Coder",
			cfg:    Config{URL: "ftp://coder.example.com", Token: testToken},
			want:   errURLScheme,
		},
		"NoToken": {
			reason: "a client without a token can only fail",
			cfg:    Config{URL: "https://coder.example.com"},
			want:   errNoToken,
		},
		"BadCABundle": {
			reason: "a CA bundle without certificates would silently trust nothing",
			cfg:    Config{URL: "https://coder.example.com", Token: testToken, CABundle: []byte("not pem")},
			want:   errCABundle,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil {
				t.Fatalf("%s: New succeeded", tc.reason)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("%s\nerror: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(ClassInvalid, ClassOf(err)); diff != "" {
				t.Errorf("%s\nclass: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestClientTrustsExactlyTheCABundle(t *testing.T) {
	srv := httptest.NewTLSServer(coderError(200, codersdk.Response{}))
	t.Cleanup(srv.Close)
	serverCA := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	otherCA := selfSignedCA(t)

	cases := map[string]struct {
		reason string
		cfg    Config
		want   Class
	}{
		"ServerCA": {
			reason: "a bundle holding the server's CA is trusted",
			cfg:    Config{URL: srv.URL, Token: testToken, CABundle: serverCA},
			want:   "",
		},
		"OtherCA": {
			reason: "a bundle holding another CA is not, and says so as a TLS failure",
			cfg:    Config{URL: srv.URL, Token: testToken, CABundle: otherCA},
			want:   ClassTLS,
		},
		"NoBundle": {
			reason: "without a bundle the system roots apply, which do not know the test CA",
			cfg:    Config{URL: srv.URL, Token: testToken},
			want:   ClassTLS,
		},
		"Insecure": {
			reason: "insecureSkipVerify skips verification when set explicitly",
			cfg:    Config{URL: srv.URL, Token: testToken, InsecureSkipVerify: true},
			want:   "",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := New(tc.cfg)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, err = c.BuildInfo(context.Background())
			if diff := cmp.Diff(tc.want, ClassOf(err)); diff != "" {
				t.Errorf("%s\nClassOf(%v): -want, +got:\n%s", tc.reason, err, diff)
			}
		})
	}
}

// selfSignedCA is a CA certificate unrelated to httptest's.
func selfSignedCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "other test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	var tokenAtTarget string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokenAtTarget = r.Header.Get(codersdk.SessionTokenHeader)
		writeJSON(w, 200, []codersdk.AIGatewayKey{})
	}))
	t.Cleanup(target.Close)
	_, c := newServer(t, http.RedirectHandler(target.URL+"/api/v2/ai-gateway/keys?state=x", http.StatusFound))

	_, err := c.ListKeys(context.Background())

	if tokenAtTarget != "" {
		t.Errorf("the session token was sent to the redirect target")
	}
	if diff := cmp.Diff(ClassInvalid, ClassOf(err)); diff != "" {
		t.Errorf("ClassOf(%v): -want, +got:\n%s", err, diff)
	}
	want := fmt.Sprintf("GET /api/v2/ai-gateway/keys: 302 Found: "+errFmtRedirect, target.URL+"/api/v2/ai-gateway/keys")
	if diff := cmp.Diff(want, fmt.Sprint(err)); diff != "" {
		t.Errorf("error: -want, +got:\n%s", diff)
	}
}

func TestConfigAndClientNeverPrintTheToken(t *testing.T) {
	cfg := Config{URL: "https://coder.example.com", Token: testToken}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%s", cfg), fmt.Sprintf("%d", cfg), fmt.Sprintf("%x", cfg),
		fmt.Sprintf("%v", &cfg), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", *c), string(j),
	} {
		if strings.Contains(s, testToken) || strings.Contains(s, fmt.Sprintf("%x", testToken)) {
			t.Errorf("printed form contains the token: %s", s)
		}
	}
}
