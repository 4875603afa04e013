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

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTenantNamesReachOnlyTheNamespacedKinds runs, with the real kubectl
// and API server, the names the docs give a tenant: the short names and the
// category coder reach the namespaced kinds of the namespace, and nothing
// cluster-scoped.
func TestTenantNamesReachOnlyTheNamespacedKinds(t *testing.T) {
	if env.ControlPlane == nil {
		t.Skip("needs the local control plane's kubectl")
	}
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	timeToReady(t, ns, "gateway")
	want := []string{"aigatewaykey.ai.coder.m.crossplane.io/gateway", "providerconfig.coder.m.crossplane.io/default"}
	for _, args := range [][]string{{"get", "coder"}, {"get", "gwkeys,aiprovs,coderpcs"}} {
		out := kubectl(t, append([]string{"-n", ns, "-o", "name"}, args...)...)
		got := strings.Fields(out)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("kubectl -n %s %s -o name = %v, want %v", ns, strings.Join(args, " "), got, want)
		}
	}
	if out := kubectl(t, "api-resources", "--categories=coder", "--namespaced=false", "-o", "name"); out != "" {
		t.Errorf("the category coder holds cluster-scoped kinds: %s", out)
	}
}

// kubectl runs the control plane's kubectl as an admin.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	k := env.ControlPlane.Kubectl()
	cmd := exec.Command(k.Path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.ControlPlane.KubeconfigPath, "PATH="+filepath.Dir(k.Path)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
