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

package metrics

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// repoRoot is the checkout, from this package's directory.
const repoRoot = "../.."

var (
	fqName     = regexp.MustCompile(`fqName: "([^"]+)"`)
	metricName = regexp.MustCompile(`provider_coder_[a-z0-9_]*[a-z0-9]`)
)

// names are the fully qualified names of every collector the package
// registers.
func names(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	ch := make(chan *prometheus.Desc, 64)
	for _, c := range registered {
		go func() { c.Describe(ch); ch <- nil }()
		for d := <-ch; d != nil; d = <-ch {
			m := fqName.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("cannot read the name of %s", d)
			}
			out[m[1]] = true
		}
	}
	return out
}

// documents are the pages that name metrics: every Markdown file under
// docs/, the README, CONTRIBUTING and the CHANGELOG, and the monitoring
// example's rules and dashboard.
func documents(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md"} {
		if _, err := os.Stat(filepath.Join(repoRoot, f)); err == nil {
			out = append(out, f)
		}
	}
	for _, dir := range []string{"docs", filepath.Join("examples", "monitoring")} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext == ".md" || ext == ".yaml" || ext == ".json" {
				rel, _ := filepath.Rel(repoRoot, path)
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestEveryMetricTheDocsNameIsRegistered reads every provider_coder_ name
// the docs, the README, the CHANGELOG and examples/monitoring mention: each
// must be a metric the provider serves (a histogram's _bucket, _sum and
// _count series count as the histogram's), so that a reader's query or
// alert never names a series that does not exist.
func TestEveryMetricTheDocsNameIsRegistered(t *testing.T) {
	served := names(t)
	if !served["provider_coder_cleanup_released_without_delete_total"] || len(served) < 10 {
		t.Fatalf("read %d metric names from the collectors, without provider_coder_cleanup_released_without_delete_total; the reading is broken", len(served))
	}
	found := 0
	for _, doc := range documents(t) {
		b, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, n := range metricName.FindAllString(string(b), -1) {
			found++
			base := n
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if s, ok := strings.CutSuffix(n, suffix); ok && served[s] {
					base = s
				}
			}
			if !served[base] && !seen[n] {
				seen[n] = true
				t.Errorf("%s names %s, which the provider does not serve", filepath.ToSlash(doc), n)
			}
		}
	}
	if found == 0 {
		t.Fatal("no page names a provider_coder_ metric; docs/reference/metrics.md lists them")
	}
	t.Logf("%d mentions checked against %d metrics: %v", found, len(served), sortedKeys(served))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestEveryMetricIsOnTheMetricsPage: the reference page has a row for each
// metric the provider serves.
func TestEveryMetricIsOnTheMetricsPage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "reference", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sortedKeys(names(t)) {
		if !strings.Contains(string(b), "| `"+n+"` |") {
			t.Errorf("docs/reference/metrics.md has no row for %s", n)
		}
	}
}
