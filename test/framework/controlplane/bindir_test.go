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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheBinDirIsWhereBuildShBuilds: the tests look for the binaries
// where cluster/local/build.sh puts them, which a change to its build
// module or to the script moves.
func TestCacheBinDirIsWhereBuildShBuilds(t *testing.T) {
	versions, err := findVersionsFile()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(filepath.Dir(versions), "build.sh"), "--print-dir").Output()
	if err != nil {
		t.Fatalf("build.sh --print-dir: %v", err)
	}
	got, err := cacheBinDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("the tests look for the control plane in %s; build.sh builds it into %s", got, want)
	}
}
