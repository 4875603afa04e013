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
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// RaceEnabled says whether this binary was built with the race detector, as
// its build information records; BuildProvider and the suites that run `go`
// build with it when so, which reuses the packages this binary's build
// compiled.
func RaceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// BuildProvider builds cmd/provider into dir, with the race detector when
// this test binary has it (the build reuses the test's compiled packages).
func BuildProvider(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "provider")
	args := []string{"build", "-o", bin}
	if RaceEnabled() {
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
