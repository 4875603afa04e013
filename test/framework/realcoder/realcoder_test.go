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

package realcoder

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// The test harness and the build script must agree on where the binary is,
// or tests skip a Coder that was built.
func TestCachePathMatchesBuildScript(t *testing.T) {
	t.Setenv(EnvCache, t.TempDir())
	root := crds.RepoRoot()
	out, err := exec.Command(filepath.Join(root, "cluster", "local", "build-coder.sh"), "--print-path").Output()
	if err != nil {
		t.Fatalf("build-coder.sh --print-path: %v", err)
	}
	got, err := CachePath(root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.TrimSpace(string(out)), got); diff != "" {
		t.Errorf("CachePath differs from build-coder.sh (-script +harness):\n%s", diff)
	}
}

func TestPostgresServesCoderDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: starts PostgreSQL")
	}
	bin, err := PostgresBinDir()
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	pg, err := StartPostgres(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	var db string
	if err := pg.DB.QueryRowContext(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	if db != "coder" {
		t.Errorf("current_database(): got %q, want coder", db)
	}
	pg.Stop()
	if _, err := os.Stat(pg.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stop left %s behind: %v", pg.dir, err)
	}
}

// Coder as it ships, without a licence: the AI Gateway keys API is a
// premium feature and answers 403, its entitlements say so, and the AI
// providers API (open source) works.
func TestUnlicensedCoderRefusesGatewayKeysAndServesProviders(t *testing.T) {
	c := StartOrSkip(t, Options{Unlicensed: true})
	ctx := context.Background()
	cl := c.Client()
	if c.Licensed {
		t.Fatal("Licensed is true for a Coder started without a licence")
	}

	var sdkErr *codersdk.Error
	if _, err := cl.ListAIGatewayKeys(ctx); !errors.As(err, &sdkErr) || sdkErr.StatusCode() != http.StatusForbidden || !strings.Contains(sdkErr.Message, "Premium feature") {
		t.Errorf("list keys without a licence: got %v, want 403 naming a Premium feature", err)
	}
	ent, err := cl.Entitlements(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := ent.Features[codersdk.FeatureAIBridge]
	if ent.HasLicense || f.Enabled || f.Entitlement != codersdk.EntitlementNotEntitled {
		t.Errorf("entitlements: has_license %t, aibridge %+v; want no licence, not_entitled, disabled", ent.HasLicense, f)
	}

	if _, err := cl.CreateAIProvider(ctx, codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeOpenAI, Name: "harness", BaseURL: "https://api.openai.com/v1",
	}); err != nil {
		t.Fatalf("create provider without a licence: %v", err)
	}
	keys, providers, err := c.CountRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if keys != 0 || providers != 1 {
		t.Errorf("rows after create: got %d keys, %d providers; want 0, 1", keys, providers)
	}
}

// With the licence a user supplies (PROVIDER_CODER_LICENSE_FILE), the AI
// Gateway keys API serves; keys are hard-deleted rows in ai_gateway_keys.
func TestLicensedCoderServesGatewayKeys(t *testing.T) {
	if os.Getenv(EnvLicenseFile) == "" {
		t.Skip(UnlicensedSkip)
	}
	c := StartOrSkip(t, Options{})
	SkipUnlessLicensed(t, c)
	ctx := context.Background()
	cl := c.Client()
	me, err := cl.User(ctx, codersdk.Me)
	if err != nil {
		t.Fatal(err)
	}
	if me.Username != OwnerUsername || len(me.Roles) == 0 || me.Roles[0].Name != codersdk.RoleOwner {
		t.Errorf("users/me: got %s with roles %v, want the Owner %s", me.Username, me.Roles, OwnerUsername)
	}

	created, err := cl.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "harness"})
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	if created.Key == "" || !strings.HasPrefix(created.Key, created.KeyPrefix) {
		t.Errorf("create key: the plaintext is missing or does not start with the prefix %q", created.KeyPrefix)
	}
	keys, providers, err := c.CountRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if keys != 1 || providers != 0 {
		t.Errorf("rows after create: got %d keys, %d providers; want 1, 0", keys, providers)
	}
	if err := cl.DeleteAIGatewayKey(ctx, created.ID); err != nil {
		t.Fatalf("delete key: %v", err)
	}
	var sdkErr *codersdk.Error
	if err := cl.DeleteAIGatewayKey(ctx, created.ID); !errors.As(err, &sdkErr) || sdkErr.StatusCode() != http.StatusNotFound {
		t.Errorf("second delete: got %v, want 404", err)
	}
	rows, err := c.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Errorf("rows after delete: got %d keys, want 0", len(rows))
	}
}

// The licence is the user's secret: its text never appears in an error.
func TestLicenseFromEnvReadsTheNamedFileAndNeverPrintsIt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const jwt = "eyJhbGciOiJFZERTQSJ9.c2VjcmV0LWxpY2VuY2U.c2lnbmF0dXJl"
	cases := map[string]struct {
		path    string
		want    string
		wantErr string
	}{
		"Unset":   {path: ""},
		"File":    {path: write("licence.jwt", "  "+jwt+"\n"), want: jwt},
		"Empty":   {path: write("empty.jwt", "\n"), wantErr: "is empty"},
		"Missing": {path: filepath.Join(dir, "nope.jwt"), wantErr: "cannot read"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv(EnvLicenseFile, tc.path)
			got, err := LicenseFromEnv()
			if got != tc.want {
				t.Errorf("LicenseFromEnv() = %q, want %q", got, tc.want)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("LicenseFromEnv() error = %v, want one containing %q", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "c2VjcmV0") {
				t.Errorf("the error %q holds the licence", err)
			}
		})
	}
}
