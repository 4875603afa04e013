package kind

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/crossplane-contrib/provider-coder/cluster/images/oci"
)

// coderBinary is the fake Coder's path in its image.
const coderBinary = "/usr/local/bin/fakecoder"

// BuildCoderImage writes the fake Coder's image as a docker-archive tarball
// tagged CoderImage, without Docker: one layer with the static binary of
// test/fakecoder/cmd/fakecoder, run as 65532. It serves plain HTTP, so it
// needs no CA certificates.
func BuildCoderImage(root, arch, out string) error {
	bin, err := oci.GoBinary(root, "./test/fakecoder/cmd/fakecoder", arch)
	if err != nil {
		return err
	}
	img, err := oci.Image(
		oci.Config{Arch: arch, Entrypoint: []string{coderBinary}, User: "65532:65532"},
		oci.Layer{Files: []oci.File{{Name: coderBinary, Mode: 0o755, Data: bin}}, CreatedBy: "provider-coder test/kind: " + coderBinary},
	)
	if err != nil {
		return err
	}
	return oci.WriteTarball(out, CoderImage, img)
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
	if err := oci.WriteTarball(imageOut, PackageRef, img); err != nil {
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
