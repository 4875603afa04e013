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

// Package xpkg builds the provider's image and Crossplane package with
// `make xpkg`, the command a release runs, and checks what a cluster would
// install: the Provider metadata and every CRD of package/, and a runtime
// image that runs the static provider binary as a non-root user with CA
// certificates and nothing else.
package xpkg

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/x509"
	"debug/elf"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/crossplane-contrib/provider-coder/test/crds"
)

// The Makefile's defaults: the test builds what `make xpkg` builds.
const (
	arch      = "amd64"
	imageFile = "image-" + arch + ".tar"
	xpkgFile  = "provider-coder-" + arch + ".xpkg"

	// The CA bundle the image builder reads by default.
	hostCerts = "/etc/ssl/certs/ca-certificates.crt"
)

// The files of the runtime image, and the two crank adds for the package.
var (
	imageFiles   = []string{"etc/group", "etc/nsswitch.conf", "etc/passwd", "etc/ssl/certs/ca-certificates.crt", "usr/local/bin/provider"}
	packageFiles = []string{".up/examples.yaml", "package.yaml"}
)

// first is the first `make xpkg` of this test binary, shared by the tests.
var first struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if first.dir != "" {
		_ = os.RemoveAll(first.dir)
	}
	os.Exit(code)
}

// makeXpkg runs `make xpkg` with its output in dir and returns how long it took.
func makeXpkg(root, dir string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command("make", "-C", root, "xpkg", "OUTPUT_DIR="+dir)
	// This test may itself run under make; the inner make is not part of the
	// outer one's job server.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, errors.New("make xpkg: " + err.Error() + "\n" + string(out))
	}
	return time.Since(start), nil
}

// built returns the output directory of the first `make xpkg`.
func built(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the provider image and the Crossplane package; not in -short")
	}
	first.once.Do(func() {
		dir, err := os.MkdirTemp("", "provider-coder-xpkg-")
		if err != nil {
			first.err = err
			return
		}
		first.dir = dir
		took, err := makeXpkg(crds.RepoRoot(), dir)
		first.err = err
		t.Logf("make xpkg took %s", took.Round(time.Second))
	})
	if first.err != nil {
		t.Fatal(first.err)
	}
	return first.dir
}

func TestPackageCarriesCrossplaneYAMLAndEveryCRDOnce(t *testing.T) {
	root := crds.RepoRoot()
	img := readImage(t, filepath.Join(built(t), xpkgFile))
	docs := packageStream(t, img)
	if len(docs) == 0 {
		t.Fatal("package.yaml is empty")
	}

	t.Run("Provider metadata is crossplane.yaml's", func(t *testing.T) {
		var want, got map[string]any
		readYAML(t, filepath.Join(root, "package", "crossplane.yaml"), &want)
		if err := yaml.Unmarshal(docs[0], &got); err != nil {
			t.Fatal(err)
		}
		// Not spec.controller: Crossplane v2's meta Provider has no such
		// field, and crank drops it.
		for _, field := range [][]string{
			{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "annotations"},
			{"spec", "crossplane"}, {"spec", "dependsOn"}, {"spec", "capabilities"},
		} {
			if diff := cmp.Diff(lookup(want, field...), lookup(got, field...)); diff != "" {
				t.Errorf("package.yaml's Provider %s differs from crossplane.yaml (-file +package):\n%s", strings.Join(field, "."), diff)
			}
		}
		if v, _ := lookup(got, "spec", "crossplane", "version").(string); !strings.HasPrefix(v, ">=v2.") {
			t.Errorf("spec.crossplane.version = %q, want a constraint requiring Crossplane v2", v)
		}
	})

	t.Run("every CRD of package/crds once, same schema", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(root, "package", "crds", "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no CRDs in package/crds (%v)", err)
		}
		want := map[string]extv1.CustomResourceDefinition{}
		for _, f := range files {
			var crd extv1.CustomResourceDefinition
			readYAML(t, f, &crd)
			want[crd.Name] = crd
		}
		got := map[string][]extv1.CustomResourceDefinition{}
		for i, doc := range docs[1:] {
			var crd extv1.CustomResourceDefinition
			if err := yaml.Unmarshal(doc, &crd); err != nil {
				t.Fatalf("object %d of package.yaml: %v", i+1, err)
			}
			if crd.Kind != "CustomResourceDefinition" {
				t.Errorf("object %d of package.yaml is a %s %q, want only CRDs after the Provider", i+1, crd.Kind, crd.Name)
				continue
			}
			got[crd.Name] = append(got[crd.Name], crd)
		}
		for name, w := range want {
			g := got[name]
			if len(g) != 1 {
				t.Errorf("CRD %s appears %d times in package.yaml, want once", name, len(g))
				continue
			}
			if diff := cmp.Diff(w.Spec, g[0].Spec); diff != "" {
				t.Errorf("CRD %s in package.yaml differs from package/crds (-file +package):\n%s", name, diff)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("package.yaml has CRD %s, which package/crds does not", name)
			}
		}
	})
}

func TestRuntimeImageRunsStaticProviderAsNonRootWithCACertificates(t *testing.T) {
	dir := built(t)
	image := readImage(t, filepath.Join(dir, imageFile))
	pkg := readImage(t, filepath.Join(dir, xpkgFile))

	t.Run("the package embeds the image's layers", func(t *testing.T) {
		il, pl := layerDigests(t, image), layerDigests(t, pkg)
		if len(pl) < len(il) || !cmp.Equal(il, pl[:len(il)]) {
			t.Errorf("package layers %v do not start with the image's layers %v", pl, il)
		}
	})

	// Crossplane runs the package image itself when it embeds a runtime.
	cfg, err := pkg.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	files := fileSystem(t, pkg)

	t.Run("only the provider, /etc files and certificates; no shell", func(t *testing.T) {
		want := append(append([]string{}, imageFiles...), packageFiles...)
		sort.Strings(want)
		var got []string
		for name, f := range files {
			if f.hdr.Typeflag != tar.TypeDir {
				got = append(got, name)
			}
		}
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("files in the package image (-want +got):\n%s", diff)
		}
	})

	// Crossplane's default provider Deployment runs as uid 2000, not the
	// image's user, so every file must work for any uid.
	t.Run("files readable, provider executable, by any uid", func(t *testing.T) {
		for _, name := range imageFiles {
			want := int64(0o444)
			if name == "usr/local/bin/provider" {
				want = 0o555
			}
			if mode := files[name].hdr.Mode; mode&want != want {
				t.Errorf("%s: mode %o, want at least %o", name, mode, want)
			}
		}
	})

	t.Run("entrypoint is a static linux binary of the configured arch", func(t *testing.T) {
		if cfg.OS != "linux" || cfg.Architecture != arch {
			t.Errorf("image platform = %s/%s, want linux/%s", cfg.OS, cfg.Architecture, arch)
		}
		if len(cfg.Config.Entrypoint) != 1 {
			t.Fatalf("entrypoint = %q, want the provider binary alone", cfg.Config.Entrypoint)
		}
		f, ok := files[strings.TrimPrefix(cfg.Config.Entrypoint[0], "/")]
		if !ok {
			t.Fatalf("entrypoint %s is not in the image", cfg.Config.Entrypoint[0])
		}
		if f.hdr.Mode&0o111 == 0 {
			t.Errorf("entrypoint mode = %o, want executable", f.hdr.Mode)
		}
		bin, err := elf.NewFile(bytes.NewReader(f.data))
		if err != nil {
			t.Fatalf("entrypoint is not an ELF binary: %v", err)
		}
		if bin.Machine != elf.EM_X86_64 {
			t.Errorf("entrypoint machine = %s, want %s", bin.Machine, elf.EM_X86_64)
		}
		for _, p := range bin.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("entrypoint has a dynamic loader (PT_INTERP); want a static binary")
			}
		}
		if libs, err := bin.ImportedLibraries(); err != nil || len(libs) > 0 {
			t.Errorf("entrypoint needs shared libraries %v (%v); want none", libs, err)
		}
	})

	t.Run("user is the non-root user of /etc/passwd", func(t *testing.T) {
		uid, gid, _ := strings.Cut(cfg.Config.User, ":")
		if uid == "" || uid == "0" || gid == "0" {
			t.Fatalf("image user = %q, want a numeric non-root uid:gid", cfg.Config.User)
		}
		var entry string
		for line := range strings.SplitSeq(string(files["etc/passwd"].data), "\n") {
			if fields := strings.Split(line, ":"); len(fields) == 7 && fields[2] == uid {
				entry = line
				if fields[3] != gid {
					t.Errorf("/etc/passwd gives uid %s group %s, image user has group %s", uid, fields[3], gid)
				}
			}
		}
		if entry == "" {
			t.Errorf("/etc/passwd has no entry for uid %s:\n%s", uid, files["etc/passwd"].data)
		}
	})

	t.Run("CA certificates are the build host's bundle", func(t *testing.T) {
		want, err := os.ReadFile(hostCerts)
		if err != nil {
			t.Fatal(err)
		}
		got := files["etc/ssl/certs/ca-certificates.crt"].data
		if !bytes.Equal(want, got) {
			t.Fatalf("/etc/ssl/certs/ca-certificates.crt (%d bytes) is not %s (%d bytes)", len(got), hostCerts, len(want))
		}
		n := 0
		for rest := got; ; n++ {
			var block *pem.Block
			if block, rest = pem.Decode(rest); block == nil {
				break
			}
			if _, err := x509.ParseCertificate(block.Bytes); err != nil {
				t.Errorf("certificate %d: %v", n, err)
			}
		}
		if n == 0 {
			t.Error("no certificate in /etc/ssl/certs/ca-certificates.crt")
		}
		t.Logf("%d CA certificates", n)
	})
}

func TestImageAndPackageBuildsAreReproducible(t *testing.T) {
	dir1 := built(t)
	dir2 := t.TempDir()
	took, err := makeXpkg(crds.RepoRoot(), dir2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second make xpkg took %s", took.Round(time.Second))

	for _, file := range []string{imageFile, xpkgFile} {
		a, b := readImage(t, filepath.Join(dir1, file)), readImage(t, filepath.Join(dir2, file))
		da, db := digest(t, a), digest(t, b)
		if da != db {
			t.Errorf("%s: first build %s, second build %s; layers %v and %v",
				file, da, db, layerDigests(t, a), layerDigests(t, b))
			continue
		}
		t.Logf("%s: %s in both builds", file, da)
	}
	if fi, err := os.Stat(filepath.Join(dir2, xpkgFile)); err == nil {
		t.Logf("%s: %d bytes", xpkgFile, fi.Size())
	}
}

func readImage(t *testing.T, path string) v1.Image {
	t.Helper()
	img, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatalf("cannot open %s: %v", path, err)
	}
	return img
}

func digest(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func layerDigests(t *testing.T, img v1.Image) []string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	ds := make([]string, 0, len(layers))
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d.String())
	}
	return ds
}

// packageStream returns the YAML documents of package.yaml in the layer the
// package's config labels "base", the way Crossplane finds it.
func packageStream(t *testing.T, img v1.Image) [][]byte {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var stream []byte
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Config.Labels["io.crossplane.xpkg:"+d.String()] != "base" {
			continue
		}
		if stream != nil {
			t.Fatal("more than one layer labelled as the package layer")
		}
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		stream = tarFile(t, rc, "package.yaml")
		_ = rc.Close()
	}
	if stream == nil {
		t.Fatal("no layer labelled io.crossplane.xpkg=base")
	}
	var docs [][]byte
	r := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(stream)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(doc)) > 0 && string(bytes.TrimSpace(doc)) != "---" {
			docs = append(docs, doc)
		}
	}
}

func tarFile(t *testing.T, r io.Reader, name string) []byte {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err != nil {
			t.Fatalf("no %s in the layer: %v", name, err)
		}
		if hdr.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

type entry struct {
	hdr  *tar.Header
	data []byte
}

// fileSystem flattens img's layers into its file system.
func fileSystem(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	rc := mutate.Extract(img)
	defer func() { _ = rc.Close() }()
	files := map[string]entry{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimSuffix(strings.TrimPrefix(hdr.Name, "/"), "/")] = entry{hdr: hdr, data: data}
	}
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func lookup(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}
