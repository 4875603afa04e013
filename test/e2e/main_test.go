package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/controlplane"
)

// env is the cluster every scenario in this package shares; each scenario
// works in namespaces of its own.
var env *Env

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipping scenario tests in -short mode")
		os.Exit(0)
	}
	if _, err := controlplane.BinDir(); err != nil {
		if os.Getenv(controlplane.EnvRequire) != "" {
			fmt.Fprintf(os.Stderr, "%s is set but the control plane is unavailable: %v\n", controlplane.EnvRequire, err)
			os.Exit(1)
		}
		fmt.Printf("skipping scenario tests: %v\n", err)
		os.Exit(0)
	}
	o := provider.DefaultOptions()
	o.Debug = true
	o.PollInterval = 3 * time.Second
	o.CoderTimeout = 2 * time.Second
	o.KeyListTTL = 2 * time.Second
	o.SweepInterval = 2 * time.Second
	o.SweepGrace = 2 * time.Second

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	start := time.Now()
	e, err := StartLocal(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot start the scenario environment: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("scenario environment up in %s\n", time.Since(start).Round(time.Millisecond))
	env = e
	code := m.Run()
	if code != 0 || os.Getenv("PROVIDER_CODER_TEST_LOGS") != "" {
		_ = os.WriteFile("provider.log", []byte(e.Logs.String()), 0o600)
		fmt.Println("provider logs written to test/e2e/provider.log")
	}
	e.Stop()
	os.Exit(code)
}
