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

package controlplane

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

const (
	// EnvBinDir overrides where the control plane binaries are found.
	EnvBinDir = "PROVIDER_CODER_KUBE_BIN"
	// EnvCache overrides the cache root that cluster/local/build.sh fills.
	EnvCache = "PROVIDER_CODER_CACHE"
	// EnvRequire makes tests fail, rather than skip, when the binaries are
	// missing. CI sets it so a broken build cannot pass as skipped tests.
	EnvRequire = "PROVIDER_CODER_REQUIRE_CONTROLPLANE"
)

const (
	binEtcd              = "etcd"
	binAPIServer         = "kube-apiserver"
	binControllerManager = "kube-controller-manager"
	binKubectl           = "kubectl"
)

// versionsFile is the single place the control plane versions are pinned.
// It is relative to the repository root.
var versionsFile = filepath.Join("cluster", "local", "versions.env")

// BinDir returns the directory holding etcd, kube-apiserver,
// kube-controller-manager and kubectl: $PROVIDER_CODER_KUBE_BIN if set,
// otherwise the per-version cache directory that cluster/local/build.sh
// fills. It returns an error if any binary is missing.
func BinDir() (string, error) {
	dir, from := os.Getenv(EnvBinDir), " (from "+EnvBinDir+")"
	if dir == "" {
		from = ""
		d, err := cacheBinDir()
		if err != nil {
			return "", fmt.Errorf("cannot determine control plane binary directory (set %s to override): %w", EnvBinDir, err)
		}
		dir = d
	}
	for _, name := range []string{binEtcd, binAPIServer, binControllerManager, binKubectl} {
		if err := checkExecutable(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("cannot find control plane binaries in %s%s: %w; run `make controlplane` (cluster/local/build.sh) to build them", dir, from, err)
		}
	}
	return dir, nil
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// cacheBinDir computes the same directory as cluster/local/build.sh.
func cacheBinDir() (string, error) {
	path, err := findVersionsFile()
	if err != nil {
		return "", err
	}
	v, err := readVersions()
	if err != nil {
		return "", err
	}
	kube, etcd := v["KUBE_VERSION"], v["ETCD_VERSION"]
	if kube == "" || etcd == "" {
		return "", errors.New("versions file does not set KUBE_VERSION and ETCD_VERSION")
	}
	root, err := CacheRoot()
	if err != nil {
		return "", err
	}
	hash, err := buildHash(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	name := strings.TrimPrefix(kube, "v") + "-etcd" + strings.TrimPrefix(etcd, "v") + "-" + hash
	return filepath.Join(root, "kube", name, "bin"), nil
}

// buildFiles are what build.sh hashes into the cache directory's name, in
// its order, relative to cluster/local: the build module and the script.
var buildFiles = []string{"kube/go.mod", "kube/go.sum", "build.sh"}

// buildHash is the 12 hex digits build.sh names the directory with.
func buildHash(local string) (string, error) {
	h := sha256.New()
	for _, f := range buildFiles {
		b, err := os.ReadFile(filepath.Join(local, f))
		if err != nil {
			return "", fmt.Errorf("cannot hash the control plane's build: %w", err)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// CacheRoot mirrors build.sh's ${PROVIDER_CODER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/provider-coder}.
// os.UserCacheDir is deliberately not used: on macOS it differs from the
// script's default.
func CacheRoot() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "provider-coder"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot determine home directory: %w", err)
	}
	return filepath.Join(home, ".cache", "provider-coder"), nil
}

// readVersions parses versions.env, found relative to this source file (the
// usual case: go test builds without -trimpath) or else by walking up from
// the working directory.
func readVersions() (map[string]string, error) {
	path, err := findVersionsFile()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open versions file: %w", err)
	}
	defer func() { _ = f.Close() }()

	v := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("cannot parse %s: line %q is not KEY=value", path, line)
		}
		v[strings.TrimSpace(key)] = strings.Trim(strings.TrimSpace(val), `"'`)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return v, nil
}

func findVersionsFile() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		// This file lives in test/framework/controlplane, three levels below the root.
		starts = append(starts, filepath.Join(filepath.Dir(file), "..", "..", ".."))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			starts = append(starts, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range starts {
		p := filepath.Join(d, versionsFile)
		if _, err := os.Stat(p); err == nil {
			return filepath.Clean(p), nil
		}
	}
	return "", fmt.Errorf("cannot find %s above the working directory", versionsFile)
}
