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

// Command build writes provider-coder's OCI image as a docker-archive tarball,
// without Docker: a static provider binary, CA certificates, and /etc files
// for a non-root user (uid 65532), in two layers. Every timestamp in the image
// is fixed, so the same sources, Go toolchain and certificates give the same
// digest.
//
// The certificates are the -ca-certs file, else Go's fallback roots
// (golang.org/x/crypto/x509roots/fallback, Mozilla's, at the version go.sum
// pins): never the build host's, so that any two hosts build the same
// bytes. -version is stamped into the binary (internal/version) and the
// image's labels.
//
// `make image` runs it from the module root:
//
//	go run ./cluster/images/provider-coder/build -arch amd64 -version v0.1.0 -o _output/image-amd64.tar
package main

import (
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/crossplane-contrib/provider-coder/cluster/images/oci"
	"github.com/crossplane-contrib/provider-coder/internal/version"
)

// Paths inside the image, without the leading slash as tar wants them.
const (
	providerPath = "usr/local/bin/provider"
	certsPath    = "etc/ssl/certs/ca-certificates.crt"
)

// nonRootUser is distroless's "nonroot" user and group. Numeric, so the
// kubelet can enforce runAsNonRoot without reading /etc/passwd.
const nonRootUser = "65532:65532"

// rootfs holds the /etc files the image carries besides the certificates:
// passwd and group with the non-root user, and nsswitch.conf so Go's resolver
// reads /etc/hosts before DNS.
//
//go:embed rootfs
var rootfs embed.FS

type options struct {
	out     string
	arch    string
	caCerts string
	tag     string
	version string
}

// source is where the image's source is, for its labels.
const source = "https://github.com/crossplane-contrib/provider-coder"

func main() {
	o := options{}
	flag.StringVar(&o.out, "o", "_output/image.tar", "Where to write the image (docker-archive tarball).")
	flag.StringVar(&o.arch, "arch", "amd64", "GOARCH of the provider binary and the image (the OS is always linux).")
	flag.StringVar(&o.caCerts, "ca-certs", "", "PEM bundle of CA certificates to put at /"+certsPath+" (default: Go's fallback roots, Mozilla's, as go.sum pins them).")
	flag.StringVar(&o.version, "version", version.Version, "Release version, stamped into the provider binary and the image's labels.")
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
	certs, err := findCACerts(o.caCerts, os.ReadFile, fallbackCACerts)
	if err != nil {
		return v1.Hash{}, err
	}
	fmt.Printf("CA certificates: %s\n", certs.source)
	fmt.Printf("version: %s\n", o.version)
	bin, err := oci.GoBinary("", "./cmd/provider", o.arch, version.Path+"="+o.version)
	if err != nil {
		return v1.Hash{}, err
	}
	base, err := baseFiles(certs.pem)
	if err != nil {
		return v1.Hash{}, err
	}
	img, err := image(o.arch, o.version, base, []oci.File{{Name: providerPath, Mode: 0o755, Data: bin}})
	if err != nil {
		return v1.Hash{}, err
	}
	if err := oci.WriteTarball(o.out, o.tag, img); err != nil {
		return v1.Hash{}, err
	}
	return img.Digest()
}

// baseFiles are the files every version of the image shares: rootfs/etc and
// the CA certificates.
func baseFiles(certs []byte) ([]oci.File, error) {
	files := []oci.File{{Name: certsPath, Mode: 0o644, Data: certs}}
	err := fs.WalkDir(rootfs, "rootfs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := rootfs.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, oci.File{Name: strings.TrimPrefix(p, "rootfs/"), Mode: 0o644, Data: data})
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
func image(arch, ver string, base, provider []oci.File) (v1.Image, error) {
	return oci.Image(oci.Config{
		Labels: map[string]string{
			"org.opencontainers.image.title":    "provider-coder",
			"org.opencontainers.image.version":  ver,
			"org.opencontainers.image.source":   source,
			"org.opencontainers.image.licenses": "Apache-2.0 AND AGPL-3.0-only",
		},
		Arch:       arch,
		Entrypoint: []string{"/" + providerPath},
		User:       nonRootUser,
		Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		WorkingDir: "/",
	},
		oci.Layer{Files: base, CreatedBy: "provider-coder build: CA certificates, /etc/passwd, /etc/group, /etc/nsswitch.conf"},
		oci.Layer{Files: provider, CreatedBy: "provider-coder build: /" + providerPath},
	)
}
