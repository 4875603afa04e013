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

// Package crds installs provider-coder's generated CRDs (package/crds) into
// a cluster, for the scenario tests and `make run`, and reads the
// checkout's manifests (DecodeFile).
package crds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Install creates or updates every CRD in package/crds and waits until the
// API server serves each: discovery lists a CRD's resources once it is
// established. envtest does not take a context; ctx bounds the wait only
// through its deadline, if any, within a minute.
func Install(ctx context.Context, cfg *rest.Config) error {
	wait := time.Minute
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	installed, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths:              []string{filepath.Join(RepoRoot(), "package", "crds")},
		ErrorIfPathMissing: true,
		MaxTime:            wait,
	})
	if err != nil {
		return fmt.Errorf("cannot install the CRDs of package/crds: %w", err)
	}
	if len(installed) == 0 {
		return fmt.Errorf("no CRDs in package/crds (run make generate)")
	}
	return nil
}

// RepoRoot is the root of the provider-coder checkout.
func RepoRoot() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// DecodeFile returns the objects of the YAML (or JSON) documents of the
// file at path, in order; empty documents are skipped.
func DecodeFile(path string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := d.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot decode %s: %w", path, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}
