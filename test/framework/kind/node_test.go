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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

const etcdPatch = "kind: ClusterConfiguration\netcd:\n  local:\n    imageTag: 3.6.5-0\n"

func TestClusterConfigAddsTheNodeImagesKubeadmPatch(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "..", "cluster", "kind", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	kubelet := "kind: KubeletConfiguration\nfailCgroupV1: false\n"
	cases := map[string]struct {
		base  []byte
		patch string
		// want is the configuration's kubeadmConfigPatches.
		wantPatches []any
		wantErr     string
	}{
		"KindsDefaultImage":  {base: base, wantPatches: []any{kubelet}},
		"OfflineNodeImage":   {base: base, patch: etcdPatch, wantPatches: []any{kubelet, etcdPatch}},
		"NoPatchesInTheBase": {base: []byte("kind: Cluster\n"), patch: etcdPatch, wantPatches: []any{etcdPatch}},
		"PatchIsNotKubeadm":  {base: base, patch: "imageTag: 3.6.5-0\n", wantErr: "not a kubeadm object"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ClusterConfig(tc.base, tc.patch)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ClusterConfig() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				KubeadmConfigPatches []any `json:"kubeadmConfigPatches"`
			}
			if err := yaml.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantPatches, m.KubeadmConfigPatches); diff != "" {
				t.Errorf("kubeadmConfigPatches (-want +got):\n%s", diff)
			}
		})
	}
}
