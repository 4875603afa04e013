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
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"k8s.io/utils/ptr"

	"github.com/coder/coder/v2/codersdk"
)

// premiumReply is RequireFeatureMW's 403 for FeatureAIBridge.
var premiumReply = codersdk.Response{Message: "AI Gateway is a Premium feature. Contact sales!"}

func TestEntitlementsAndKeyEndpointsFollowTheAIGatewayState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        Options
		wantFeature codersdk.Feature
		wantLicense bool
		keysWork    bool
	}{
		{"licensed and enabled", Options{},
			codersdk.Feature{Entitlement: codersdk.EntitlementEntitled, Enabled: true}, true, true},
		{"licensed, AI Gateway disabled", Options{AIGatewayDisabled: true},
			codersdk.Feature{Entitlement: codersdk.EntitlementEntitled, Enabled: false}, true, false},
		{"unlicensed", Options{Unlicensed: true},
			codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled, Enabled: false}, false, false},
		// Coder disables every not-entitled feature, whatever the
		// deployment enables.
		{"unlicensed and disabled", Options{Unlicensed: true, AIGatewayDisabled: true},
			codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled, Enabled: false}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, c := start(t, tt.opts)
			ctx := testContext(t)

			ent := must[codersdk.Entitlements](t)(c.Entitlements(ctx))
			if diff := cmp.Diff(tt.wantFeature, ent.Features[codersdk.FeatureAIBridge]); diff != "" {
				t.Errorf("aibridge (-want +got):\n%s", diff)
			}
			if ent.HasLicense != tt.wantLicense {
				t.Errorf("has_license = %t, want %t", ent.HasLicense, tt.wantLicense)
			}

			_, listErr := c.ListAIGatewayKeys(ctx)
			_, createErr := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw"})
			deleteErr := c.DeleteAIGatewayKey(ctx, uuid.New())
			if tt.keysWork {
				if listErr != nil || createErr != nil {
					t.Errorf("list: %v, create: %v; want both to work", listErr, createErr)
				}
				wantAPIError(t, deleteErr, http.StatusNotFound, notFoundReply.body.(codersdk.Response))
				return
			}
			for op, err := range map[string]error{"list": listErr, "create": createErr, "delete": deleteErr} {
				t.Run(op, func(t *testing.T) { wantAPIError(t, err, http.StatusForbidden, premiumReply) })
			}
			if rows := s.Keys(); len(rows) != 0 {
				t.Errorf("a refused create stored %+v", rows)
			}
		})
	}
}

func TestEntitlementsNeedNoSessionAndListEveryFeatureLikeCoder(t *testing.T) {
	t.Parallel()
	s, _ := start(t, Options{Unlicensed: true})
	ctx := testContext(t)

	// serveEntitlements is mounted without apiKeyMiddleware: no token, a
	// malformed one and an unknown one all get the 200.
	for _, token := range []string{"", "nope", "abcdefghij-XXXXXXXXXXXXXXXXXXXXXX"} {
		c := client(t, s.URL())
		c.SetSessionToken(token)
		res, err := c.Request(ctx, http.MethodGet, "/api/v2/entitlements", nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("token %q: status = %d, want 200: %s", token, res.StatusCode, raw)
		}

		// Warnings and errors are arrays, never null, as Coder sends them.
		var body map[string]json.RawMessage
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{"warnings", "errors"} {
			if got := string(body[field]); got != "[]" {
				t.Errorf("token %q: %s = %s, want []", token, field, got)
			}
		}

		var ent codersdk.Entitlements
		if err := json.Unmarshal(raw, &ent); err != nil {
			t.Fatal(err)
		}
		if len(ent.Features) != len(codersdk.FeatureNames) {
			t.Errorf("token %q: %d features, want all %d of codersdk.FeatureNames", token, len(ent.Features), len(codersdk.FeatureNames))
		}
		for _, name := range codersdk.FeatureNames {
			f, ok := ent.Features[name]
			if !ok || f.Enabled || f.Entitlement != codersdk.EntitlementNotEntitled {
				t.Errorf("token %q: feature %s = %+v (present %t), want not_entitled and disabled", token, name, f, ok)
			}
		}
		if a := ent.Features[codersdk.FeatureUserLimit].Actual; a == nil || *a != 1 {
			t.Errorf("token %q: user_limit.actual = %v, want the one active user", token, a)
		}
		if ent.HasLicense || ent.Trial || ent.RequireTelemetry || ent.RefreshedAt.IsZero() {
			t.Errorf("token %q: entitlements = %+v", token, ent)
		}
	}
	if got := s.Requests(EndpointEntitlements); got != 3 {
		t.Errorf("entitlements requests = %d, want 3", got)
	}
}

func TestTheAIGatewayStateChangesAtRuntimeThroughTheSetterAndTheAdminAPI(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	aiGateway := func() codersdk.Feature {
		t.Helper()
		return must[codersdk.Entitlements](t)(c.Entitlements(ctx)).Features[codersdk.FeatureAIBridge]
	}
	entitled := codersdk.Feature{Entitlement: codersdk.EntitlementEntitled, Enabled: true}
	off := codersdk.Feature{Entitlement: codersdk.EntitlementEntitled}
	none := codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled}

	steps := []struct {
		name   string
		change func()
		want   codersdk.Feature
	}{
		{"SetAIGatewayEnabled(false)", func() { s.SetAIGatewayEnabled(false) }, off},
		{"SetAIGatewayEnabled(true)", func() { s.SetAIGatewayEnabled(true) }, entitled},
		{"admin ai_gateway_enabled false", func() {
			var cfg AdminConfig
			admin(t, s.URL(), http.MethodPatch, "/config", AdminConfigPatch{AIGatewayEnabled: ptr.To(false)}, &cfg)
			if cfg.AIGatewayEnabled || !cfg.Licensed {
				t.Errorf("config = %+v", cfg)
			}
		}, off},
		{"admin licensed false", func() { admin(t, s.URL(), http.MethodPatch, "/config", AdminConfigPatch{Licensed: ptr.To(false)}, nil) }, none},
		// Enabling without a licence changes nothing Coder shows.
		{"admin ai_gateway_enabled true, still unlicensed", func() {
			admin(t, s.URL(), http.MethodPatch, "/config", AdminConfigPatch{AIGatewayEnabled: ptr.To(true)}, nil)
		}, none},
		{"SetLicensed(true)", func() { s.SetLicensed(true) }, entitled},
	}
	for _, st := range steps {
		st.change()
		if diff := cmp.Diff(st.want, aiGateway()); diff != "" {
			t.Errorf("after %s: aibridge (-want +got):\n%s", st.name, diff)
		}
		_, err := c.ListAIGatewayKeys(ctx)
		if st.want.Enabled {
			if err != nil {
				t.Errorf("after %s: list keys: %v", st.name, err)
			}
			continue
		}
		wantAPIError(t, err, http.StatusForbidden, premiumReply)
	}
	var cfg AdminConfig
	admin(t, s.URL(), http.MethodGet, "/config", nil, &cfg)
	if !cfg.Licensed || !cfg.AIGatewayEnabled {
		t.Errorf("final config = %+v", cfg)
	}
}
