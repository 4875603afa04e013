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
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

func TestAKeysPlaintextIsOnlyInItsCreateResponseAndADeleteIsHard(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)

	if keys := must[[]codersdk.AIGatewayKey](t)(c.ListAIGatewayKeys(ctx)); len(keys) != 0 {
		t.Fatalf("initial keys = %v", keys)
	}

	created := must[codersdk.CreateAIGatewayKeyResponse](t)(c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw-1"}))
	if len(created.Key) != 43 || len(created.KeyPrefix) != 11 || !strings.HasPrefix(created.Key, created.KeyPrefix) {
		t.Errorf("key %q / prefix %q do not have Coder's shape", created.Key, created.KeyPrefix)
	}
	if rows := s.Keys(); len(rows) != 1 || rows[0].Key != created.Key {
		t.Errorf("stored keys = %+v, want the created plaintext", rows)
	}

	// The plaintext is only in the create response.
	res, err := c.Request(ctx, http.MethodGet, "/api/v2/ai-gateway/keys", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if strings.Contains(string(body), created.Key) {
		t.Error("list leaked the key plaintext")
	}

	beat := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.Heartbeat(created.ID, beat); err != nil {
		t.Fatal(err)
	}
	want := []codersdk.AIGatewayKey{{
		ID: created.ID, Name: "gw-1", KeyPrefix: created.KeyPrefix, CreatedAt: created.CreatedAt, LastHeartbeatAt: &beat,
	}}
	if diff := cmp.Diff(want, must[[]codersdk.AIGatewayKey](t)(c.ListAIGatewayKeys(ctx))); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	if err := c.DeleteAIGatewayKey(ctx, created.ID); err != nil {
		t.Fatal(err)
	}
	if rows := s.Keys(); len(rows) != 0 {
		t.Errorf("key survived delete: %+v (Coder hard-deletes keys)", rows)
	}
	wantAPIError(t, c.DeleteAIGatewayKey(ctx, created.ID), http.StatusNotFound, notFoundReply.body.(codersdk.Response))

	res, err = c.Request(ctx, http.MethodDelete, "/api/v2/ai-gateway/keys/not-a-uuid", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := apiError(t, codersdk.ReadBodyAsError(res)); got.StatusCode() != http.StatusBadRequest || got.Message != "Invalid key ID." {
		t.Errorf("bad id: %v", got)
	}
}

func TestAnInvalidOrTakenKeyNameIsRejectedLikeCoder(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{})
	ctx := testContext(t)
	if _, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "taken"}); err != nil {
		t.Fatal(err)
	}

	invalidName := codersdk.Response{
		Message: "Invalid key name.",
		Validations: []codersdk.ValidationError{{Field: "name",
			Detail: "Must be 64 characters or fewer, lowercase letters, numbers, and non-consecutive hyphens, cannot start or end with a hyphen."}},
	}
	tests := []struct {
		name string
		want codersdk.Response
	}{
		{"", codersdk.Response{
			Message:     "Validation failed.",
			Validations: []codersdk.ValidationError{{Field: "name", Detail: `Validation failed for tag "required" with value: ""`}},
		}},
		{strings.Repeat("a", 65), invalidName},
		{"UPPER-CASE", invalidName},
		{"double--hyphen", invalidName},
		{"-leading", invalidName},
		{"taken", codersdk.Response{
			Message:     "Key name must be unique.",
			Validations: []codersdk.ValidationError{{Field: "name", Detail: "A key with this name already exists."}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: tt.name})
			wantAPIError(t, err, http.StatusBadRequest, tt.want)
		})
	}
	if _, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: strings.Repeat("a", 64)}); err != nil {
		t.Errorf("64 characters must be accepted: %v", err)
	}
}

func TestKeysNeedOwnerAndLicense(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{Unlicensed: true})
	ctx := testContext(t)

	premium := codersdk.Response{Message: "AI Gateway is a Premium feature. Contact sales!"}
	_, err := c.ListAIGatewayKeys(ctx)
	wantAPIError(t, err, http.StatusForbidden, premium)

	// Authentication is checked before the entitlement.
	anon := client(t, s.URL())
	_, err = anon.ListAIGatewayKeys(ctx)
	if got := apiError(t, err).StatusCode(); got != http.StatusUnauthorized {
		t.Errorf("anonymous status = %d, want 401", got)
	}

	s.SetLicensed(true)
	s.SetOwner(false)
	forbidden := forbiddenReply.body.(codersdk.Response)
	_, err = c.ListAIGatewayKeys(ctx)
	wantAPIError(t, err, http.StatusForbidden, forbidden)
	_, err = c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw"})
	wantAPIError(t, err, http.StatusForbidden, forbidden)
	wantAPIError(t, c.DeleteAIGatewayKey(ctx, uuid.New()), http.StatusForbidden, forbidden)

	s.SetOwner(true)
	if _, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw"}); err != nil {
		t.Fatal(err)
	}
}

func TestKeyHistoryCountsKeysThatExistedTogether(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	create := func(name string) codersdk.CreateAIGatewayKeyResponse {
		return must[codersdk.CreateAIGatewayKeyResponse](t)(c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: name}))
	}
	// A rotation: old and new overlap, then the old goes; another key of
	// a different name is not counted.
	old := create("gw-abc")
	create("other")
	next := create("gw-abc-r1")
	if err := c.DeleteAIGatewayKey(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	later := create("gw-abc-r2")
	gw := func(name string) bool { return strings.HasPrefix(name, "gw-abc") }
	if got := s.PeakKeys(gw); got != 2 {
		t.Errorf("PeakKeys = %d, want 2 (old and new overlapped; r2 came after the old one went)", got)
	}
	if err := c.DeleteAIGatewayKey(ctx, next.ID); err != nil {
		t.Fatal(err)
	}
	h := s.KeyHistory()
	if len(h) != 4 || h[0].ID != old.ID || h[0].Deleted == nil || h[1].Deleted != nil || h[2].Deleted == nil || h[3].ID != later.ID {
		t.Errorf("KeyHistory = %+v, want four keys in creation order, old and r1 deleted", h)
	}
	if _, ok := s.ValidKey(old.Key); ok {
		t.Error("a deleted key is still valid")
	}
	if row, ok := s.ValidKey(later.Key); !ok || row.ID != later.ID {
		t.Errorf("ValidKey(r2) = %v, %v; want the r2 row", row.ID, ok)
	}
	if _, ok := s.ValidKey(later.KeyPrefix); ok {
		t.Error("a key prefix alone is accepted")
	}
	s.Reset()
	if len(s.KeyHistory()) != 0 {
		t.Error("Reset kept the key history")
	}
}
