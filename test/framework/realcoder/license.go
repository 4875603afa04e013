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
	"fmt"
	"os"
	"strings"
	"testing"
)

// EnvLicenseFile names a file holding a Coder licence (the JWT Coder
// issues, a trial's included). With it, the real Coder runs licensed and
// the AI Gateway key scenarios run on it too; without it they skip. The
// test bed never makes a licence of its own: Coder's enterprise licence
// forbids circumventing its licence checks.
const EnvLicenseFile = "PROVIDER_CODER_LICENSE_FILE"

// LicenseFromEnv returns the licence in the file $PROVIDER_CODER_LICENSE_FILE
// names, or "" when it is unset. An unreadable or empty file is an error:
// a user who names a licence expects the licensed scenarios to run.
func LicenseFromEnv() (string, error) {
	path := os.Getenv(EnvLicenseFile)
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("cannot read the Coder licence %s names: %w", EnvLicenseFile, err)
	}
	license := strings.TrimSpace(string(b))
	if license == "" {
		return "", fmt.Errorf("the Coder licence file %s names (%s) is empty", EnvLicenseFile, path)
	}
	return license, nil
}

// SkipUnlessLicensed skips t unless c runs with a licence: what needs
// Coder's premium APIs (AI Gateway keys) runs on the real server only with
// a licence the user supplies. The message names the variable to set.
func SkipUnlessLicensed(t testing.TB, c *Coder) {
	t.Helper()
	if !c.Licensed {
		t.Skip(UnlicensedSkip)
	}
}

// UnlicensedSkip is why a scenario that needs AI Gateway keys on the real
// Coder skips.
const UnlicensedSkip = "skipping on the real Coder: AI Gateway keys are a premium feature and no licence was given; " +
	"set " + EnvLicenseFile + " to a Coder licence file (a trial's will do) to run it (test/framework/realcoder/README.md)"
