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

package kind

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The kind run installs CROSSPLANE_VERSION of cluster/local/versions.env,
// the newest release the package supports and the one `make test` runs:
// its binary from cluster/local/build-crossplane.sh, its chart from the
// same module (cluster/local/crossplane), rendered into
// cluster/kind/crossplane-<version>.yaml by `make kind-crossplane`.
const (
	crossplaneModule = "github.com/crossplane/crossplane/v2"
	crossplaneRepo   = "xpkg.crossplane.io/crossplane/crossplane"
)

// CrossplaneVersion is CROSSPLANE_VERSION of cluster/local/versions.env.
func CrossplaneVersion(root string) (string, error) {
	path := filepath.Join(root, "cluster", "local", "versions.env")
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "CROSSPLANE_VERSION="); ok {
			return v, nil
		}
	}
	return "", errors.Join(s.Err(), fmt.Errorf("%s sets no CROSSPLANE_VERSION", path))
}

// CrossplaneImage is the image the chart of version runs: the chart's own
// default, v<appVersion>.
func CrossplaneImage(version string) string { return crossplaneRepo + ":" + version }

// CrossplaneRenderFile is the committed render of version's chart.
func CrossplaneRenderFile(root, version string) string {
	return filepath.Join(root, "cluster", "kind", "crossplane-"+version+".yaml")
}

// RenderCrossplane renders Crossplane's chart as a user installs it: the
// chart of the module that builds the binary, packaged with the release's
// version as Crossplane's release packages it (`helm package --version
// --app-version`, so labels and the image tag are the release's, as on
// charts.crossplane.io), then `helm template` with the chart's defaults
// and the values files given, as `helm install -f` takes them. Helm is
// tools/helm's, from the module proxy.
func RenderCrossplane(ctx context.Context, root, version string, values ...string) ([]byte, error) {
	mod, err := moduleDir(filepath.Join(root, "cluster", "local", "crossplane"), crossplaneModule)
	if err != nil {
		return nil, err
	}
	helmVersion, err := moduleVersion(filepath.Join(root, "tools", "helm"), "helm.sh/helm/v4")
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "crossplane-chart-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	helm := func(args ...string) ([]byte, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "go", append([]string{"tool", "helm"}, args...)...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = filepath.Join(root, "tools", "helm"), &stdout, &stderr
		cmd.Env = append(os.Environ(), "GOWORK=off", "HELM_CACHE_HOME="+tmp, "HELM_CONFIG_HOME="+tmp, "HELM_DATA_HOME="+tmp)
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("helm %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return stdout.Bytes(), nil
	}
	chartVersion := strings.TrimPrefix(version, "v")
	if _, err := helm("package", filepath.Join(mod, "cluster", "charts", "crossplane"),
		"--version", chartVersion, "--app-version", chartVersion, "--destination", tmp); err != nil {
		return nil, err
	}
	args := []string{"template", "crossplane", filepath.Join(tmp, "crossplane-"+chartVersion+".tgz"), "--namespace", ProviderNamespace}
	for _, v := range values {
		args = append(args, "-f", v)
	}
	out, err := helm(args...)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(out, []byte(`image: "`+CrossplaneImage(version)+`"`)) {
		return nil, fmt.Errorf("the chart of %s@%s runs no %s", crossplaneModule, version, CrossplaneImage(version))
	}
	return append([]byte(crossplaneHeader(version, helmVersion)), out...), nil
}

// crossplaneHeader says where the render comes from and how to redo it.
func crossplaneHeader(version, helmVersion string) string {
	v := strings.TrimPrefix(version, "v")
	return fmt.Sprintf(`# Crossplane %[1]s for the kind e2e (make e2e), rendered from the chart in
# the Go module %[3]s@%[1]s (cluster/charts/crossplane)
# with helm %[4]s (tools/helm) as the release packages it and a user installs it:
#
#   helm package <chart> --version %[2]s --app-version %[2]s
#   helm template crossplane crossplane-%[2]s.tgz --namespace %[5]s
#
# with the chart's defaults. test/framework/kind creates the namespace.
# Written by make kind-crossplane (kind.RenderCrossplane); make test fails when it differs.
`, version, v, crossplaneModule, helmVersion, ProviderNamespace)
}

// WriteCrossplaneRender writes the render of CROSSPLANE_VERSION's chart
// and removes any other release's.
func WriteCrossplaneRender(ctx context.Context, root string) error {
	version, err := CrossplaneVersion(root)
	if err != nil {
		return err
	}
	render, err := RenderCrossplane(ctx, root, version)
	if err != nil {
		return err
	}
	file := CrossplaneRenderFile(root, version)
	others, err := filepath.Glob(CrossplaneRenderFile(root, "v*"))
	if err != nil {
		return err
	}
	for _, o := range others {
		if o != file {
			if err := os.Remove(o); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(file, render, 0o644) //nolint:gosec // a file of the repository, as git checks it out
}

// moduleVersion is the version of module that the module in dir requires.
func moduleVersion(dir, module string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", module)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s in %s: %w", module, dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}
