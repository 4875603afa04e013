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

package oci

import (
	"archive/tar"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

var (
	passwd = File{Name: "etc/passwd", Mode: 0o644, Data: []byte("nonroot:x:65532:65532::/home/nonroot:/sbin/nologin\n")}
	certs  = File{Name: "etc/ssl/certs/ca-certificates.crt", Mode: 0o644, Data: []byte("certificates")}
	binary = File{Name: "/usr/local/bin/provider", Mode: 0o755, Data: []byte("\x7fELF")}
)

func TestLayerDigestDoesNotDependOnFileOrder(t *testing.T) {
	want := layerDigest(t, []File{passwd, certs, binary})
	for _, files := range [][]File{
		{binary, certs, passwd},
		{certs, binary, passwd},
	} {
		if got := layerDigest(t, files); got != want {
			t.Errorf("layer of %s, %s, %s = %s, want %s", files[0].Name, files[1].Name, files[2].Name, got, want)
		}
	}

	changed := binary
	changed.Data = []byte("\x7fELF2")
	if got := layerDigest(t, []File{passwd, certs, changed}); got == want {
		t.Errorf("layer digest %s did not change with a file's contents", got)
	}
}

func TestLayerHasParentDirectoriesInNameOrderOwnedByRoot(t *testing.T) {
	layer, err := NewLayer([]File{binary, certs, passwd})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layer.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()

	type entry struct {
		Name string
		Type byte
		Mode int64
	}
	want := []entry{
		{"etc/", tar.TypeDir, 0o755},
		{"etc/passwd", tar.TypeReg, 0o644},
		{"etc/ssl/", tar.TypeDir, 0o755},
		{"etc/ssl/certs/", tar.TypeDir, 0o755},
		{"etc/ssl/certs/ca-certificates.crt", tar.TypeReg, 0o644},
		{"usr/", tar.TypeDir, 0o755},
		{"usr/local/", tar.TypeDir, 0o755},
		{"usr/local/bin/", tar.TypeDir, 0o755},
		{"usr/local/bin/provider", tar.TypeReg, 0o755},
	}
	var got []entry
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, entry{h.Name, h.Typeflag, h.Mode})
		if h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(epoch) {
			t.Errorf("%s: uid %d gid %d mtime %s, want 0, 0, %s", h.Name, h.Uid, h.Gid, h.ModTime, epoch)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layer entries (-want +got):\n%s", diff)
	}
}

func TestImageRecordsConfigAndOneHistoryLinePerLayer(t *testing.T) {
	cfg := Config{Arch: "arm64", Entrypoint: []string{"/usr/local/bin/provider"}, User: "65532:65532", Env: []string{"PATH=/bin"}, WorkingDir: "/"}
	img, err := Image(cfg,
		Layer{Files: []File{passwd, certs}, CreatedBy: "base"},
		Layer{Files: []File{binary}, CreatedBy: "binary"},
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Config{Entrypoint: cfg.Entrypoint, User: cfg.User, Env: cfg.Env, WorkingDir: cfg.WorkingDir}
	if diff := cmp.Diff(want, got.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if got.OS != "linux" || got.Architecture != "arm64" || !got.Created.Equal(epoch) {
		t.Errorf("image %s/%s created %s, want linux/arm64 created %s", got.OS, got.Architecture, got.Created, epoch)
	}
	var history []string
	for _, h := range got.History {
		history = append(history, h.CreatedBy)
	}
	if diff := cmp.Diff([]string{"base", "binary"}, history); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if n := len(got.RootFS.DiffIDs); n != 2 {
		t.Errorf("%d layers, want 2", n)
	}
}

func layerDigest(t *testing.T, files []File) v1.Hash {
	t.Helper()
	layer, err := NewLayer(files)
	if err != nil {
		t.Fatal(err)
	}
	d, err := layer.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
