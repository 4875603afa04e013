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
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/crossplane-contrib/provider-coder/cluster/images/oci"
)

// BuildCoderImage writes the fake Coder's image as a docker-archive tarball
// tagged CoderImage (BuildBinaryImage). It serves plain HTTP, so it needs
// no CA certificates.
func BuildCoderImage(root, arch, out string) error {
	return BuildBinaryImage(root, arch, "./test/infrastructure/fakecoder/cmd/fakecoder", CoderImage, out)
}

// BuildBinaryImage writes an image tagged tag as a docker-archive tarball,
// without Docker: one layer with the static binary of the Go package pkg
// (relative to root), its entrypoint, run as 65532.
func BuildBinaryImage(root, arch, pkg, tag, out string) error {
	bin, err := oci.GoBinary(root, pkg, arch)
	if err != nil {
		return err
	}
	path := "/usr/local/bin/" + filepath.Base(pkg)
	img, err := oci.Image(
		oci.Config{Arch: arch, Entrypoint: []string{path}, User: "65532:65532"},
		oci.Layer{Files: []oci.File{{Name: path, Mode: 0o755, Data: bin}}, CreatedBy: "provider-coder test/framework/kind: " + path},
	)
	if err != nil {
		return err
	}
	return oci.WriteTarball(out, tag, img)
}

// BuildCrossplaneImage writes Crossplane's image as a docker-archive tarball
// tagged CrossplaneImage(version), for a cluster that reaches no registry:
// the layout of Crossplane's own image (its Earthfile's image target): the
// binary cluster/local/build-crossplane.sh built, its core CRDs in /crds
// and webhook configurations in /webhookconfigurations, which `crossplane
// core init` applies, run as 65532. crossplaneBin must be built for arch.
func BuildCrossplaneImage(root, arch, version, crossplaneBin, out string) error {
	bin, err := os.ReadFile(crossplaneBin)
	if err != nil {
		return err
	}
	mod, err := moduleDir(filepath.Join(root, "cluster", "local", "crossplane"), crossplaneModule)
	if err != nil {
		return err
	}
	files := []oci.File{{Name: "/usr/local/bin/crossplane", Mode: 0o755, Data: bin}}
	for _, dir := range []string{"crds", "webhookconfigurations"} {
		fs, err := dirFiles(filepath.Join(mod, "cluster", dir), "/"+dir)
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	img, err := oci.Image(
		oci.Config{Arch: arch, Entrypoint: []string{"/usr/local/bin/crossplane"}, User: "65532"},
		oci.Layer{Files: files, CreatedBy: "provider-coder test/framework/kind: Crossplane " + CrossplaneImage(version)},
	)
	if err != nil {
		return err
	}
	return oci.WriteTarball(out, CrossplaneImage(version), img)
}

// moduleDir is where the Go module cache holds module, as the module in dir
// requires it, downloaded if it is not there yet (`go list -m` would name
// no directory for it).
func moduleDir(dir, module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s in %s: %w", module, dir, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod download %s in %s: %w: %s", module, dir, err, out)
	}
	if m.Dir == "" {
		return "", fmt.Errorf("go mod download %s in %s named no directory: %s", module, dir, out)
	}
	return m.Dir, nil
}

// dirFiles reads the regular files of dir, named under prefix.
func dirFiles(dir, prefix string) ([]oci.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []oci.File
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files = append(files, oci.File{Name: prefix + "/" + e.Name(), Mode: 0o644, Data: data})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no files", dir)
	}
	return files, nil
}
