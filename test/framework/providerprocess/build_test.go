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

package providerprocess

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRaceEnabledIsWhatTheBinaryRecords reads this test binary's build
// settings with `go version -m`, as a reader of the binary would, and holds
// RaceEnabled to them.
func TestRaceEnabledIsWhatTheBinaryRecords(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool(), "version", "-m", self).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	recorded := strings.Contains(string(out), "\tbuild\t-race=true\n")
	if got := RaceEnabled(); got != recorded {
		t.Errorf("RaceEnabled() = %t, but the binary records -race=%t:\n%s", got, recorded, out)
	}
}
