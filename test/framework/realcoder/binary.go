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

// Package realcoder runs the real Coder server for tests: Coder's
// enterprise server exactly as Coder ships it, built from the module proxy
// by cluster/local/build-coder.sh, on loopback, against a PostgreSQL of its
// own. It bootstraps the deployment as a human would (first user, password
// login) and adds a licence only when the user supplies one
// (PROVIDER_CODER_LICENSE_FILE); it never makes one. It reads Coder's tables
// directly so tests can count rows the API hides (soft-deleted providers).
//
// It must not reach anything but loopback: telemetry, update checks, STUN
// and built-in provisioners are off.
package realcoder

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

const (
	// EnvBinary overrides where the Coder binary is found.
	EnvBinary = "PROVIDER_CODER_CODER_BIN"
	// EnvRequire makes tests fail, rather than skip, when the Coder binary
	// or PostgreSQL is missing. `make test` and CI set it.
	EnvRequire = "PROVIDER_CODER_REQUIRE_CODER"
	// EnvCache is the cache root that cluster/local/build-coder.sh fills,
	// shared with the control plane binaries.
	EnvCache = controlplane.EnvCache
)

// buildFiles are the files that decide what build-coder.sh builds, relative
// to the repository root, hashed in this order as the script does: the
// build module (which only pins Coder's own module versions) and the script
// with its flags.
var buildFiles = []string{
	filepath.Join("cluster", "local", "coder", "go.mod"),
	filepath.Join("cluster", "local", "coder", "go.sum"),
	filepath.Join("cluster", "local", "build-coder.sh"),
}

// Binary returns the path of the Coder binary: $PROVIDER_CODER_CODER_BIN if
// set, otherwise the cache path build-coder.sh builds to. It returns an
// error if there is no executable there.
func Binary() (string, error) {
	path, from := os.Getenv(EnvBinary), " (from "+EnvBinary+")"
	if path == "" {
		from = ""
		p, err := CachePath(crds.RepoRoot())
		if err != nil {
			return "", err
		}
		path = p
	}
	fi, err := os.Stat(path)
	if err == nil && (fi.IsDir() || fi.Mode().Perm()&0o111 == 0) {
		err = errors.New("not an executable file")
	}
	if err != nil {
		return "", fmt.Errorf("cannot find the Coder binary %s%s: %w; run `make coder` (cluster/local/build-coder.sh) to build it", path, from, err)
	}
	return path, nil
}

// CachePath computes the path build-coder.sh builds to, for the repository
// at root: <cache>/coder/<CODER_VERSION>-<12 hex of buildFiles' hash>/coder.
func CachePath(root string) (string, error) {
	version, err := coderVersion(filepath.Join(root, "cluster", "local", "versions.env"))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, name := range buildFiles {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return "", fmt.Errorf("cannot read Coder build module: %w", err)
		}
		_, _ = h.Write(b)
	}
	cache, err := controlplane.CacheRoot()
	if err != nil {
		return "", err
	}
	dir := version + "-" + hex.EncodeToString(h.Sum(nil))[:12]
	return filepath.Join(cache, "coder", dir, "coder"), nil
}

// coderVersion reads CODER_VERSION from versions.env.
func coderVersion(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot open versions file: %w", err)
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		key, val, ok := strings.Cut(strings.TrimSpace(s.Text()), "=")
		if ok && strings.TrimSpace(key) == "CODER_VERSION" {
			return strings.Trim(strings.TrimSpace(val), `"'`), nil
		}
	}
	if err := s.Err(); err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	return "", fmt.Errorf("%s does not set CODER_VERSION", path)
}
