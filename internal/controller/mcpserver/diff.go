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
	"maps"
	"slices"

	"github.com/coder/coder/v2/codersdk"
	"k8s.io/utils/ptr"
)

// Names of the fields a drift can concern, as the spec names them. They
// appear in the Diff of an observation and in errors; never a value.
const (
	DriftSlug                = "slug"
	DriftDisplayName         = "displayName"
	DriftDescription         = "description"
	DriftIconURL             = "iconURL"
	DriftTransport           = "transport"
	DriftURL                 = "url"
	DriftAuthType            = "authType"
	DriftOAuth2              = "oauth2"
	DriftAPIKeyHeader        = "apiKey.header" //nolint:gosec // A field name, not a credential.
	DriftToolAllowList       = "toolAllowList"
	DriftToolDenyList        = "toolDenyList"
	DriftAvailability        = "availability"
	DriftEnabled             = "enabled"
	DriftModelIntent         = "modelIntent"
	DriftAllowInPlanMode     = "allowInPlanMode"
	DriftForwardCoderHeaders = "forwardCoderHeaders"
	DriftCredentials         = "credentials"
)

// A Drift is how Coder differs from the desired state, and the one PATCH
// that puts all of it back.
type Drift struct {
	// Fields names every field that differs, in a fixed order.
	Fields []string
	// Patch undoes every difference. It sends only what differs.
	Patch codersdk.UpdateMCPServerConfigRequest
	// SendsCredentials is true when Patch carries every secret of the
	// spec, so the fingerprint is the applied one afterwards.
	SendsCredentials bool
}

// UpToDate is true when Coder matches the desired state.
func (d Drift) UpToDate() bool { return len(d.Fields) == 0 }

// Diff compares every field Coder returns with the desired state. Coder
// never returns a secret, only whether it holds one: the secrets are sent
// again when the fingerprint of the Secrets' values differs from the one
// last applied, when Coder holds a secret the spec has not (or lacks one it
// has), or when the auth type changes, since Coder then clears the other
// types' fields.
func Diff(want Desired, got codersdk.MCPServerConfig, applied string) Drift {
	r := want.Request
	var d Drift
	str := func(field string, got, want string, patch **string) {
		if got != want {
			d.Fields = append(d.Fields, field)
			*patch = ptr.To(want)
		}
	}
	boolean := func(field string, got, want bool, patch **bool) {
		if got != want {
			d.Fields = append(d.Fields, field)
			*patch = ptr.To(want)
		}
	}
	list := func(field string, got, want []string, patch **[]string) {
		if !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
			d.Fields = append(d.Fields, field)
			*patch = ptr.To(slices.Clone(want))
		}
	}
	p := &d.Patch
	str(DriftSlug, got.Slug, r.Slug, &p.Slug)
	str(DriftDisplayName, got.DisplayName, r.DisplayName, &p.DisplayName)
	str(DriftDescription, got.Description, r.Description, &p.Description)
	str(DriftIconURL, got.IconURL, r.IconURL, &p.IconURL)
	str(DriftTransport, got.Transport, r.Transport, &p.Transport)
	str(DriftURL, got.URL, r.URL, &p.URL)
	str(DriftAuthType, got.AuthType, r.AuthType, &p.AuthType)
	oauth2 := len(d.Fields)
	str(DriftOAuth2, got.OAuth2ClientID, r.OAuth2ClientID, &p.OAuth2ClientID)
	str(DriftOAuth2, got.OAuth2AuthURL, r.OAuth2AuthURL, &p.OAuth2AuthURL)
	str(DriftOAuth2, got.OAuth2TokenURL, r.OAuth2TokenURL, &p.OAuth2TokenURL)
	str(DriftOAuth2, got.OAuth2RevocationURL, r.OAuth2RevocationURL, &p.OAuth2RevocationURL)
	str(DriftOAuth2, got.OAuth2Scopes, r.OAuth2Scopes, &p.OAuth2Scopes)
	if len(d.Fields) > oauth2 {
		// One name for the block, however many of its fields differ.
		d.Fields = append(d.Fields[:oauth2], DriftOAuth2)
	}
	str(DriftAPIKeyHeader, got.APIKeyHeader, r.APIKeyHeader, &p.APIKeyHeader)
	list(DriftToolAllowList, got.ToolAllowList, r.ToolAllowList, &p.ToolAllowList)
	list(DriftToolDenyList, got.ToolDenyList, r.ToolDenyList, &p.ToolDenyList)
	str(DriftAvailability, got.Availability, r.Availability, &p.Availability)
	boolean(DriftEnabled, got.Enabled, r.Enabled, &p.Enabled)
	boolean(DriftModelIntent, got.ModelIntent, r.ModelIntent, &p.ModelIntent)
	boolean(DriftAllowInPlanMode, got.AllowInPlanMode, r.AllowInPlanMode, &p.AllowInPlanMode)
	boolean(DriftForwardCoderHeaders, got.ForwardCoderHeaders, r.ForwardCoderHeaders, &p.ForwardCoderHeaders)

	held := got.HasOAuth2Secret != (r.OAuth2ClientSecret != "") ||
		got.HasAPIKey != (r.APIKeyValue != "") ||
		got.HasCustomHeaders != (len(r.CustomHeaders) > 0)
	if want.Fingerprint != applied || held || got.AuthType != r.AuthType {
		d.Fields = append(d.Fields, DriftCredentials)
		// Every secret of every type: what the spec's type has, and
		// empty for the others, which clears them in Coder.
		p.OAuth2ClientSecret = ptr.To(r.OAuth2ClientSecret)
		p.APIKeyValue = ptr.To(r.APIKeyValue)
		p.CustomHeaders = ptr.To(maps.Clone(r.CustomHeaders))
		if *p.CustomHeaders == nil {
			p.CustomHeaders = ptr.To(map[string]string{})
		}
		d.SendsCredentials = true
	}
	return d
}
