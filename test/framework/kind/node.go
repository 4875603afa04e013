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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// NodeImage is the node image kind creates its node from when it is not
// kind's default: the offline build of cluster/kind/node/build.sh.
type NodeImage struct {
	// Ref is the image in the engine's store (`kind create cluster --image`).
	Ref string
	// KubeadmPatch is the ClusterConfiguration patch that points kubeadm
	// at the etcd and CoreDNS tags the image holds (`build.sh
	// --kubeadm-patch`); kubeadm's defaults name other versions.
	KubeadmPatch string
}

// buildNodeImage runs cluster/kind/node/build.sh: cached after the first
// build, it prints the image's reference as its last line.
func (r *runner) buildNodeImage(ctx context.Context) error {
	script := filepath.Join(r.o.Root, "cluster", "kind", "node", "build.sh")
	out := func(args ...string) (string, error) {
		var stdout bytes.Buffer
		cmd := exec.CommandContext(ctx, script, args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = r.o.Root, &stdout, r.o.Out
		cmd.Env = os.Environ()
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s %s: %w", script, strings.Join(args, " "), err)
		}
		return stdout.String(), nil
	}
	built, err := out()
	if err != nil {
		return err
	}
	if r.node.Ref = lastLine(built); r.node.Ref == "" {
		return fmt.Errorf("%s printed no image reference", script)
	}
	r.node.KubeadmPatch, err = out("--kubeadm-patch")
	return err
}

// ClusterConfig is kind's cluster configuration for a run: base
// (cluster/kind/config.yaml) with, when the node image needs one, a kubeadm
// patch added to kubeadmConfigPatches.
func ClusterConfig(base []byte, kubeadmPatch string) ([]byte, error) {
	cfg := base
	if strings.TrimSpace(kubeadmPatch) == "" {
		return cfg, nil
	}
	var m map[string]any
	if err := yaml.Unmarshal(cfg, &m); err != nil {
		return nil, fmt.Errorf("the kind configuration: %w", err)
	}
	var patch map[string]any
	if err := yaml.Unmarshal([]byte(kubeadmPatch), &patch); err != nil || patch["kind"] == nil {
		return nil, fmt.Errorf("the node image's kubeadm patch is not a kubeadm object: %q", kubeadmPatch)
	}
	patches, _ := m["kubeadmConfigPatches"].([]any)
	m["kubeadmConfigPatches"] = append(patches, kubeadmPatch)
	return yaml.Marshal(m)
}
