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

// Package xpkg builds the provider's images and Crossplane packages with
// `make xpkg`, the command a release runs, and checks what a cluster would
// install: the Provider metadata and every CRD of package/, a runtime image
// per architecture that runs the static provider binary of that release as
// a non-root user with Go's pinned CA roots and nothing else, a multi-arch
// index of both, and the same bytes when another host builds them.
package xpkg

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"debug/buildinfo"
	"debug/elf"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"golang.org/x/crypto/x509roots/fallback/bundle"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
)

// What the tests build: `make xpkg` with its default architectures, as a
// release.
const (
	version   = "v0.0.0-xpkgtest"
	arch      = "amd64"
	imageFile = "image-" + arch + ".tar"
	xpkgFile  = "provider-coder-" + arch + ".xpkg"
)

// arches are the architectures `make xpkg` builds by default, with the ELF
// machine of each one's provider binary.
var arches = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

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

// makeXpkg runs `make xpkg` of the tree root as VERSION version with its
// output in dir, with env added to this process's environment, and returns
// how long it took.
func makeXpkg(root, dir string, env ...string) (time.Duration, error) {
	start := time.Now()
	cmd := crossplane.Make(context.Background(), root, "xpkg", "OUTPUT_DIR="+dir, "VERSION="+version)
	cmd.Env = append(cmd.Env, env...)
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
		v, _ := lookup(got, "spec", "crossplane", "version").(string)
		if want := testedRange(t, root); v != want {
			t.Errorf("spec.crossplane.version = %q, want %q: from the floor release make crossplane-floor runs to the next minor of the release make test runs", v, want)
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
	for arch, machine := range arches {
		t.Run(arch, func(t *testing.T) { runtimeImage(t, dir, arch, machine) })
	}
}

func runtimeImage(t *testing.T, dir, arch string, machine elf.Machine) {
	image := readImage(t, filepath.Join(dir, "image-"+arch+".tar"))
	pkg := readImage(t, filepath.Join(dir, "provider-coder-"+arch+".xpkg"))

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
		if bin.Machine != machine {
			t.Errorf("entrypoint machine = %s, want %s", bin.Machine, machine)
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

	t.Run("the provider is this release's, built for any host of its architecture", func(t *testing.T) {
		if got := cfg.Config.Labels["org.opencontainers.image.version"]; got != version {
			t.Errorf("label org.opencontainers.image.version = %q, want %q", got, version)
		}
		bin := files["usr/local/bin/provider"].data
		bi, err := buildinfo.Read(bytes.NewReader(bin))
		if err != nil {
			t.Fatal(err)
		}
		settings := map[string]string{}
		for _, st := range bi.Settings {
			settings[st.Key] = st.Value
		}
		// -trimpath leaves -ldflags out of the build settings; the string
		// -X set is in the binary's data.
		if !bytes.Contains(bin, []byte(version)) {
			t.Errorf("the provider binary does not hold its version %q (internal/version.Version)", version)
		}
		want := map[string]string{"-trimpath": "true", "CGO_ENABLED": "0", "GOOS": "linux", "GOARCH": arch}
		if arch == "amd64" {
			want["GOAMD64"] = "v1"
		}
		for k, v := range want {
			if settings[k] != v {
				t.Errorf("build setting %s = %q, want %q", k, settings[k], v)
			}
		}
		if _, ok := settings["vcs.revision"]; ok {
			t.Error("the binary records the checkout's Git state (vcs.revision); a copy of the same sources must build the same bytes")
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

	t.Run("CA certificates are Go's fallback roots that go.sum pins", func(t *testing.T) {
		got := files["etc/ssl/certs/ca-certificates.crt"].data
		var want []byte
		for r := range bundle.Roots() {
			if r.Constraint == nil {
				want = append(want, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate})...)
			}
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("/etc/ssl/certs/ca-certificates.crt (%d bytes) is not the fallback roots without constraints (%d bytes)", len(got), len(want))
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
		if n < 100 {
			t.Errorf("%d certificates in /etc/ssl/certs/ca-certificates.crt, want Mozilla's (over 100)", n)
		}
		t.Logf("%d CA certificates", n)
	})
}

// TestTheIndexHoldsEveryArchitecturesPackage checks the multi-arch index
// `make xpkg` writes: one manifest per architecture, each the package file
// of that architecture (its config), in a layout any OCI tool can push.
func TestTheIndexHoldsEveryArchitecturesPackage(t *testing.T) {
	dir := built(t)
	got, err := crossplane.ConfigsByPlatform(index(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]v1.Hash{}
	for arch := range arches {
		if want["linux/"+arch], err = readImage(t, filepath.Join(dir, "provider-coder-"+arch+".xpkg")).ConfigName(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the index's packages by platform, as config digests (-package files +index):\n%s", diff)
	}
}

// TestImageAndPackageBuildsAreReproducible builds the release a second time
// as another host would: from a copy of the sources at another path, with
// the host's CA bundle pointed elsewhere, a newer amd64 level and another
// time zone. Every image, package and the index must have the same digest.
func TestImageAndPackageBuildsAreReproducible(t *testing.T) {
	dir1 := built(t)
	src := copySources(t, crds.RepoRoot())
	other := filepath.Join(t.TempDir(), "certs.pem")
	if err := os.WriteFile(other, []byte(selfSignedPEM(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	dir2 := t.TempDir()
	took, err := makeXpkg(src, dir2, "SSL_CERT_FILE="+other, "GOAMD64=v3", "TZ=Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second make xpkg (another path, another host's settings) took %s", took.Round(time.Second))

	var files []string
	for arch := range arches {
		files = append(files, "image-"+arch+".tar", "provider-coder-"+arch+".xpkg")
	}
	sort.Strings(files)
	for _, file := range files {
		a, b := readImage(t, filepath.Join(dir1, file)), readImage(t, filepath.Join(dir2, file))
		da, db := digest(t, a), digest(t, b)
		if da != db {
			t.Errorf("%s: first build %s, second build %s; layers %v and %v",
				file, da, db, layerDigests(t, a), layerDigests(t, b))
			continue
		}
		t.Logf("%s: %s in both builds", file, da)
	}
	da, err := index(t, dir1).Digest()
	if err != nil {
		t.Fatal(err)
	}
	db, err := index(t, dir2).Digest()
	if err != nil {
		t.Fatal(err)
	}
	if da != db {
		t.Errorf("index: first build %s, second build %s", da, db)
	} else {
		t.Logf("index: %s in both builds", da)
	}
	if fi, err := os.Stat(filepath.Join(dir2, xpkgFile)); err == nil {
		t.Logf("%s: %d bytes", xpkgFile, fi.Size())
	}
}

// index is the multi-arch index `make xpkg` wrote into dir.
func index(t *testing.T, dir string) v1.ImageIndex {
	t.Helper()
	idx, err := crossplane.LocalIndex(dir, version)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// copySources copies the files Git tracks or would track (not ignored) of
// root to a new directory and returns it: the same sources at another path,
// without the checkout's Git state.
func copySources(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "elsewhere", "provider-coder")
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, name)), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// selfSignedPEM is a CA certificate no image should carry.
func selfSignedPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another host's root"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
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

// testedRange is the Crossplane version constraint the tests cover: from
// the oldest Crossplane release a test installs the package on
// (versions.env's CROSSPLANE_FLOOR_VERSION, `make crossplane-floor`) to the
// next minor of the newest (CROSSPLANE_VERSION, `make test`), pre-releases
// of which are not admitted.
func testedRange(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "cluster", "local", "versions.env"))
	if err != nil {
		t.Fatal(err)
	}
	pin := func(key string) []string {
		m := regexp.MustCompile(`(?m)^` + key + `=(v(\d+)\.(\d+)\.\d+)$`).FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("no %s=vX.Y.Z in versions.env", key)
		}
		return m
	}
	floor, newest := pin("CROSSPLANE_FLOOR_VERSION"), pin("CROSSPLANE_VERSION")
	minor, err := strconv.Atoi(newest[3])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(">=%s, <v%s.%d.0-0", floor[1], newest[2], minor+1)
}
