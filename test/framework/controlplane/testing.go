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

package controlplane

import (
	"context"
	"os"
	"testing"
	"time"
)

// StartOrSkip starts a control plane for t and stops it when t's test ends.
// It skips t in -short mode (`make unit`), and when the binaries are missing
// unless PROVIDER_CODER_REQUIRE_CONTROLPLANE is set (as `make test` and CI
// do), where a missing control plane must fail rather than quietly skip
// every test that needs one.
func StartOrSkip(t testing.TB, o Options) *ControlPlane {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: needs a local control plane, which -short excludes")
	}
	if o.BinDir == "" {
		dir, err := BinDir()
		if err != nil {
			if os.Getenv(EnvRequire) != "" {
				t.Fatalf("%s is set but the control plane is unavailable: %v", EnvRequire, err)
			}
			t.Skipf("skipping: no local control plane: %v", err)
		}
		o.BinDir = dir
	}

	ctx := context.Background()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, dl)
			defer cancel()
		}
	}
	start := time.Now()
	c, err := Start(ctx, o)
	if err != nil {
		t.Fatalf("cannot start control plane: %v", err)
	}
	t.Logf("control plane started in %s (kubeconfig %s)", time.Since(start).Round(time.Millisecond), c.KubeconfigPath)
	t.Cleanup(func() {
		if t.Failed() && o.Logs == nil {
			// The logs live in Dir, which Stop removes; keep the part
			// most likely to explain the failure.
			for _, p := range c.procs {
				t.Logf("last output of %s:\n%s", p.name, p.tail.String())
			}
		}
		if err := c.Stop(); err != nil {
			t.Errorf("cannot stop control plane: %v", err)
		}
	})
	return c
}
