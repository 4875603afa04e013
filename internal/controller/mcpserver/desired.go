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

package mcpserver

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/coder/coder/v2/codersdk"
	"sigs.k8s.io/controller-runtime/pkg/client"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
)

// A Header is one custom header Coder sends: its name and its value.
type Header struct {
	Name  string
	Value string
}

// Credentials are the secret values of one MCPServer, read from its
// Secrets. They go to Coder and into a keyed fingerprint, nowhere else.
type Credentials struct {
	OAuth2ClientSecret string
	APIKeyValue        string
	Headers            []Header
}

// Format prints Credentials without their values, for every verb, so a
// stray log line or error can never carry them.
func (c Credentials) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "mcpserver.Credentials{OAuth2ClientSecret: %t, APIKeyValue: %t, Headers: %d}",
		c.OAuth2ClientSecret != "", c.APIKeyValue != "", len(c.Headers))
}

// Desired is what Coder should hold for one MCPServer: the create request
// built from the spec and the Secrets, and the fingerprint of the secret
// values in it. The request carries plaintext.
type Desired struct {
	Request     codersdk.CreateMCPServerConfigRequest
	Fingerprint string
}

// Format prints Desired without its secret values.
func (d Desired) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "mcpserver.Desired{Slug: %q, AuthType: %q, Fingerprint: %q}", d.Request.Slug, d.Request.AuthType, d.Fingerprint)
}

// Spec is what an MCPServer of either scope says, apart from its Secrets.
type Spec struct {
	Fields       common.MCPServerFields
	OAuth2       *common.MCPServerOAuth2Fields
	APIKeyHeader string
}

// CreateRequest builds the request that creates the server the spec
// describes, with the given secret values, as Coder stores it: trimmed,
// with the defaults the CRD gives filled in for a spec that bypassed them.
func CreateRequest(slug string, s Spec, c Credentials) codersdk.CreateMCPServerConfigRequest {
	f := s.Fields
	req := codersdk.CreateMCPServerConfigRequest{
		Slug:                slug,
		DisplayName:         slug,
		Description:         strings.TrimSpace(f.Description),
		IconURL:             strings.TrimSpace(f.IconURL),
		Transport:           cmp.Or(string(f.Transport), "streamable_http"),
		URL:                 strings.TrimSpace(f.URL),
		AuthType:            cmp.Or(string(f.AuthType), string(common.MCPServerAuthNone)),
		ToolAllowList:       trimmed(f.ToolAllowList),
		ToolDenyList:        trimmed(f.ToolDenyList),
		Availability:        cmp.Or(string(f.Availability), "default_off"),
		Enabled:             f.Enabled == nil || *f.Enabled,
		ModelIntent:         f.ModelIntent,
		AllowInPlanMode:     f.AllowInPlanMode,
		ForwardCoderHeaders: f.ForwardCoderHeaders,
	}
	if f.DisplayName != nil && strings.TrimSpace(*f.DisplayName) != "" {
		req.DisplayName = strings.TrimSpace(*f.DisplayName)
	}
	switch common.MCPServerAuthType(req.AuthType) {
	case common.MCPServerAuthOAuth2:
		if o := s.OAuth2; o != nil {
			req.OAuth2ClientID = strings.TrimSpace(o.ClientID)
			req.OAuth2AuthURL = strings.TrimSpace(o.AuthURL)
			req.OAuth2TokenURL = strings.TrimSpace(o.TokenURL)
			req.OAuth2RevocationURL = strings.TrimSpace(o.RevocationURL)
			req.OAuth2Scopes = strings.TrimSpace(o.Scopes)
		}
		req.OAuth2ClientSecret = c.OAuth2ClientSecret
	case common.MCPServerAuthAPIKey:
		req.APIKeyHeader = cmp.Or(strings.TrimSpace(s.APIKeyHeader), "Authorization")
		req.APIKeyValue = c.APIKeyValue
	case common.MCPServerAuthCustomHeaders:
		req.CustomHeaders = map[string]string{}
		for _, h := range c.Headers {
			req.CustomHeaders[h.Name] = h.Value
		}
	}
	return req
}

// trimmed is a tool list as Coder stores it: each entry trimmed, empty
// ones dropped.
func trimmed(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if t := strings.TrimSpace(s); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// fingerprintDomain separates this hash from any other use of the key.
const fingerprintDomain = "provider-coder/mcpserver/credentials/v1"

// FingerprintPrefix starts every fingerprint Fingerprint makes.
const FingerprintPrefix = "hmac-sha256:"

// Fingerprint is an HMAC-SHA256 of the secrets the request for authType
// sends, keyed with a secret only the provider holds (package
// fingerprintkey), so a changed Secret is noticed without storing it and a
// fingerprint in status cannot be tested against guessed values. The
// object's UID and the auth type are hashed too; custom headers by name,
// sorted, since Coder returns neither their names nor their values. Every
// value is length-prefixed.
func Fingerprint(key []byte, uid string, authType string, c Credentials) string {
	h := hmac.New(sha256.New, key)
	write := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		_, _ = h.Write(n[:])
		_, _ = h.Write([]byte(s))
	}
	write(fingerprintDomain)
	write(uid)
	write(authType)
	switch common.MCPServerAuthType(authType) {
	case common.MCPServerAuthOAuth2:
		write(c.OAuth2ClientSecret)
	case common.MCPServerAuthAPIKey:
		write(c.APIKeyValue)
	case common.MCPServerAuthCustomHeaders:
		hs := slices.Clone(c.Headers)
		slices.SortFunc(hs, func(a, b Header) int { return cmp.Compare(a.Name, b.Name) })
		write(fmt.Sprint(len(hs)))
		for _, x := range hs {
			write(x.Name)
			write(x.Value)
		}
	}
	return FingerprintPrefix + hex.EncodeToString(h.Sum(nil))
}

// Spec field paths of the secret references, for errors.
const (
	fieldOAuth2ClientSecret = "spec.forProvider.oauth2.clientSecretSecretRef"
	fieldAPIKeyValue        = "spec.forProvider.apiKey.valueSecretRef"
	fieldCustomHeaders      = "spec.forProvider.customHeaders"
)

// ReadCredentials reads every secret value refs name. Surrounding
// whitespace, such as the newline a file-based Secret often keeps, is
// removed, as Coder trims what it stores. Errors name the field and the
// Secret, never a value.
func ReadCredentials(ctx context.Context, kube client.Reader, refs common.MCPServerSecretRefs) (Credentials, error) {
	var c Credentials
	var err error
	if refs.OAuth2ClientSecret != nil {
		if c.OAuth2ClientSecret, err = managedkind.SecretValue(ctx, kube, fieldOAuth2ClientSecret, *refs.OAuth2ClientSecret); err != nil {
			return Credentials{}, err
		}
	}
	if refs.APIKeyValue != nil {
		if c.APIKeyValue, err = managedkind.SecretValue(ctx, kube, fieldAPIKeyValue, *refs.APIKeyValue); err != nil {
			return Credentials{}, err
		}
	}
	for i, h := range refs.CustomHeaders {
		v, err := managedkind.SecretValue(ctx, kube, fmt.Sprintf("%s[%d].valueSecretRef", fieldCustomHeaders, i), h.Value)
		if err != nil {
			return Credentials{}, err
		}
		c.Headers = append(c.Headers, Header{Name: h.Name, Value: v})
	}
	return c, nil
}
