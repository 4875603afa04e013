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

package crossplane

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// capabilities is the capabilities list of package/crossplane.yaml.
var capabilities = regexp.MustCompile(`(?m)^  capabilities:\n(    - .*\n)+`)

// WithoutSafeStart builds, in dir, this machine's architecture's package of
// rel as a release from before SafeStart was: package/crossplane.yaml
// without its capabilities, and rel's runtime image as `make xpkg`
// embedded it. Crossplane makes the managed resource definitions of such a
// package Active, whatever the activation policies say. It returns the
// package file.
func WithoutSafeStart(ctx context.Context, rel Release, dir string) (string, error) {
	root := crds.RepoRoot()
	meta, err := os.ReadFile(filepath.Join(root, "package", "crossplane.yaml"))
	if err != nil {
		return "", err
	}
	if !bytes.Contains(capabilities.Find(meta), []byte("- SafeStart")) {
		return "", fmt.Errorf("package/crossplane.yaml has no capabilities list with SafeStart to remove")
	}
	without := capabilities.ReplaceAll(meta, nil)
	pkg := filepath.Join(dir, "package")
	if err := os.CopyFS(filepath.Join(pkg, "crds"), os.DirFS(filepath.Join(root, "package", "crds"))); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(pkg, "crossplane.yaml"), without, 0o600); err != nil {
		return "", err
	}
	image := filepath.Join(filepath.Dir(rel.Local()), "image-"+runtime.GOARCH+".tar")
	out := filepath.Join(dir, "provider-coder-"+runtime.GOARCH+".xpkg")
	cmd := exec.CommandContext(ctx, "go", "tool", "-modfile="+filepath.Join(root, "tools", "crank", "go.mod"), "crank", "xpkg", "build",
		"--package-root="+pkg, "--examples-root="+filepath.Join(root, "examples"),
		"--embed-runtime-image-tarball="+image, "--package-file="+out)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("crank xpkg build: %w\n%s", err, b)
	}
	return out, nil
}
