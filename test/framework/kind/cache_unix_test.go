//go:build unix

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

package kind

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPackageCacheIsReadableByCrossplaneWhateverTheUmask writes the cache as
// a user with umask 0o077 would: Crossplane, another uid in the kind node,
// must still traverse every directory and read the package.
func TestPackageCacheIsReadableByCrossplaneWhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })

	root := filepath.Join(t.TempDir(), "package-cache")
	path := CachePath(root, PackageCacheID("sha256:0123456789abcdef"))
	// A file left by an earlier run keeps its mode through WriteFile.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeReadable(root, path, []byte("package")); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if got := mode(t, d); got != cacheDirMode {
			t.Errorf("%s has mode %v, want %v", d, got, cacheDirMode)
		}
		if d == root {
			break
		}
	}
	if got := mode(t, path); got != cacheFileMode {
		t.Errorf("%s has mode %v, want %v", path, got, cacheFileMode)
	}
	if err := writeReadable(root, filepath.Join(filepath.Dir(root), "elsewhere"), nil); err == nil {
		t.Error("writeReadable wrote outside its root")
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
