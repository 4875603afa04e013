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
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// mdLink is a Markdown link's target: [text](target) or [text](target "title").
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// relativeLinks returns the targets of page's links that name a file of the
// checkout: not a URL, not an anchor of the page itself, without a fragment.
func relativeLinks(page []byte) []string {
	var out []string
	for _, m := range mdLink.FindAllSubmatch(page, -1) {
		target := string(m[1])
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		out = append(out, target)
	}
	return out
}

func TestRelativeLinksAreTheWordsInParentheses(t *testing.T) {
	page := []byte("See [the map](docs/explanation/code-map.md#records), [Go](https://go.dev), [below](#below),\n" +
		"[the fake](../infrastructure/fakecoder \"the fake Coder\") and `a](b)` too.")
	got := relativeLinks(page)
	want := []string{"docs/explanation/code-map.md", "../infrastructure/fakecoder", "b"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("relativeLinks = %q, want %q", got, want)
	}
}

// TestEveryRelativeLinkOfTheDocsResolves reads every Markdown file of the
// checkout: a link to a file or folder that moved or was deleted fails here,
// not in a reader's browser.
func TestEveryRelativeLinkOfTheDocsResolves(t *testing.T) {
	root := crds.RepoRoot()
	cmd := exec.Command("git", "ls-files", "*.md")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a Git checkout)", err)
	}
	files := strings.Fields(string(out))
	if len(files) < 10 {
		t.Fatalf("git ls-files found %d Markdown files; want the docs", len(files))
	}
	for _, f := range files {
		page, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range relativeLinks(page) {
			if _, err := os.Stat(filepath.Join(root, filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
			}
		}
	}
}
