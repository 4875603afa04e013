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
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"

	"k8s.io/apimachinery/pkg/util/wait"
)

func TestAdminClientDrivesAServerInAnotherProcess(t *testing.T) {
	s := New(Options{})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.StartAdminOn("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	c := &AdminClient{BaseURL: s.AdminURL()}
	ctx := t.Context()

	cfg, err := c.Config(ctx)
	if err != nil || cfg.Token != s.Token() {
		t.Fatalf("Config() = %+v, %v; want the server's token", cfg, err)
	}
	if err := c.SetFault(ctx, EndpointKeysDelete, Fault{Status: 502, Times: 2}); err != nil {
		t.Fatal(err)
	}
	if f := s.Faults()[EndpointKeysDelete]; f.Status != 502 || f.Times != 2 {
		t.Errorf("fault after SetFault = %+v, want status 502 for 2 requests", f)
	}
	if err := c.ClearFault(ctx, EndpointKeysDelete); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Faults()); n != 0 {
		t.Errorf("%d faults left after ClearFault", n)
	}

	u, _ := url.Parse(s.URL())
	sdk := codersdk.New(u)
	sdk.SetSessionToken(s.Token())
	created, err := sdk.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "one"})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := c.Keys(ctx)
	if err != nil || len(keys) != 1 || keys[0].ID != created.ID {
		t.Fatalf("Keys() = %+v, %v; want the created key", keys, err)
	}
	counts, err := c.Requests(ctx)
	if err != nil || counts[EndpointKeysCreate] != 1 {
		t.Errorf("Requests() = %v, %v; want 1 create", counts, err)
	}

	if err := c.Down(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		resp, err := http.Get(s.URL() + "/api/v2/buildinfo") //nolint:noctx // test
		if err != nil {
			return true, nil
		}
		_ = resp.Body.Close()
		return false, nil
	}); err != nil {
		t.Fatal("the Coder API still answers after Down")
	}
	if err := c.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sdk.BuildInfo(ctx); err != nil {
		t.Errorf("the Coder API does not answer after Up: %v", err)
	}

	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, err := c.Providers(ctx, true); err != nil || len(rows) != 0 || len(s.Keys()) != 0 {
		t.Errorf("after Reset: providers %v (%v), %d keys; want none", rows, err, len(s.Keys()))
	}
	if err := c.SetFault(ctx, "GET /nope", Fault{Status: 500}); err == nil {
		t.Errorf("SetFault on an unknown endpoint succeeded")
	}
}

// A delete that answers 204 and keeps the key is set over the admin API as
// in process: a fake in a kind cluster lies the same way.
func TestAdminClientSetsADeleteThatKeepsTheObject(t *testing.T) {
	s, sdk := start(t, Options{})
	c := &AdminClient{BaseURL: s.URL()}
	ctx := t.Context()
	created, err := sdk.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetFault(ctx, EndpointKeysDelete, Fault{Status: http.StatusNoContent}); err != nil {
		t.Fatal(err)
	}
	if err := sdk.DeleteAIGatewayKey(ctx, created.ID); err != nil {
		t.Fatalf("the faulted delete answered %v, want Coder's 204", err)
	}
	if keys, err := c.Keys(ctx); err != nil || len(keys) != 1 || keys[0].ID != created.ID {
		t.Errorf("Keys() after the faulted delete = %+v, %v; want the key kept", keys, err)
	}
	if err := c.SetFault(ctx, EndpointKeysList, Fault{Status: http.StatusOK}); err == nil {
		t.Error("the admin API accepted a success fault on the key list")
	}
}
