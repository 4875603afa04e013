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

	"github.com/crossplane-contrib/provider-coder/test/crds"
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

// The license unlocks the AI Gateway keys API, which answers 403 without
// one; keys are hard-deleted rows in ai_gateway_keys.
func TestCoderServesLicensedGatewayKeys(t *testing.T) {
	c := StartOrSkip(t, Options{})
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
