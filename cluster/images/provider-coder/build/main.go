// Command build writes provider-coder's OCI image as a docker-archive tarball,
// without Docker: a static provider binary, CA certificates, and /etc files
// for a non-root user (uid 65532), in two layers. Every timestamp in the image
// is fixed, so the same sources, Go toolchain and certificate file give the
// same digest.
//
// `make image` runs it from the module root:
//
//	go run ./cluster/images/provider-coder/build -arch amd64 -o _output/image-amd64.tar
//
// ../Dockerfile builds the same file system where Docker exists.
package main

import (
	"archive/tar"
	"bytes"
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
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

// Paths inside the image, without the leading slash as tar wants them.
const (
	providerPath = "usr/local/bin/provider"
	certsPath    = "etc/ssl/certs/ca-certificates.crt"
)

// nonRootUser is distroless's "nonroot" user and group. Numeric, so the
// kubelet can enforce runAsNonRoot without reading /etc/passwd.
const nonRootUser = "65532:65532"

// epoch is every timestamp in the image: file modification times, layer
// history and the config's creation time.
var epoch = time.Unix(0, 0).UTC()

// rootfs holds the /etc files the image carries besides the certificates:
// passwd and group with the non-root user, and nsswitch.conf so Go's resolver
// reads /etc/hosts before DNS. The Dockerfile copies the same directory.
//
//go:embed rootfs
var rootfs embed.FS

type options struct {
	out     string
	arch    string
	caCerts string
	tag     string
}

func main() {
	o := options{}
	flag.StringVar(&o.out, "o", "_output/image.tar", "Where to write the image (docker-archive tarball).")
	flag.StringVar(&o.arch, "arch", "amd64", "GOARCH of the provider binary and the image (the OS is always linux).")
	flag.StringVar(&o.caCerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of CA certificates to put at /"+certsPath+".")
	flag.StringVar(&o.tag, "tag", "provider-coder:dev", "Image reference recorded in the tarball, used by 'docker load' and 'kind load image-archive'.")
	flag.Parse()

	digest, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build image:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (linux/%s) %s\n", o.out, o.arch, digest)
}

func run(o options) (v1.Hash, error) {
	tag, err := name.NewTag(o.tag)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("cannot parse -tag: %w", err)
	}
	certs, err := os.ReadFile(o.caCerts)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("cannot read CA certificates: %w", err)
	}
	bin, err := buildProvider(o.arch)
	if err != nil {
		return v1.Hash{}, err
	}
	base, err := baseFiles(certs)
	if err != nil {
		return v1.Hash{}, err
	}
	img, err := image(o.arch, base, []file{{name: providerPath, mode: 0o755, data: bin}})
	if err != nil {
		return v1.Hash{}, err
	}
	if err := os.MkdirAll(filepath.Dir(o.out), 0o750); err != nil {
		return v1.Hash{}, fmt.Errorf("cannot create output directory: %w", err)
	}
	if err := tarball.WriteToFile(o.out, tag, img); err != nil {
		return v1.Hash{}, fmt.Errorf("cannot write image: %w", err)
	}
	return img.Digest()
}

// buildProvider compiles ./cmd/provider of the module in the working directory
// as a static linux binary. -trimpath keeps the checkout's path out of it, so
// the binary depends on the sources and toolchain only.
func buildProvider(arch string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "provider-coder-image-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin := filepath.Join(dir, "provider")

	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/provider")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cannot build the provider binary for linux/%s: %w", arch, err)
	}
	return os.ReadFile(bin)
}

// file is one entry of a layer.
type file struct {
	name string
	mode int64
	dir  bool
	data []byte
}

// baseFiles are the files every version of the image shares: rootfs/etc and
// the CA certificates.
func baseFiles(certs []byte) ([]file, error) {
	files := []file{{name: certsPath, mode: 0o644, data: certs}}
	err := fs.WalkDir(rootfs, "rootfs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := rootfs.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, file{name: strings.TrimPrefix(p, "rootfs/"), mode: 0o644, data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read embedded rootfs: %w", err)
	}
	return files, nil
}

// image assembles the image from a base layer and a provider layer. The base
// layer changes only with the certificates, so registries and nodes keep it
// across provider versions.
func image(arch string, base, provider []file) (v1.Image, error) {
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		Created:      v1.Time{Time: epoch},
		RootFS:       v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: []string{"/" + providerPath},
			User:       nonRootUser,
			Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
			WorkingDir: "/",
		},
	})
	if err != nil {
		return nil, err
	}
	for _, l := range []struct {
		files []file
		what  string
	}{
		{base, "CA certificates, /etc/passwd, /etc/group, /etc/nsswitch.conf"},
		{provider, "/" + providerPath},
	} {
		layer, err := newLayer(l.files)
		if err != nil {
			return nil, err
		}
		img, err = mutate.Append(img, mutate.Addendum{
			Layer:   layer,
			History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "provider-coder build: " + l.what},
		})
		if err != nil {
			return nil, err
		}
	}
	return img, nil
}

// newLayer writes files, plus directory entries for their parents, as one tar
// layer in name order, owned by root, with every time set to epoch.
func newLayer(files []file) (v1.Layer, error) {
	all := map[string]file{}
	for _, f := range files {
		all[f.name] = f
		for dir := path.Dir(f.name); dir != "."; dir = path.Dir(dir) {
			if _, ok := all[dir]; !ok {
				all[dir] = file{name: dir, mode: 0o755, dir: true}
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
		f := all[n]
		hdr := &tar.Header{Name: f.name, Mode: f.mode, ModTime: epoch, Format: tar.FormatUSTAR}
		if f.dir {
			hdr.Typeflag, hdr.Name = tar.TypeDir, f.name+"/"
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("cannot write layer entry %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("cannot write layer entry %s: %w", f.name, err)
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
