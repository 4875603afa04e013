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
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// TestTheCommittedCrossplaneRenderIsTheChartOfCrossplaneVersion renders
// the chart of versions.env's Crossplane with tools/helm and compares it
// with the committed file, byte for byte: a bumped version, chart or helm
// without `make kind-crossplane` fails here, not on a cluster.
func TestTheCommittedCrossplaneRenderIsTheChartOfCrossplaneVersion(t *testing.T) {
	root := crds.RepoRoot()
	version, err := CrossplaneVersion(root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := RenderCrossplane(t.Context(), root, version)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(CrossplaneRenderFile(root, version))
	if err != nil {
		t.Fatalf("%v: run make kind-crossplane", err)
	}
	if !bytes.Equal(got, want) {
		g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		i := 0
		for i < len(g) && i < len(w) && bytes.Equal(g[i], w[i]) {
			i++
		}
		line := func(l [][]byte) string {
			if i < len(l) {
				return string(l[i])
			}
			return "(end of file)"
		}
		t.Fatalf("%s is not the chart's render (run make kind-crossplane): line %d is %q, the chart renders %q",
			CrossplaneRenderFile(root, version), i+1, line(g), line(w))
	}
	others, err := filepath.Glob(CrossplaneRenderFile(root, "*"))
	if err != nil || len(others) != 1 {
		t.Errorf("cluster/kind holds %v (%v), want only the render of %s", others, err, version)
	}
}
