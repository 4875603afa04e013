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

// Command xpkgindex writes the multi-architecture index of Crossplane
// package files (.xpkg, one per architecture, as `make xpkg` builds them)
// as an OCI image layout directory: the index `make publish` pushes, byte
// for byte. Each package goes in as `crossplane xpkg push` (v2.1.3) sends it:
// its layers annotated from its config's labels (annotateLayers), with its
// platform from its config, in the order given, built with the
// go-containerregistry of the Crossplane CLI that pushes it (this module's:
// another version serializes descriptors differently); so the index's
// digest here is the digest the registry serves under the release's tag
// (test/crossplane pushes with `make publish` and compares).
//
//	go -C tools/crank run ./xpkgindex -tag v0.1.0 -o $PWD/_output/provider-coder.oci \
//		$PWD/_output/provider-coder-amd64.xpkg $PWD/_output/provider-coder-arm64.xpkg
//
// Copy it to a registry with any OCI tool (`crane push`, `skopeo copy
// oci:...`), or push the package files with `make publish`.
package main

import (
	"flag"
	"fmt"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	out := flag.String("o", "_output/provider-coder.oci", "The OCI image layout directory to write (replaced if it exists).")
	tag := flag.String("tag", "", "The tag the index is published as, recorded as its org.opencontainers.image.ref.name.")
	flag.Parse()
	if flag.NArg() == 0 || *tag == "" {
		fmt.Fprintln(os.Stderr, "usage: xpkgindex -tag VERSION -o DIR PACKAGE.xpkg...")
		os.Exit(2)
	}
	idx, err := Index(flag.Args()...)
	if err == nil {
		err = Write(*out, *tag, idx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "xpkgindex:", err)
		os.Exit(1)
	}
	d, err := idx.Digest()
	if err != nil {
		fmt.Fprintln(os.Stderr, "xpkgindex:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: index %s of %d packages\n", *out, d, flag.NArg())
}

// Index is the image index of the package files, as `crossplane xpkg push`
// makes it from several files.
func Index(files ...string) (v1.ImageIndex, error) {
	adds := make([]mutate.IndexAddendum, 0, len(files))
	for _, f := range files {
		img, err := tarball.ImageFromPath(f, nil)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", f, err)
		}
		if img, err = annotateLayers(img); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		mt, err := img.MediaType()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: mt,
			Platform:  &v1.Platform{Architecture: cfg.Architecture, OS: cfg.OS, OSVersion: cfg.OSVersion},
		}})
	}
	return mutate.AppendManifests(empty.Index, adds...), nil
}

// Write replaces dir with an OCI image layout whose index.json names idx
// as tag.
func Write(dir, tag string, idx v1.ImageIndex) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag})); err != nil {
		return fmt.Errorf("cannot write %s: %w", dir, err)
	}
	return nil
}

// annotationKey is the annotation of a package's layers that says what
// each holds ("base": package.yaml; "examples"); an .xpkg file keeps it in
// its config's labels, as "io.crossplane.xpkg:<layer digest>", because a
// tarball cannot carry layer annotations.
const annotationKey = "io.crossplane.xpkg"

// annotateLayers is img as `crossplane xpkg push` pushes it: the same
// layers and config, each layer with the annotation its config's label
// gives it. (Crossplane's is internal/xpkg.AnnotateLayers, which a module
// outside Crossplane cannot import.)
func annotateLayers(img v1.Image) (v1.Image, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	if len(layers) == 0 {
		return img, nil
	}
	out := empty.Image
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return nil, err
		}
		add := mutate.Addendum{Layer: l}
		if a, ok := cfg.Config.Labels[annotationKey+":"+d.String()]; ok {
			add.Annotations = map[string]string{annotationKey: a}
		}
		if out, err = mutate.Append(out, add); err != nil {
			return nil, err
		}
	}
	return mutate.ConfigFile(out, cfg)
}
