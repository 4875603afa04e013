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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/crossplane-contrib/provider-coder/cluster/images/oci"
)

// coderBinary is the fake Coder's path in its image.
const coderBinary = "/usr/local/bin/fakecoder"

// BuildCoderImage writes the fake Coder's image as a docker-archive tarball
// tagged CoderImage, without Docker: one layer with the static binary of
// test/infrastructure/fakecoder/cmd/fakecoder, run as 65532. It serves plain HTTP, so it
// needs no CA certificates.
func BuildCoderImage(root, arch, out string) error {
	bin, err := oci.GoBinary(root, "./test/infrastructure/fakecoder/cmd/fakecoder", arch)
	if err != nil {
		return err
	}
	img, err := oci.Image(
		oci.Config{Arch: arch, Entrypoint: []string{coderBinary}, User: "65532:65532"},
		oci.Layer{Files: []oci.File{{Name: coderBinary, Mode: 0o755, Data: bin}}, CreatedBy: "provider-coder test/framework/kind: " + coderBinary},
	)
	if err != nil {
		return err
	}
	return oci.WriteTarball(out, CoderImage, img)
}

// UnpackXpkg prepares a .xpkg for a cluster without a registry: the image,
// tagged PackageImage, for `kind load image-archive` (the xpkg embeds the
// provider's runtime image), and the package's package.yaml, gzipped where
// Crossplane's package cache in cacheDir looks for PackageRef(digest). It
// returns digest, the image's as a registry would serve it.
func UnpackXpkg(xpkg, imageOut, cacheDir string) (digest string, err error) {
	img, err := tarball.ImageFromPath(xpkg, nil)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", xpkg, err)
	}
	d, err := img.Digest()
	if err != nil {
		return "", fmt.Errorf("%s: %w", xpkg, err)
	}
	if err := oci.WriteTarball(imageOut, PackageImage, img); err != nil {
		return "", err
	}
	pkg, err := packageYAML(img)
	if err != nil {
		return "", fmt.Errorf("%s: %w", xpkg, err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write(pkg); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return d.String(), writeReadable(cacheDir, CachePath(cacheDir, PackageCacheID(d.String())), gz.Bytes())
}

// Modes of the package cache. Crossplane runs as uid 65532 in the kind node,
// not as the user who ran `make e2e`, so it reads the cache as "other".
const (
	cacheDirMode  os.FileMode = 0o755
	cacheFileMode os.FileMode = 0o644
)

// writeReadable writes path, under root, readable by any user: each
// directory from root down to path's and the file itself are set to their
// mode after they exist, since the user's umask (0o077 is common) masks the
// mode MkdirAll and WriteFile create with, and an existing file keeps its
// own.
func writeReadable(root, path string, data []byte) error {
	dir := filepath.Dir(path)
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not under %s", path, root)
	}
	if err := os.MkdirAll(dir, cacheDirMode); err != nil {
		return err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if err := os.Chmod(d, cacheDirMode); err != nil {
			return err
		}
		if d == filepath.Clean(root) {
			break
		}
	}
	if err := os.WriteFile(path, data, cacheFileMode); err != nil {
		return err
	}
	return os.Chmod(path, cacheFileMode)
}

// packageYAML finds package.yaml, the package's meta and CRDs, in the image.
func packageYAML(img v1.Image) ([]byte, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no package.yaml in the package image")
		}
		if err != nil {
			return nil, err
		}
		if filepath.Clean(h.Name) == "package.yaml" {
			return io.ReadAll(tr)
		}
	}
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
