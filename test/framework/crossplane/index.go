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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// IndexDir is where `make xpkg` writes the multi-arch index, in its
// output directory: an OCI image layout.
const IndexDir = "provider-coder.oci"

// Make is `make -C root args...` with this process's environment less
// the outer make's job server: the tests may themselves run under make,
// and the inner make is not part of that one.
func Make(ctx context.Context, root string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "make", append([]string{"-C", root}, args...)...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// LocalIndex is the multi-arch index `make xpkg` wrote into dir: the one
// image index its layout's index.json names, which must be as tag.
func LocalIndex(dir, tag string) (v1.ImageIndex, error) {
	p, err := layout.FromPath(filepath.Join(dir, IndexDir))
	if err != nil {
		return nil, err
	}
	top, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != tag {
		return nil, fmt.Errorf("index.json of %s: %+v, want one index named %s", IndexDir, im.Manifests, tag)
	}
	return top.ImageIndex(im.Manifests[0].Digest)
}

// ConfigsByPlatform are the config digests of idx's images by their
// platform, "os/arch": which package each platform gets.
func ConfigsByPlatform(idx v1.ImageIndex) (map[string]v1.Hash, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	out := map[string]v1.Hash{}
	for _, m := range im.Manifests {
		if m.Platform == nil {
			return nil, fmt.Errorf("manifest %s has no platform", m.Digest)
		}
		img, err := idx.Image(m.Digest)
		if err != nil {
			return nil, err
		}
		if out[m.Platform.OS+"/"+m.Platform.Architecture], err = img.ConfigName(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
