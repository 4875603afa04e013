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

package crossplane

import (
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// A Registry is an OCI registry on loopback, served by this process.
// Crossplane pulls from it over plain HTTP: go-containerregistry, which
// Crossplane's package fetcher uses, speaks HTTP to loopback registries.
type Registry struct {
	srv *httptest.Server
	// Host is host:port, the registry part of a package reference.
	Host string
}

// StartRegistry starts an empty registry.
func StartRegistry() *Registry {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	return &Registry{srv: srv, Host: strings.TrimPrefix(srv.URL, "http://")}
}

// Close stops the registry.
func (r *Registry) Close() { r.srv.Close() }

// Push pushes the package file xpkg (one architecture's, as `make xpkg`
// writes it) as repo:tag, as `crossplane xpkg push` does with one file, and
// returns its reference.
func (r *Registry) Push(xpkg, repo, tag string) (string, error) {
	img, err := tarball.ImageFromPath(xpkg, nil)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", xpkg, err)
	}
	ref, err := name.ParseReference(r.Host + "/" + repo + ":" + tag)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img); err != nil {
		return "", fmt.Errorf("cannot push %s: %w", ref, err)
	}
	return ref.String(), nil
}
