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

// Package oci builds small OCI images without Docker: a static linux binary
// of a package of this module, layers from in-memory files, an image from a
// config and those layers, and a docker-archive tarball of it. Every
// timestamp is fixed, so the same inputs give the same digest.
//
// It does not pull base images and does not push: images start empty, and
// tarballs go to `kind load image-archive` or `crossplane xpkg build`.
package oci

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// epoch is every timestamp in an image: file modification times, layer
// history and the config's creation time.
var epoch = time.Unix(0, 0).UTC()

// GoBinary compiles pkg (for example "./cmd/provider") of the module in
// moduleDir ("" for the working directory) as a static linux binary for arch.
// Each -X of ldX (name=value) sets a string variable, as -ldflags=-X does.
// The binary depends on the sources, the module versions and the Go
// toolchain only, not on the host: -trimpath keeps the checkout's path out
// of it, -buildvcs=false its Git state, and the environment the host may
// set (GOFLAGS, GOAMD64, GOARM64, CGO_ENABLED) is set here.
func GoBinary(moduleDir, pkg, arch string, ldX ...string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "oci-go-build-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin := filepath.Join(dir, path.Base(pkg))

	ldflags := "-s -w"
	for _, x := range ldX {
		ldflags += " -X " + x
	}
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+ldflags, "-o", bin, pkg)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), BuildEnv(arch)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cannot build %s for linux/%s: %w: %s", pkg, arch, err, out)
	}
	return os.ReadFile(bin)
}

// BuildEnv is the environment GoBinary adds to the host's for arch: what
// the host could set differently, set to Go's defaults (the baseline
// instruction sets, so the binary runs on every CPU of its architecture).
func BuildEnv(arch string) []string {
	return []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + arch, "GOFLAGS=-mod=readonly", "GOAMD64=v1", "GOARM64=v8.0"}
}

// File is a regular file in a layer.
type File struct {
	// Name is the path inside the image; a leading slash is dropped.
	Name string
	Mode int64
	Data []byte
}

// NewLayer writes files, plus directory entries (mode 0755) for their
// parents, as one uncompressed USTAR layer in name order, owned by root, with
// every time set to the Unix epoch. The order of files does not matter; a
// later file replaces an earlier one of the same name.
func NewLayer(files []File) (v1.Layer, error) {
	type entry struct {
		File
		dir bool
	}
	all := map[string]entry{}
	for _, f := range files {
		f.Name = strings.TrimPrefix(f.Name, "/")
		all[f.Name] = entry{File: f}
		for dir := path.Dir(f.Name); dir != "."; dir = path.Dir(dir) {
			if _, ok := all[dir]; !ok {
				all[dir] = entry{File: File{Name: dir, Mode: 0o755}, dir: true}
			}
		}
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		e := all[n]
		hdr := &tar.Header{Name: e.Name, Mode: e.Mode, ModTime: epoch, Format: tar.FormatUSTAR}
		if e.dir {
			hdr.Typeflag, hdr.Name = tar.TypeDir, e.Name+"/"
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.Data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("cannot write layer entry %s: %w", e.Name, err)
		}
		if _, err := tw.Write(e.Data); err != nil {
			return nil, fmt.Errorf("cannot write layer entry %s: %w", e.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithCompressedCaching)
}

// Config is what an image records about how to run it. The OS is always
// linux.
type Config struct {
	Arch       string
	Entrypoint []string
	User       string
	Env        []string
	WorkingDir string
	// Labels go into the image config, for example the OCI annotations
	// org.opencontainers.image.version and .source.
	Labels map[string]string
}

// Layer is one layer of an image and the history line that says what it adds.
type Layer struct {
	Files     []File
	CreatedBy string
}

// Image assembles an image from cfg and layers, bottom layer first.
func Image(cfg Config, layers ...Layer) (v1.Image, error) {
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: cfg.Arch,
		OS:           "linux",
		Created:      v1.Time{Time: epoch},
		RootFS:       v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: cfg.Entrypoint,
			User:       cfg.User,
			Env:        cfg.Env,
			WorkingDir: cfg.WorkingDir,
			Labels:     cfg.Labels,
		},
	})
	if err != nil {
		return nil, err
	}
	for _, l := range layers {
		layer, err := NewLayer(l.Files)
		if err != nil {
			return nil, err
		}
		img, err = mutate.Append(img, mutate.Addendum{
			Layer:   layer,
			History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: l.CreatedBy},
		})
		if err != nil {
			return nil, err
		}
	}
	return img, nil
}

// WriteTarball writes img to out as a docker-archive tarball tagged ref, the
// format of `docker save`, `docker load` and `kind load image-archive`. It
// creates out's directory if needed.
func WriteTarball(out, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("cannot parse image reference %q: %w", ref, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o750); err != nil {
		return fmt.Errorf("cannot create the directory of %s: %w", out, err)
	}
	if err := tarball.WriteToFile(out, tag, img); err != nil {
		return fmt.Errorf("cannot write image %s: %w", out, err)
	}
	return nil
}
