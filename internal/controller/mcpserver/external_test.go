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
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	testfixture "github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// staticKey is a KeySource of one key.
type staticKey []byte

func (k staticKey) Key(context.Context) ([]byte, error) { return k, nil }

const unitSecret = "mcp-unit-s3cr3t-value"

// newExternal is an external client of a fake Coder, with a Secret
// "mcp" in team-a holding unitSecret under "key".
func newExternal(t *testing.T, objs ...client.Object) (*external, *fakecoder.Server, *coder.Client) {
	t.Helper()
	srv, cl := testfixture.Coder(t)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mcp"}, Data: map[string][]byte{"key": []byte(unitSecret + "\n")}}
	kube := testfixture.Kube(t, append(objs, s)...).WithStatusSubresource(objs...).Build()
	return &external{coder: cl, kube: kube, reader: kube, kind: "MCPServer", log: logging.NewNopLogger(),
		record: event.NewNopRecorder(), fingerprintKey: staticKey(testKey)}, srv, cl
}

func apiKeyServer(slug string) *aiv1alpha1.MCPServer {
	m := &aiv1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "docs", UID: testUID}}
	m.Spec.ForProvider.Slug = ptr.To(slug)
	m.Spec.ForProvider.URL = "https://mcp.example.com"
	m.Spec.ForProvider.AuthType = common.MCPServerAuthAPIKey
	m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{Header: "X-Api-Key", ValueSecretRef: common.LocalSecretKeySelector{Name: "mcp", Key: "key"}}
	return m
}

func TestCreateSendsTheSecretsAndKeepsOnlyTheirFingerprint(t *testing.T) {
	ctx := context.Background()
	m := apiKeyServer("docs")
	e, srv, _ := newExternal(t, m)
	if _, err := e.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	rows := srv.MCPServers()
	if len(rows) != 1 || rows[0].APIKeyValue != unitSecret || rows[0].APIKeyHeader != "X-Api-Key" {
		t.Fatalf("Coder holds %v, want one server with the Secret's key (trimmed) under X-Api-Key", rows)
	}
	if got := meta.GetExternalName(m); got != rows[0].ID.String() {
		t.Errorf("external name = %q, want the server's id %s", got, rows[0].ID)
	}
	at := m.Status.AtProvider
	if !strings.HasPrefix(at.CredentialsFingerprint, FingerprintPrefix) || !at.HasAPIKey {
		t.Errorf("status.atProvider = %+v, want a fingerprint and hasAPIKey", at)
	}
	if strings.Contains(at.CredentialsFingerprint, unitSecret) {
		t.Error("the status holds the secret")
	}

	// The next Observe finds nothing to change.
	o, err := e.Observe(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if !o.ResourceExists || !o.ResourceUpToDate {
		t.Errorf("Observe after Create = %+v, want existing and up to date", o)
	}
}

func TestObserveSeesDriftAndUpdatePutsItBackInOnePatch(t *testing.T) {
	ctx := context.Background()
	m := apiKeyServer("docs")
	e, srv, _ := newExternal(t, m)
	if _, err := e.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	id := srv.MCPServers()[0].ID
	if _, err := srv.EditMCPServer(id, func(r *fakecoder.MCPServerRow) {
		r.ToolDenyList, r.Enabled, r.APIKeyValue = []string{"write"}, false, ""
	}); err != nil {
		t.Fatal(err)
	}
	o, err := e.Observe(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if o.ResourceUpToDate || o.Diff != strings.Join([]string{DriftToolDenyList, DriftEnabled, DriftCredentials}, ", ") {
		t.Fatalf("Observe = %+v, want the deny list, enabled and the credentials to differ", o)
	}
	patches := srv.Requests(fakecoder.EndpointMCPServerUpdate)
	if _, err := e.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(fakecoder.EndpointMCPServerUpdate) - patches; n != 1 {
		t.Errorf("%d PATCHes, want 1", n)
	}
	r := srv.MCPServers()[0]
	if len(r.ToolDenyList) != 0 || !r.Enabled || r.APIKeyValue != unitSecret {
		t.Errorf("after Update Coder holds deny list %v, enabled %t, the key put back %t", r.ToolDenyList, r.Enabled, r.APIKeyValue == unitSecret)
	}
}

func TestCreateOnASlugSomeoneElseMadeIsRefusedNotAdopted(t *testing.T) {
	ctx := context.Background()
	m := apiKeyServer("taken")
	e, srv, cl := newExternal(t, m)
	theirs, err := cl.CreateMCPServer(ctx, codersdk.CreateMCPServerConfigRequest{
		DisplayName: "theirs", Slug: "taken", Transport: "sse", URL: "https://theirs.example.com", AuthType: "none", Availability: "default_off",
	})
	if err != nil {
		t.Fatal(err)
	}
	// No create attempt of its own: nothing to look for.
	if o, err := e.Observe(ctx, m); err != nil || o.ResourceExists {
		t.Fatalf("Observe = %+v, %v; want not existing", o, err)
	}
	_, err = e.Create(ctx, m)
	if err == nil || !strings.Contains(err.Error(), "is taken in Coder") {
		t.Fatalf("Create = %v, want the slug taken", err)
	}
	if c := m.GetCondition(xpv2.TypeReady); c.Reason != xpv2.ReasonUnavailable || !strings.Contains(c.Message, "taken") {
		t.Errorf("Ready = %+v, want Unavailable saying the slug is taken", c)
	}
	if meta.GetExternalName(m) != "" {
		t.Errorf("external name %q, want none", meta.GetExternalName(m))
	}
	// An attempt marked pending (by hand: anyone may write the
	// annotation) without a record of its own looks for nothing and adopts
	// nothing: only the record proves an attempt.
	meta.SetExternalCreatePending(m, time.Now())
	if o, err := e.Observe(ctx, m); err != nil || o.ResourceExists {
		t.Errorf("Observe with an unrecorded pending attempt = %+v, %v; want not existing", o, err)
	}
	if meta.GetExternalName(m) != "" {
		t.Errorf("external name %q after Observe, want none", meta.GetExternalName(m))
	}
	if r := srv.MCPServers()[0]; r.ID != theirs.ID || r.URL != "https://theirs.example.com" || r.APIKeyValue != "" {
		t.Errorf("the server someone else made was changed: %v", r)
	}
}

func TestAMissingSecretSendsNothing(t *testing.T) {
	ctx := context.Background()
	m := apiKeyServer("docs")
	m.Spec.ForProvider.APIKey.ValueSecretRef.Key = "absent"
	e, srv, _ := newExternal(t, m)
	_, err := e.Create(ctx, m)
	if err == nil || !strings.Contains(err.Error(), fieldAPIKeyValue) {
		t.Fatalf("Create = %v, want an error naming %s", err, fieldAPIKeyValue)
	}
	if n := srv.Requests(fakecoder.EndpointMCPServerCreate); n != 0 {
		t.Errorf("%d creates reached Coder, want 0", n)
	}
}

// A create answered with another server's id (a server that answers with
// someone else's ids) is not taken for this resource's: a read of the id
// shows another slug, so nothing is recorded as its external name.
func TestACreateAnswerNamingAnotherServerIsNotTakenForIt(t *testing.T) {
	ctx := context.Background()
	m := apiKeyServer("mine")
	e, srv, cl := newExternal(t, m)
	if _, err := cl.CreateMCPServer(ctx, codersdk.CreateMCPServerConfigRequest{
		DisplayName: "theirs", Slug: "theirs", Transport: "sse", URL: "https://theirs.example.com", AuthType: "none", Availability: "default_off",
	}); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetFault(fakecoder.EndpointMCPServerCreate, fakecoder.Fault{AnswerOtherID: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(ctx, m); err == nil {
		t.Fatal("Create took an answer naming another server's id")
	}
	if got := meta.GetExternalName(m); got != "" {
		t.Errorf("external name = %q, want none", got)
	}
}
