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

package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
)

// TestTheReleaseChecklistRunsWhatCIDoesNot: the checklist of
// CONTRIBUTING.md names only make targets the Makefile has, and every suite
// a release must run that CI does not: the oldest Crossplane, make e2e and
// its memory scenario, as make e2e selects it.
func TestTheReleaseChecklistRunsWhatCIDoesNot(t *testing.T) {
	root := crds.RepoRoot()
	page, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, checklist, ok := strings.Cut(string(page), "\n## Release checklist\n")
	if !ok {
		t.Fatal("CONTRIBUTING.md has no section ## Release checklist")
	}
	checklist, _, _ = strings.Cut(checklist, "\n## ")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, m := range regexp.MustCompile(`\bmake ([a-z][a-z0-9-]*)`).FindAllStringSubmatch(checklist, -1) {
		named = append(named, m[1])
		if !regexp.MustCompile("(?m)^" + regexp.QuoteMeta(m[1]) + ":").Match(makefile) {
			t.Errorf("the release checklist runs make %s, which the Makefile does not have", m[1])
		}
	}
	for _, want := range []string{"test", "crossplane-floor", "e2e", "publish"} {
		if !slices.Contains(named, want) {
			t.Errorf("the release checklist does not run make %s (it runs %v)", want, named)
		}
	}
	if want := "E2E_RUN='" + kind.MemoryPattern() + "' make e2e"; !strings.Contains(checklist, want) {
		t.Errorf("the release checklist does not run the memory scenario as make e2e selects it: %s", want)
	}
}
