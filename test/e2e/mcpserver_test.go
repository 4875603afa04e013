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

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/mcpserver"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The MCP server scenarios run on the real, unlicensed Coder: its MCP
// servers API is open source and needs no experiment.

// mcpRows are the MCP servers in Coder's store, secrets included: the
// fake's rows, or the real server's PostgreSQL.
func mcpRows(t *testing.T, c testenv.Coder) []fakecoder.MCPServerRow {
	t.Helper()
	s, ok := c.(interface {
		MCPServers() []fakecoder.MCPServerRow
	})
	if !ok {
		t.Skipf("the Coder at %s does not show its MCP server rows", c.URL())
	}
	return s.MCPServers()
}

// mcpRow is the row of the slug, if any.
func mcpRow(t *testing.T, c testenv.Coder, slug string) (fakecoder.MCPServerRow, bool) {
	t.Helper()
	for _, r := range mcpRows(t, c) {
		if r.Slug == slug {
			return r, true
		}
	}
	return fakecoder.MCPServerRow{}, false
}

func newMCPServer(ns, name string, auth common.MCPServerAuthType) *aiv1alpha1.MCPServer {
	m := &aiv1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	m.Spec.ProviderConfigReference = testenv.PCRef()
	m.Spec.ForProvider.Slug = ptr.To(testenv.UniqueProviderName("mcp-" + name))
	m.Spec.ForProvider.URL = "https://mcp.example.com/" + name
	m.Spec.ForProvider.AuthType = auth
	return m
}

// noSecretIn fails t when the resource's status holds any of the values.
func noSecretIn(t *testing.T, m *aiv1alpha1.MCPServer, values ...string) {
	t.Helper()
	raw, err := json.Marshal(m.Status)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if strings.Contains(string(raw), v) {
			t.Errorf("%s: the status holds a secret value", m.Name)
		}
	}
	if fp := m.Status.AtProvider.CredentialsFingerprint; !strings.HasPrefix(fp, mcpserver.FingerprintPrefix) {
		t.Errorf("%s: status.atProvider.credentialsFingerprint = %q, want a keyed fingerprint", m.Name, fp)
	}
}

// mcpSecrets are the values the scenarios' Secret holds.
var mcpSecrets = map[string]string{
	"client-secret": "mcp-oauth2-s3cr3t-Qm2Xv7Lp",
	"api-key":       "mcp-api-k3y-9Qm2Xv7Lp",
	"header-a":      "mcp-header-a-Lp7vX2mQ",
	"header-b":      "mcp-header-b-Xv7Lp2mQ",
}

// mcpRotated are the values the rotation scenario writes.
var mcpRotated = []string{"mcp-api-k3y-rotated-7Lp2", "mcp-header-a-rotated-2mQ"}

func TestMCPServerOfEachAuthTypeIsCreatedAsSpecifiedAndDeleted(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	start := time.Now()
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	env.Secret(t, ns, "mcp", mcpSecrets)

	none := newMCPServer(ns, "none", common.MCPServerAuthNone)
	none.Spec.ForProvider.DisplayName = ptr.To("Docs")
	none.Spec.ForProvider.Description = "the docs"
	none.Spec.ForProvider.Transport = "sse"
	none.Spec.ForProvider.ToolAllowList = []string{"search", "read"}
	none.Spec.ForProvider.ToolDenyList = []string{"write"}
	none.Spec.ForProvider.Availability = "force_on"
	none.Spec.ForProvider.ModelIntent, none.Spec.ForProvider.AllowInPlanMode, none.Spec.ForProvider.ForwardCoderHeaders = true, true, true
	oauth2 := newMCPServer(ns, "oauth2", common.MCPServerAuthOAuth2)
	oauth2.Spec.ForProvider.OAuth2 = &aiv1alpha1.MCPServerOAuth2{MCPServerOAuth2Fields: common.MCPServerOAuth2Fields{
		ClientID: "client", AuthURL: "https://idp.example.com/authorize", TokenURL: "https://idp.example.com/token",
		RevocationURL: "https://idp.example.com/revoke", Scopes: "repo",
	}, ClientSecretSecretRef: ptr.To(ref("mcp", "client-secret"))}
	apiKey := newMCPServer(ns, "apikey", common.MCPServerAuthAPIKey)
	apiKey.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{Header: "X-Api-Key", ValueSecretRef: ref("mcp", "api-key")}
	headers := newMCPServer(ns, "headers", common.MCPServerAuthCustomHeaders)
	headers.Spec.ForProvider.CustomHeaders = []aiv1alpha1.MCPServerCustomHeader{
		{Name: "X-A", ValueSecretRef: ref("mcp", "header-a")}, {Name: "X-B", ValueSecretRef: ref("mcp", "header-b")},
	}
	oidc := newMCPServer(ns, "oidc", common.MCPServerAuthUserOIDC)
	all := []*aiv1alpha1.MCPServer{none, oauth2, apiKey, headers, oidc}
	for _, m := range all {
		env.Create(t, m)
	}
	for _, m := range all {
		env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		env.WaitCondition(t, m, xpv2.TypeSynced, corev1.ConditionTrue, testenv.WaitLong)
		row, ok := mcpRow(t, c, *m.Spec.ForProvider.Slug)
		if !ok || row.ID.String() != meta.GetExternalName(m) || m.Status.AtProvider.ID != row.ID.String() {
			t.Fatalf("%s: Coder holds %v (found %t), want the server of external name %s", m.Name, row, ok, meta.GetExternalName(m))
		}
		if row.AuthType != string(m.Spec.ForProvider.AuthType) || row.URL != m.Spec.ForProvider.URL {
			t.Errorf("%s: Coder's auth type %q and URL %q, want %q and %q", m.Name, row.AuthType, row.URL, m.Spec.ForProvider.AuthType, m.Spec.ForProvider.URL)
		}
		noSecretIn(t, m, slices.Collect(maps.Values(mcpSecrets))...)
	}
	row, _ := mcpRow(t, c, *none.Spec.ForProvider.Slug)
	if row.DisplayName != "Docs" || !slices.Equal(row.ToolAllowList, []string{"search", "read"}) || !slices.Equal(row.ToolDenyList, []string{"write"}) || !row.Enabled {
		t.Errorf("none: Coder holds display name %q, tools %v / %v, enabled %t", row.DisplayName, row.ToolAllowList, row.ToolDenyList, row.Enabled)
	}
	if at := none.Status.AtProvider; at.Transport != "sse" || at.Availability != "force_on" || !at.ModelIntent || !at.AllowInPlanMode || !at.ForwardCoderHeaders {
		t.Errorf("none: status.atProvider = %+v, want the spec's transport, availability and flags", at)
	}
	if row, _ := mcpRow(t, c, *oauth2.Spec.ForProvider.Slug); row.OAuth2ClientSecret != mcpSecrets["client-secret"] {
		t.Errorf("oauth2: Coder does not hold the Secret's client secret")
	}
	if row, _ := mcpRow(t, c, *apiKey.Spec.ForProvider.Slug); row.APIKeyValue != mcpSecrets["api-key"] || row.APIKeyHeader != "X-Api-Key" {
		t.Errorf("apikey: Coder does not hold the Secret's key under X-Api-Key (header %q)", row.APIKeyHeader)
	}
	want := map[string]string{"X-A": mcpSecrets["header-a"], "X-B": mcpSecrets["header-b"]}
	if row, _ := mcpRow(t, c, *headers.Spec.ForProvider.Slug); !maps.Equal(row.CustomHeaders, want) {
		t.Errorf("headers: Coder holds %d headers that are not the Secret's", len(row.CustomHeaders))
	}
	t.Logf("five MCP servers, one per auth type, Ready on the real Coder in %s", time.Since(start).Round(100*time.Millisecond))

	for _, m := range all {
		env.Delete(t, m)
	}
	for _, m := range all {
		env.WaitGone(t, m, testenv.WaitLong)
		if _, ok := mcpRow(t, c, *m.Spec.ForProvider.Slug); ok {
			t.Errorf("%s: Coder still holds the server after the delete", m.Name)
		}
	}
	t.Logf("created and deleted in %s", time.Since(start).Round(100*time.Millisecond))
}

func TestMCPServerSecretRotationReachesCoderAtOnce(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	s := env.Secret(t, ns, "mcp", mcpSecrets)
	apiKey := newMCPServer(ns, "apikey", common.MCPServerAuthAPIKey)
	apiKey.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref("mcp", "api-key")}
	headers := newMCPServer(ns, "headers", common.MCPServerAuthCustomHeaders)
	headers.Spec.ForProvider.CustomHeaders = []aiv1alpha1.MCPServerCustomHeader{{Name: "X-A", ValueSecretRef: ref("mcp", "header-a")}}
	for _, m := range []*aiv1alpha1.MCPServer{apiKey, headers} {
		env.Create(t, m)
	}
	for _, m := range []*aiv1alpha1.MCPServer{apiKey, headers} {
		env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	before := apiKey.Status.AtProvider.CredentialsFingerprint

	start := time.Now()
	if err := env.Update(t, s, func() {
		s.Data["api-key"] = []byte(mcpRotated[0])
		s.Data["header-a"] = []byte(mcpRotated[1])
	}); err != nil {
		t.Fatal(err)
	}
	// The Secret's watch reconciles its readers at once, well before the
	// next poll of either.
	testenv.Eventually(t, pollInterval, "Coder to hold the rotated secrets", func() (bool, string) {
		k, _ := mcpRow(t, c, *apiKey.Spec.ForProvider.Slug)
		h, _ := mcpRow(t, c, *headers.Spec.ForProvider.Slug)
		return k.APIKeyValue == mcpRotated[0] && h.CustomHeaders["X-A"] == mcpRotated[1],
			fmt.Sprintf("api key rotated: %t, header rotated: %t", k.APIKeyValue == mcpRotated[0], h.CustomHeaders["X-A"] == mcpRotated[1])
	})
	t.Logf("a rotated Secret reached the real Coder in %s", time.Since(start).Round(100*time.Millisecond))
	testenv.Eventually(t, testenv.WaitLong, "a new fingerprint in status", func() (bool, string) {
		env.Get(t, apiKey)
		return apiKey.Status.AtProvider.CredentialsFingerprint != before, apiKey.Status.AtProvider.CredentialsFingerprint
	})
	noSecretIn(t, apiKey, mcpRotated[0], mcpSecrets["api-key"])
	env.Get(t, headers)
	noSecretIn(t, headers, mcpRotated[1], mcpSecrets["header-a"])
}

// On the fake, which counts requests, each drift costs exactly one PATCH.
func TestMCPServerDriftInCoderIsPutBackWithOnePatchPerDrift(t *testing.T) {
	onBothCoders(t, mcpDriftPutBack)
}

func mcpDriftPutBack(t *testing.T, c testenv.Coder) {
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	env.Secret(t, ns, "mcp", mcpSecrets)
	m := newMCPServer(ns, "drift", common.MCPServerAuthAPIKey)
	m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref("mcp", "api-key")}
	m.Spec.ForProvider.ToolAllowList = []string{"search"}
	env.Create(t, m)
	env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	id := m.Status.AtProvider.ID
	sdk := c.SDK(t)
	ctx := context.Background()
	drifts := []struct {
		name  string
		patch codersdk.UpdateMCPServerConfigRequest
		back  func(fakecoder.MCPServerRow) bool
	}{
		{"tool lists edited", codersdk.UpdateMCPServerConfigRequest{ToolAllowList: &[]string{"search", "write"}, ToolDenyList: &[]string{"read"}},
			func(r fakecoder.MCPServerRow) bool {
				return slices.Equal(r.ToolAllowList, []string{"search"}) && len(r.ToolDenyList) == 0
			}},
		{"disabled and renamed", codersdk.UpdateMCPServerConfigRequest{Enabled: ptr.To(false), DisplayName: ptr.To("by hand"), URL: ptr.To("https://evil.example.com")},
			func(r fakecoder.MCPServerRow) bool {
				return r.Enabled && r.DisplayName == *m.Spec.ForProvider.Slug && r.URL == m.Spec.ForProvider.URL
			}},
		{"auth type changed, the key cleared", codersdk.UpdateMCPServerConfigRequest{AuthType: ptr.To("none")},
			func(r fakecoder.MCPServerRow) bool {
				return r.AuthType == "api_key" && r.APIKeyValue == mcpSecrets["api-key"] && r.APIKeyHeader == "Authorization"
			}},
	}
	for _, d := range drifts {
		start := time.Now()
		patches := 0
		if !testenv.IsReal(c) {
			patches = c.Requests(fakecoder.EndpointMCPServerUpdate)
		}
		if _, err := sdk.UpdateMCPServerConfig(ctx, uuidOf(t, id), d.patch); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, pollInterval+5*time.Second, d.name+" put back", func() (bool, string) {
			r, _ := mcpRow(t, c, *m.Spec.ForProvider.Slug)
			return d.back(r), fmt.Sprintf("row %v", r)
		})
		t.Logf("%s: put back in %s", d.name, time.Since(start).Round(100*time.Millisecond))
		if !testenv.IsReal(c) {
			// Ours, after the one by hand.
			if n := c.Requests(fakecoder.EndpointMCPServerUpdate) - patches; n != 2 {
				t.Errorf("%s: %d PATCHes reached Coder, want the one by hand and one putting it back", d.name, n)
			}
		}
	}
}

func TestMCPServerNamespaceDeletedWithCoderUpLeavesNoRows(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	env.Secret(t, ns, "mcp", mcpSecrets)
	var slugs []string
	for i, auth := range []common.MCPServerAuthType{common.MCPServerAuthNone, common.MCPServerAuthAPIKey, common.MCPServerAuthUserOIDC} {
		m := newMCPServer(ns, fmt.Sprintf("ns%d", i), auth)
		if auth == common.MCPServerAuthAPIKey {
			m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref("mcp", "api-key")}
		}
		env.Create(t, m)
		env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		slugs = append(slugs, *m.Spec.ForProvider.Slug)
	}
	count := func() int {
		n := 0
		for _, r := range mcpRows(t, c) {
			if slices.Contains(slugs, r.Slug) {
				n++
			}
		}
		return n
	}
	if n := count(); n != len(slugs) {
		t.Fatalf("before the deletion Coder holds %d servers of the namespace, want %d", n, len(slugs))
	}
	start := time.Now()
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	env.Delete(t, namespace)
	env.WaitGone(t, namespace, 2*time.Minute)
	t.Logf("namespace with %d MCP servers deleted in %s", len(slugs), time.Since(start).Round(100*time.Millisecond))
	if n := count(); n != 0 {
		t.Errorf("after the namespace deletion Coder holds %d servers of the namespace, want 0", n)
	}
	list, err := c.SDK(t).MCPServerConfigs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if slices.Contains(slugs, s.Slug) {
			t.Errorf("Coder's API still lists %s", s.Slug)
		}
	}
}

func TestMCPServerRefusesASlugTakenByHandUnlessImported(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	slug := testenv.UniqueProviderName("mcp-taken")
	sdk := c.SDK(t)
	ctx := context.Background()
	theirs, err := sdk.CreateMCPServerConfig(ctx, codersdk.CreateMCPServerConfigRequest{
		DisplayName: "by hand", Slug: slug, Transport: "sse", URL: "https://theirs.example.com", AuthType: "none", Availability: "default_off",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sdk.DeleteMCPServerConfig(context.Background(), theirs.ID) })

	m := newMCPServer(ns, "taken", common.MCPServerAuthNone)
	m.Spec.ForProvider.Slug = ptr.To(slug)
	env.Create(t, m)
	cond := env.WaitCondition(t, m, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if !strings.Contains(cond.Message, "is taken in Coder") {
		t.Errorf("Synced says %q, want that the slug is taken", cond.Message)
	}
	testenv.Never(t, pollInterval+time.Second, "the server made by hand adopted or changed", func() (bool, string) {
		env.Get(t, m)
		r, _ := mcpRow(t, c, slug)
		return meta.GetExternalName(m) != "" || r.URL != "https://theirs.example.com" || r.DisplayName != "by hand",
			fmt.Sprintf("external name %q, row %v", meta.GetExternalName(m), r)
	})
	env.Delete(t, m)
	env.WaitGone(t, m, testenv.WaitLong)
	if _, ok := mcpRow(t, c, slug); !ok {
		t.Fatal("deleting the refused resource deleted the server made by hand")
	}

	// An observe-only import by slug takes it, and lets go without a delete.
	imp := &aiv1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imported"}}
	imp.Spec.ProviderConfigReference = testenv.PCRef()
	imp.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	meta.SetExternalName(imp, slug)
	env.Create(t, imp)
	env.WaitCondition(t, imp, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	testenv.Eventually(t, testenv.WaitLong, "the external name to settle to the id", func() (bool, string) {
		env.Get(t, imp)
		return meta.GetExternalName(imp) == theirs.ID.String(), meta.GetExternalName(imp)
	})
	if at := imp.Status.AtProvider; at.URL != "https://theirs.example.com" || at.Slug != slug {
		t.Errorf("status.atProvider = %+v, want the server made by hand", at)
	}
	env.Delete(t, imp)
	env.WaitGone(t, imp, testenv.WaitLong)
	if _, ok := mcpRow(t, c, slug); !ok {
		t.Error("deleting the observe-only import deleted the server in Coder")
	}
}

func uuidOf(t *testing.T, id string) uuid.UUID {
	t.Helper()
	u, err := uuid.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A create whose answer was lost, or failed after Coder wrote it, leaves
// a server the resource's own record proves it made: the next reconcile
// finds it by slug and adopts it, with one create request in all. Fault
// injection needs the fake.
func TestMCPServerUncertainCreateAdoptsItsOwnServer(t *testing.T) {
	faults := map[string]fakecoder.Fault{
		"AnswerLost":       {CommitThenTimeout: true, Times: 1},
		"CommittedThen502": {Status: 502, Commit: true, Times: 1},
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			ns := env.Namespace(t)
			env.ProviderConfig(t, ns)
			env.Secret(t, ns, "mcp", mcpSecrets)
			if err := env.Coder.SetFault(fakecoder.EndpointMCPServerCreate, fault); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { env.Coder.ClearFault(fakecoder.EndpointMCPServerCreate) })
			before := env.Coder.Requests(fakecoder.EndpointMCPServerCreate)

			m := newMCPServer(ns, "uncertain", common.MCPServerAuthAPIKey)
			m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref("mcp", "api-key")}
			env.Create(t, m)
			env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
			env.WaitCondition(t, m, xpv2.TypeSynced, corev1.ConditionTrue, testenv.WaitLong)
			var rows []fakecoder.MCPServerRow
			for _, r := range env.Coder.MCPServers() {
				if r.Slug == *m.Spec.ForProvider.Slug {
					rows = append(rows, r)
				}
			}
			if len(rows) != 1 || meta.GetExternalName(m) != rows[0].ID.String() {
				t.Fatalf("Coder holds %v, want the one server the uncertain create wrote, named by the external name %q", rows, meta.GetExternalName(m))
			}
			if rows[0].APIKeyValue != mcpSecrets["api-key"] {
				t.Error("the adopted server does not hold the Secret's key")
			}
			if n := env.Coder.Requests(fakecoder.EndpointMCPServerCreate) - before; n != 1 {
				t.Errorf("%d create requests, want 1 (the uncertain one, then adoption)", n)
			}
			testenv.Eventually(t, testenv.WaitLong, "the adoption event", func() (bool, string) {
				for _, e := range env.NamespaceEvents(t, ns) {
					if e.Reason == string(mcpserver.ReasonAdoptedUncertainCreate) && e.InvolvedObject.Name == m.Name {
						return true, ""
					}
				}
				return false, "no " + string(mcpserver.ReasonAdoptedUncertainCreate) + " event"
			})
			env.Delete(t, m)
			env.WaitGone(t, m, testenv.WaitLong)
			for _, r := range env.Coder.MCPServers() {
				if r.Slug == *m.Spec.ForProvider.Slug {
					t.Errorf("the adopted server is still in Coder after the delete")
				}
			}
		})
	}
}

// With Coder stopped the namespace still goes, within its ProviderConfig's
// bounds, each MCP server released without delete with an Abandoned
// record; once Coder is back the sweep deletes them, through a Ready
// ProviderConfig of the same deployment.
func TestMCPServerNamespaceDeletedWithCoderStoppedIsSweptAfterRestart(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
	env.Secret(t, ns, "mcp", mcpSecrets)
	var servers []*aiv1alpha1.MCPServer
	for i, auth := range []common.MCPServerAuthType{common.MCPServerAuthNone, common.MCPServerAuthAPIKey} {
		m := newMCPServer(ns, fmt.Sprintf("down%d", i), auth)
		if auth == common.MCPServerAuthAPIKey {
			m.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{ValueSecretRef: ref("mcp", "api-key")}
		}
		env.Create(t, m)
		servers = append(servers, m)
	}
	for _, m := range servers {
		env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	before := releasedWithoutDelete(t, "MCPServer")
	if err := c.SetDown(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SetDown(false) })

	start := time.Now()
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	env.Delete(t, namespace)
	env.WaitGone(t, namespace, 2*time.Minute)
	t.Logf("namespace with %d MCP servers deleted with Coder stopped in %s", len(servers), time.Since(start).Round(100*time.Millisecond))
	if got := releasedWithoutDelete(t, "MCPServer") - before; got != float64(len(servers)) {
		t.Errorf("releases without delete = %v, want %d", got, len(servers))
	}
	for _, m := range servers {
		if r := recordOf(t, "MCPServer", m.GetUID()); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
			t.Fatalf("cleanup record of %s = %+v, want Abandoned", m.Name, r)
		}
		if _, ok := mcpRow(t, c, *m.Spec.ForProvider.Slug); !ok {
			t.Fatalf("Coder's store lost %s while the server was stopped", m.Name)
		}
	}

	if err := c.SetDown(false); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	sweepThrough(t, c)
	for _, m := range servers {
		waitRecordGone(t, "MCPServer", m.GetUID())
	}
	t.Logf("swept %s after Coder was back", time.Since(start).Round(100*time.Millisecond))
	for _, m := range servers {
		if _, ok := mcpRow(t, c, *m.Spec.ForProvider.Slug); ok {
			t.Errorf("Coder still holds %s after the sweep", m.Name)
		}
	}
}

// Every MCPServer example of both scopes is admitted, and the namespaced
// ones cover every auth type.
func TestMCPServerExamplesAreAdmitted(t *testing.T) {
	ns := env.Namespace(t)
	for _, scope := range []string{"namespaced", "cluster"} {
		files, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "examples", scope, "mcpserver", "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		auth := map[string]bool{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if u.GetKind() != "MCPServer" {
					continue
				}
				if u.GetNamespace() != "" {
					u.SetNamespace(ns)
				}
				if a, ok, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "authType"); ok {
					auth[a] = true
				}
				if err := env.Kube.Create(context.Background(), u, client.DryRunAll); err != nil {
					t.Errorf("%s: %s %s is not admitted: %v", filepath.Base(f), u.GetAPIVersion(), u.GetName(), err)
				}
			}
		}
		if scope == "namespaced" && len(auth) != 5 {
			t.Errorf("namespaced examples cover %d auth types, want all 5: %v", len(auth), auth)
		}
		if len(files) == 0 {
			t.Errorf("no %s MCPServer examples", scope)
		}
	}
}

// Abandoning on purpose (a namespaced resource without Delete among its
// policies, a cluster-scoped one with deletionPolicy Orphan) calls nothing
// in Coder, removes the record, and counts no release. On the real Coder.
func TestMCPServerWithoutDeleteStaysInCoder(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	check := func(t *testing.T, m client.Object, slug string) {
		t.Helper()
		before := releasedWithoutDelete(t, "MCPServer")
		env.Delete(t, m)
		env.WaitGone(t, m, testenv.WaitLong)
		if _, ok := mcpRow(t, c, slug); !ok {
			t.Errorf("the MCP server %s was deleted in Coder although the resource abandons it", slug)
		}
		if r := recordOf(t, "MCPServer", m.GetUID()); r != nil {
			t.Errorf("the cleanup record %s is left after an intentional abandon", r.Name)
		}
		if d := releasedWithoutDelete(t, "MCPServer") - before; d != 0 {
			t.Errorf("releases without delete = %v, want 0 for an intentional abandon", d)
		}
		if err := c.SDK(t).DeleteMCPServerConfig(context.Background(), uuidOf(t, meta.GetExternalName(m))); err != nil {
			t.Errorf("cannot clean up the abandoned server: %v", err)
		}
	}
	t.Run("NamespacedManagementPolicies", func(t *testing.T) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		m := newMCPServer(ns, "kept", common.MCPServerAuthNone)
		m.Spec.ManagementPolicies = xpv2.ManagementPolicies{
			xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
			xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize,
		}
		env.Create(t, m)
		env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		check(t, m, *m.Spec.ForProvider.Slug)
	})
	t.Run("ClusterOrphan", func(t *testing.T) {
		ns := env.Namespace(t)
		env.TokenSecret(t, ns, "coder-token", c.Token())
		pc := clusterPC(ns, strings.ToLower(ns))
		pc.Spec.URL = c.URL()
		env.Create(t, pc)
		t.Cleanup(func() { env.Delete(t, pc) })
		env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		m := &clusteraiv1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueProviderName("mcp-orphan")}}
		m.Spec.ProviderConfigReference = &xpv2.Reference{Name: pc.Name}
		m.Spec.DeletionPolicy = xpv2.DeletionOrphan
		m.Spec.ForProvider.URL = "https://mcp.example.com/orphan"
		env.Create(t, m)
		env.WaitCondition(t, m, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		if m.Status.AtProvider.Slug != m.Name {
			t.Errorf("the slug in Coder is %q, want metadata.name %q", m.Status.AtProvider.Slug, m.Name)
		}
		check(t, m, m.Name)
	})
}

// Another tenant's MCP server, named by its slug or by its id in an
// external name, is not imported: the records name its owner, and
// deleting the would-be importer leaves the server in Coder. On the real
// Coder.
func TestMCPServerImportOfAnotherTenantsServerIsRefused(t *testing.T) {
	c := env.Cluster.RealCoder(t)
	vns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, vns, c, nil)
	victim := newMCPServer(vns, "victim", common.MCPServerAuthNone)
	env.Create(t, victim)
	env.WaitCondition(t, victim, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	slug, id := *victim.Spec.ForProvider.Slug, meta.GetExternalName(victim)

	ans := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ans, c, nil)
	for name, external := range map[string]string{"byslug": slug, "byid": id} {
		m := newMCPServer(ans, name, common.MCPServerAuthNone)
		m.Spec.ForProvider.Slug = ptr.To(slug)
		m.Spec.ForProvider.URL = "https://attacker.example.com/mcp"
		meta.SetExternalName(m, external)
		env.Create(t, m)
		cond := env.WaitCondition(t, m, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
		if owner := vns + "/victim"; !strings.Contains(cond.Message, owner) {
			t.Errorf("%s: Synced message %q does not name the owner %s", name, cond.Message, owner)
		}
		env.Delete(t, m)
		env.WaitGone(t, m, testenv.WaitLong)
		r, ok := mcpRow(t, c, slug)
		if !ok || r.ID.String() != id || r.URL != victim.Spec.ForProvider.URL {
			t.Fatalf("%s: the victim's server was changed or deleted: %v (found %t)", name, r, ok)
		}
	}
}
