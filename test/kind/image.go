package kind

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// coderBinary is the fake Coder's path in its image.
const coderBinary = "/usr/local/bin/fakecoder"

// BuildCoderImage writes the fake Coder's image as a docker-archive tarball
// tagged CoderImage, without Docker: one layer with the static binary of
// test/fakecoder/cmd/fakecoder, run as 65532. It serves plain HTTP, so it
// needs no CA certificates.
func BuildCoderImage(root, arch, out string) error {
	dir, err := os.MkdirTemp("", "fakecoder-image-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin := filepath.Join(dir, "fakecoder")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./test/fakecoder/cmd/fakecoder")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("cannot build the fake Coder for linux/%s: %w: %s", arch, err, b)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0).UTC()
	for _, d := range []string{"usr/", "usr/local/", "usr/local/bin/"} {
		if err := tw.WriteHeader(&tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: coderBinary[1:], Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(data)), ModTime: epoch}); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		return err
	}
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		Created:      v1.Time{Time: epoch},
		Config:       v1.Config{Entrypoint: []string{coderBinary}, User: "65532:65532"},
	})
	if err != nil {
		return err
	}
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return err
	}
	return writeImage(out, CoderImage, img)
}

func writeImage(out, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o750); err != nil {
		return err
	}
	return tarball.WriteToFile(out, tag, img)
}

// UnpackXpkg prepares a .xpkg for a cluster without a registry: the image,
// tagged PackageRef, for `kind load image-archive` (the xpkg embeds the
// provider's runtime image), and the package's package.yaml, gzipped where
// Crossplane's package cache in cacheDir looks for PackageRef.
func UnpackXpkg(xpkg, imageOut, cacheDir string) error {
	img, err := tarball.ImageFromPath(xpkg, nil)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", xpkg, err)
	}
	if err := writeImage(imageOut, PackageRef, img); err != nil {
		return err
	}
	pkg, err := packageYAML(img)
	if err != nil {
		return fmt.Errorf("%s: %w", xpkg, err)
	}
	path := CachePath(cacheDir, PackageRef)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil { //nolint:gosec // Crossplane (uid 65532) reads it
		return err
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write(pkg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, gz.Bytes(), 0o644) //nolint:gosec // Crossplane (uid 65532) reads it
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
