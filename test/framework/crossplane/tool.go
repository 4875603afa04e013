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
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// GoTool is the path of the tool name that tools/<name>/go.mod pins, as
// `go tool -n` builds it (once, then from Go's build cache): crank, the
// Crossplane CLI, or helm.
func GoTool(ctx context.Context, root, name string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "tool", "-n", "-modfile="+filepath.Join(root, "tools", name, "go.mod"), name)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("cannot build %s from tools/%s: %w: %s", name, name, err, stderr)
	}
	return strings.TrimSpace(string(out)), nil
}
