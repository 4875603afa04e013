package interleave

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/crds"
)

// Flags is how the harness runs the provider binary: its production
// defaults but for the three knobs the scenario suite compresses too
// (test/e2e/main_test.go says why): the poll, Coder's request timeout and
// the key list's TTL below the poll.
var Flags = []string{"--debug", "--poll=3s", "--coder-timeout=2s", "--key-list-ttl=2s", "--health-probe-bind-address=0"}

// PollInterval is the provider's poll under Flags.
const PollInterval = 3 * time.Second

// BuildProvider builds cmd/provider into dir, with the race detector when
// this test binary has it (the build reuses the test's compiled packages).
func BuildProvider(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "provider")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(ctx, goTool(), append(args, "./cmd/provider")...)
	cmd.Dir = crds.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build the provider: %w\n%s", err, out)
	}
	return bin, nil
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}
