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

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The alerts of examples/monitoring, run by Prometheus's own rule tester
// (promtool test rules) on series the running provider exports: every
// metric a rule names must be in a scrape of /metrics, and each alert's
// test feeds it the label sets that scrape showed, so a renamed metric or
// label fails here rather than in a silent alert.
func TestAlertRulesFireOnTheSeriesTheProviderExports(t *testing.T) {
	promtool := promtoolOrSkip(t)

	// A tenant whose token lapses in a day: the Token condition warns,
	// and the expiry series of its scope is exported.
	fake := fakecoder.New(fakecoder.Options{})
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	fake.SetTokenExpiry(fake.Now().Add(24 * time.Hour))
	ns := env.Namespace(t)
	env.TokenSecret(t, ns, "coder-token", fake.Token())
	pc := testenv.ProviderConfigOf(ns, "default", fake.URL(), "coder-token")
	env.Create(t, pc)
	env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	c := env.WaitCondition(t, pc, providerconfig.TypeToken, corev1.ConditionFalse, testenv.WaitLong)
	if c.Reason != providerconfig.ReasonTokenExpiresSoon || strings.Contains(c.Message, fake.Token()) {
		t.Errorf("Token condition of a token that lapses in a day: %s %q, want %s without the token", c.Reason, c.Message, providerconfig.ReasonTokenExpiresSoon)
	}

	// A budget of the tenant at 92% of its limit: its spend ratio is
	// exported.
	g := budgetGroup(t, fake, "ml", 4_600_000)
	env.Create(t, newGroupBudget(ns, "ml", g.Name, 5_000_000))
	testenv.Eventually(t, testenv.WaitLong, "the budget's spend ratio exported", func() (bool, string) {
		got := spendRatio(env.Cluster.ProviderMetrics(t), ns, "ml")
		return got == "0.92", "provider_coder_budget_spend_ratio " + got
	})

	scraped := scrapeMetrics(t)
	rules, spec := readAlertRules(t, filepath.Join("..", "..", "examples", "monitoring", "prometheusrule.yaml"))
	for _, r := range rules {
		for _, name := range metricNameRE.FindAllString(r.Expr, -1) {
			if _, ok := scraped[name]; !ok {
				t.Errorf("alert %s uses %s, which the provider does not export (exported: %s)", r.Alert, name, strings.Join(exportedNames(scraped), ", "))
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	dir := t.TempDir()
	write(t, filepath.Join(dir, "rules.yaml"), spec)
	tests := alertTests(t, scraped, rules)
	write(t, filepath.Join(dir, "tests.yaml"), tests)
	out, err := exec.Command(promtool, "test", "rules", filepath.Join(dir, "tests.yaml")).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s\ntests:\n%s", err, out, tests)
	}
	t.Logf("promtool test rules: %d alerts tested on the scraped series", len(rules))
}

// promtoolOrSkip is the path of promtool as hack/promtool.sh builds it.
func promtoolOrSkip(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join("..", "..", "hack", "promtool.sh"), "--print-path").Output()
	if err != nil {
		t.Fatalf("hack/promtool.sh --print-path: %v", err)
	}
	bin := strings.TrimSpace(string(out))
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("PROVIDER_CODER_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("promtool is not built (%s) and PROVIDER_CODER_REQUIRE_PROMTOOL is set: run make promtool", bin)
		}
		t.Skipf("promtool is not built (%s): make promtool builds it", bin)
	}
	return bin
}

// scrapeMetrics reads what the provider's /metrics serves, as the
// cluster gathers it (the in-process registry the manager serves, or a
// scrape of the provider's process): metric name to every label set.
func scrapeMetrics(t *testing.T) map[string][]map[string]string {
	t.Helper()
	out := map[string][]map[string]string{}
	for _, mf := range env.Cluster.ProviderMetrics(t) {
		out[mf.GetName()] = nil
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out[mf.GetName()] = append(out[mf.GetName()], l)
		}
	}
	return out
}

func exportedNames(s map[string][]map[string]string) []string {
	var n []string
	for k := range s {
		if strings.HasPrefix(k, "provider_coder_") {
			n = append(n, k)
		}
	}
	sort.Strings(n)
	return n
}

// metricNameRE finds the provider's metric names in a PromQL expression.
var metricNameRE = regexp.MustCompile(`provider_coder_[a-z_]+`)

// alertRule is one alerting rule of the PrometheusRule.
type alertRule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// readAlertRules reads the PrometheusRule at path: its alerts, and its
// spec, which is a Prometheus rule file.
func readAlertRules(t *testing.T, path string) ([]alertRule, []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pr struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   map[string]any `json:"metadata"`
		Spec       struct {
			Groups []struct {
				Name  string      `json:"name"`
				Rules []alertRule `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(raw, &pr); err != nil || pr.Kind != "PrometheusRule" {
		t.Fatalf("%s: %v (kind %q)", path, err, pr.Kind)
	}
	var rules []alertRule
	for _, g := range pr.Spec.Groups {
		rules = append(rules, g.Rules...)
	}
	spec, err := yaml.Marshal(pr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	return rules, spec
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// series is one input series of a rule test: a scraped label set and
// the values a scenario gives it.
type series struct {
	name   string
	labels map[string]string
	values string
}

func (s series) String() string {
	keys := make([]string, 0, len(s.labels))
	for k := range s.labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, s.labels[k]))
	}
	return s.name + "{" + strings.Join(parts, ",") + "}"
}

// scenario is how one alert is tested: its input, when it must fire and
// with which labels, and when it must not.
type scenario struct {
	input []series
	at    time.Duration
	fires []map[string]string // the alerts' labels besides the rule's
	quiet time.Duration
}

// alertTests is the promtool test file: one test per alert of rules, on
// series the provider exported (scraped), or a failure for an alert no
// scenario covers.
func alertTests(t *testing.T, scraped map[string][]map[string]string, rules []alertRule) []byte {
	t.Helper()
	pick := func(name string, want map[string]string) map[string]string {
		t.Helper()
		for _, l := range scraped[name] {
			if matches(l, want) {
				return l
			}
		}
		t.Fatalf("the provider exports no %s%v; it exports %v", name, want, scraped[name])
		return nil
	}
	key := map[string]string{"kind": "AIGatewayKey"}
	released := pick("provider_coder_cleanup_released_without_delete_total", key)
	sweepErrors := pick("provider_coder_cleanup_swept_total", map[string]string{"kind": "AIGatewayKey", "result": "error"})
	tokens := pick("provider_coder_token_expiry_timestamp_seconds", map[string]string{"scope": "Namespaced"})
	var notReady []series
	var notReadyAlerts []map[string]string
	for _, r := range config.ReadyReasons() {
		if r.Status == corev1.ConditionTrue {
			continue
		}
		l := pick("provider_coder_providerconfigs", map[string]string{"ready": string(r.Status), "reason": string(r.Reason)})
		notReady = append(notReady, series{"provider_coder_providerconfigs", l, "0x5 1x30"})
		notReadyAlerts = append(notReadyAlerts, map[string]string{"reason": l["reason"]})
	}
	connected := pick("provider_coder_providerconfigs", map[string]string{"ready": "True", "reason": string(providerconfig.ReasonConnected)})
	kept := pick("provider_coder_retiring_keys_in_use_total", map[string]string{"kind": "AIGatewayKey", "outcome": "kept"})
	revoked := pick("provider_coder_retiring_keys_in_use_total", map[string]string{"kind": "AIGatewayKey", "outcome": "revoked"})
	ratio := pick("provider_coder_budget_spend_ratio", map[string]string{"kind": "GroupAIBudget"})
	// up is Prometheus's own series of a scrape, with the job label the
	// Prometheus Operator gives a PodMonitor's targets (namespace/name).
	up := map[string]string{"job": "crossplane-system/provider-coder", "namespace": "crossplane-system", "pod": "provider-coder-1a2b3c4d5e6f-7d9f8b6c5-x2x4z"}
	const day = 24 * 3600
	scenarios := map[string]scenario{
		// The first release after a start: the series is there at 0.
		"CoderObjectReleasedWithoutDelete": {input: []series{{"provider_coder_cleanup_released_without_delete_total", released, "0x10 1x60"}},
			at: 15 * time.Minute, fires: []map[string]string{released}, quiet: 5 * time.Minute},
		"CoderCleanupRecordsAbandoned": {input: []series{{"provider_coder_cleanup_records", pick("provider_coder_cleanup_records", map[string]string{"phase": "Abandoned"}), "0x5 1x70"}},
			at: 70 * time.Minute, fires: []map[string]string{{"phase": "Abandoned"}}, quiet: 50 * time.Minute},
		"CoderSweepFailing": {input: []series{{"provider_coder_cleanup_swept_total", sweepErrors, "0+1x60"}},
			at: 45 * time.Minute, fires: []map[string]string{{"kind": "AIGatewayKey"}}, quiet: 20 * time.Minute},
		"CoderProviderConfigNotReady": {input: append(notReady, series{"provider_coder_providerconfigs", connected, "1x40"}),
			at: 25 * time.Minute, fires: notReadyAlerts, quiet: 10 * time.Minute},
		"CoderHoldNearBound": {input: []series{{"provider_coder_hold_grace_providerconfigs", pick("provider_coder_hold_grace_providerconfigs", nil), "0 0 1x5"}},
			at: 3 * time.Minute, fires: []map[string]string{{}}, quiet: time.Minute},
		// promtool's clock starts at the Unix epoch: 10 days, then 2.
		"CoderTokenExpiresSoon": {input: []series{{"provider_coder_token_expiry_timestamp_seconds", tokens, fmt.Sprintf("%dx10 %dx10", 10*day, 2*day)}},
			at: 15 * time.Minute, fires: []map[string]string{{"scope": "Namespaced"}}, quiet: 5 * time.Minute},
		"CoderProviderDown": {input: []series{{"up", up, "1x5 0x20"}},
			at: 15 * time.Minute, fires: []map[string]string{up}, quiet: 8 * time.Minute},
		// A pod scraped for 5 minutes, then none.
		"CoderProviderNotScraped": {input: []series{{"up", up, "1x5"}},
			at: 30 * time.Minute, fires: []map[string]string{{"job": "crossplane-system/provider-coder"}}, quiet: 15 * time.Minute},
		"CoderRetiringKeyInUse": {input: []series{{"provider_coder_retiring_keys_in_use_total", kept, "0x10 1x60"}},
			at: 15 * time.Minute, fires: []map[string]string{{"kind": "AIGatewayKey"}}, quiet: 5 * time.Minute},
		"CoderRetiringKeyRevokedInUse": {input: []series{{"provider_coder_retiring_keys_in_use_total", revoked, "0x10 1x60"}},
			at: 15 * time.Minute, fires: []map[string]string{{"kind": "AIGatewayKey"}}, quiet: 5 * time.Minute},
		// Half the limit for 5 minutes, then 95%: pending from 6m, firing
		// from 21m.
		"CoderBudgetSpendHigh": {input: []series{{"provider_coder_budget_spend_ratio", ratio, "0.5x5 0.95x40"}},
			at: 25 * time.Minute, fires: []map[string]string{ratio}, quiet: 15 * time.Minute},
		"CoderTokenExpiresToday": {input: []series{{"provider_coder_token_expiry_timestamp_seconds", tokens, fmt.Sprintf("%dx10 %dx10", 2*day, day/2)}},
			at: 15 * time.Minute, fires: []map[string]string{{"scope": "Namespaced"}}, quiet: 5 * time.Minute},
	}
	var b strings.Builder
	b.WriteString("rule_files: [rules.yaml]\nevaluation_interval: 1m\ntests:\n")
	for _, r := range rules {
		s, ok := scenarios[r.Alert]
		if !ok {
			t.Fatalf("alert %s has no scenario in this test", r.Alert)
		}
		fmt.Fprintf(&b, "- name: %s\n  interval: 1m\n  input_series:\n", r.Alert)
		for _, in := range s.input {
			fmt.Fprintf(&b, "  - series: %s\n    values: %q\n", quote(in.String()), in.values)
		}
		fmt.Fprintf(&b, "  alert_rule_test:\n  - eval_time: %s\n    alertname: %s\n    exp_alerts: []\n", model.Duration(s.quiet), r.Alert)
		fmt.Fprintf(&b, "  - eval_time: %s\n    alertname: %s\n    exp_alerts:\n", model.Duration(s.at), r.Alert)
		for _, l := range s.fires {
			labels := map[string]string{}
			for k, v := range l {
				labels[k] = v
			}
			for k, v := range r.Labels {
				labels[k] = v
			}
			fmt.Fprintf(&b, "    - exp_labels: %s\n      exp_annotations: %s\n", yamlMap(t, labels), yamlMap(t, expand(t, r.Annotations, l)))
		}
	}
	return []byte(b.String())
}

func matches(l, want map[string]string) bool {
	if len(want) == 0 {
		return len(l) == 0
	}
	for k, v := range want {
		if l[k] != v {
			return false
		}
	}
	return true
}

// expand fills the {{ $labels.<name> }} of annotations, the only template
// examples/monitoring's annotations use.
func expand(t *testing.T, annotations, labels map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range annotations {
		v = labelRef.ReplaceAllStringFunc(v, func(m string) string { return labels[labelRef.FindStringSubmatch(m)[1]] })
		if strings.Contains(v, "{{") {
			t.Fatalf("annotation %s uses a template other than {{ $labels.<name> }}: %s", k, v)
		}
		out[k] = v
	}
	return out
}

var labelRef = regexp.MustCompile(`\{\{ \$labels\.([a-z_]+) \}\}`)

func yamlMap(t *testing.T, m map[string]string) string {
	t.Helper()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, quote(k)+": "+quote(m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// quote is a YAML single-quoted scalar.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
