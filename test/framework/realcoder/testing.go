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
	"os"
	"testing"
	"time"
)

// Available reports whether Start can run: the Coder binary is built and
// PostgreSQL is installed. The error says what is missing and how to get it.
func Available() error {
	if _, err := Binary(); err != nil {
		return err
	}
	_, err := PostgresBinDir()
	return err
}

// StartOrSkip starts a Coder deployment for t and stops it when t ends. It
// skips t in -short mode, and when the binary or PostgreSQL is missing
// unless PROVIDER_CODER_REQUIRE_CODER is set (as `make test` and CI do),
// where a missing Coder must fail rather than quietly skip.
func StartOrSkip(t testing.TB, o Options) *Coder {
	t.Helper()
	SkipUnlessAvailable(t)
	start := time.Now()
	c, err := Start(context.Background(), o)
	if err != nil {
		t.Fatalf("cannot start Coder: %v", err)
	}
	t.Logf("PostgreSQL and Coder started in %s (%s, %s)", time.Since(start).Round(time.Millisecond), c.URL, c.Licence())
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last output of coder:\n%s", c.Logs())
		}
		c.Stop()
	})
	return c
}

// SkipUnlessAvailable skips t (or fails it, under PROVIDER_CODER_REQUIRE_CODER)
// when the real Coder cannot run here.
func SkipUnlessAvailable(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: needs the real Coder server, which -short excludes")
	}
	if err := Available(); err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("%s is set but the real Coder is unavailable: %v", EnvRequire, err)
		}
		t.Skipf("skipping: no real Coder: %v", err)
	}
}

// Licence says what c serves, for logs and a run's output.
func (c *Coder) Licence() string {
	if c.Licensed {
		return "licensed from " + EnvLicenseFile + ": AI Gateway keys run on it"
	}
	return "unlicensed: AI providers run on it, AI Gateway key scenarios skip; set " + EnvLicenseFile + " to run them"
}
