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

package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

const (
	beginMarker = "<!-- bench:begin (written by `make bench`; edit around it) -->"
	endMarker   = "<!-- bench:end -->"
)

// replaceSection puts body between the bench markers of the file at path,
// creating the file or the markers when missing.
func replaceSection(path, body string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	section := beginMarker + "\n" + body + endMarker
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if i < 0 || j < i {
		s = strings.TrimRight(s, "\n")
		if s != "" {
			s += "\n\n"
		}
		s += section + "\n"
	} else {
		s = s[:i] + section + s[j+len(endMarker):]
	}
	return os.WriteFile(path, []byte(s), 0o600)
}

// perEachMilli renders CPU seconds per resource in milliseconds.
func perEachMilli(m map[string]float64, n int) string {
	ms := make(map[string]float64, len(m))
	for k, v := range m {
		ms[k] = v * 1000
	}
	return strings.ReplaceAll(perEach(ms, n), ", ", " ms, ") + " ms"
}

func report(r results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured on %s: %s.\n\n", r.Date, r.Machine)
	reportLifecycles(&b, r.Lifecycles)
	if len(r.Hold) > 0 {
		b.WriteString("#### Hold release\n\n| Coder | keys behind the ProviderConfig | released after the last key was gone |\n| --- | ---: | ---: |\n")
		for _, h := range r.Hold {
			fmt.Fprintf(&b, "| %s | %d | %.2f s |\n", h.Coder, h.Keys, h.Latency)
		}
		b.WriteString("\n")
	}
	for _, q := range r.Backlog {
		reportBacklog(&b, q)
	}
	reportScale(&b, r.Scale, r.ScaleFlatness)
	return b.String()
}

func reportLifecycles(b *strings.Builder, ls []lifecycle) {
	if len(ls) == 0 {
		return
	}
	b.WriteString("#### Throughput and cost per resource\n\n")
	b.WriteString("| Coder | Kind | N | rate | creates/s | bare | ratio | deletes/s | bare | ratio | Coder requests per create | per delete | K8s writes per lifecycle | reconciles per create | per delete | CPU s | peak RSS MiB | kube-apiserver CPU ms per lifecycle |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, l := range ls {
		fmt.Fprintf(b, "| %s | %s | %d | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.0f | %.1f |\n",
			l.Coder, l.Kind, l.N, l.Rate, l.Creates, l.BareCreates, l.Creates/l.BareCreates, l.Deletes, l.BareDeletes, l.Deletes/l.BareDeletes,
			total(l.CoderCreate), total(l.CoderDelete), l.writesPerResource(), l.ReconcilesCreate, l.ReconcilesDelete, l.CPU, l.PeakRSS, l.apiServerMs())
	}
	b.WriteString("\n#### Requests and writes by endpoint, per resource\n\n")
	b.WriteString("| Coder | Kind | N | rate | Coder requests while creating | while deleting | Kubernetes writes over the lifecycle | CPU s per resource, by process |\n| --- | --- | ---: | ---: | --- | --- | --- | --- |\n")
	for _, l := range ls {
		fmt.Fprintf(b, "| %s | %s | %d | %d | %s | %s | %s | %s |\n", l.Coder, l.Kind, l.N, l.Rate,
			perEach(l.CoderCreate, 1), perEach(l.CoderDelete, 1), perEach(l.Writes, l.N), perEachMilli(l.Bed, l.N))
	}
	b.WriteString("\n")
}

// drainedAt says what backlog counts as drained, when the run measured it.
func drainedAt(q backlogRun) string {
	if q.OneDelete == 0 {
		return ""
	}
	return fmt.Sprintf(" Drained means down to %d, what the arrivals alone keep in flight: λ × %.1f s, the time one delete took on the same namespace just before.", q.Floor, q.OneDelete)
}

func reportBacklog(b *strings.Builder, q backlogRun) {
	fmt.Fprintf(b, "#### Deletion backlog, %s Coder, `--max-reconcile-rate` %d\n\n", q.Coder, q.Rate)
	fmt.Fprintf(b, "B0 = %d deletes at once, then λ = %.1f/s more; μ = %.1f/s (the delete rate of %d keys above). "+
		"Predicted drain time B0/(μ−λ) = %.1f s; measured %.1f s, which B0/t + λ = %.1f/s of service explains. "+
		"Measured / predicted = %.2f; within %.0f%%: %s.%s\n\n",
		q.B0, q.Lambda, q.Mu, q.MuFrom, q.Forecast, q.Drained, float64(q.B0)/q.Drained+q.Lambda,
		q.measuredOverPredicted(), backlogTolerance*100, yesNo(q.holds()), drainedAt(q))
	b.WriteString("| t (s) | backlog measured | predicted max(0, B0 − (μ−λ)t) |\n| ---: | ---: | ---: |\n")
	step := max(1, len(q.Points)/12)
	for i, p := range q.Points {
		if i%step == 0 || i == len(q.Points)-1 {
			fmt.Fprintf(b, "| %.1f | %d | %.0f |\n", p.T, p.Measured, p.Predicted)
		}
	}
	b.WriteString("\n")
}

// reportScale renders the scale runs, one row per size, and their
// flatness. It reads the derived figures, so derive must have run.
func reportScale(b *strings.Builder, runs []scaleRun, f *flatness) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(b, "#### Steady state as keys grow, %s Coder, defaults\n\n", runs[0].Coder)
	fmt.Fprintf(b, "Each size through a provider process of its own, at most %d keys per namespace with a ProviderConfig each; "+
		"measured over a window that starts a minute after the last key was Ready.\n\n", maxPerNamespace)
	b.WriteString("| keys | namespaces | created and Ready in | provider CPU s per key per poll | µs | idle provider CPU s/s | µs per key per poll net of idle | RSS MiB | peak RSS MiB | RSS KiB per key | KiB per key added since the next smaller size | polls per key per minute | key lists per ProviderConfig per poll | Kubernetes writes per key per poll | all Coder requests in the window |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, s := range runs {
		added := "–"
		if s.RSSPerAdded != 0 {
			added = fmt.Sprintf("%.1f", s.RSSPerAdded)
		}
		other := slices.Sorted(maps.Keys(s.Other))
		parts := make([]string, 0, len(other))
		for _, k := range other {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, s.Other[k]))
		}
		idle, net := "–", "–"
		if s.IdleCPU > 0 {
			idle, net = fmt.Sprintf("%.3f", s.IdleCPU), fmt.Sprintf("%.0f", s.NetCPUPerPoll*1e6)
		}
		fmt.Fprintf(b, "| %d | %d | %.0f s | %.6f | %.0f | %s | %s | %.0f | %.0f | %.1f | %s | %.2f | %.2f | %.3f | %s in %.0f s |\n",
			s.Resources, s.Configs, s.CreateSecs, s.CPUPerPoll, s.CPUPerPoll*1e6, idle, net, s.RSS, s.PeakRSS, s.RSSPerKey, added,
			s.PollsPerMinute, s.Lists, s.Writes, strings.Join(parts, ", "), s.Window)
	}
	b.WriteString("\n")
	if f == nil {
		return
	}
	lo, hi := runs[0].Resources, runs[0].Resources
	for _, s := range runs {
		lo, hi = min(lo, s.Resources), max(hi, s.Resources)
	}
	cpu := "provider CPU per key per poll"
	if f.CPUNetOfIdle {
		cpu += " net of the idle provider's"
	}
	fmt.Fprintf(b, "Flatness from %d to %d keys, the largest per-key figure over the figure at %d keys (target at most %.1f): "+
		"%s %s; memory per key added %s. The largest over the smallest, whatever the size: %.2f and %.2f.\n\n",
		lo, hi, lo, f.Target, cpu, flatnessVerdict(*f, f.CPU), flatnessVerdict(*f, f.RSS), f.CPUSpread, f.RSSSpread)
}

func flatnessVerdict(f flatness, v float64) string {
	if v == 0 {
		return "not computed (a size has no figure)"
	}
	if f.met(v) {
		return fmt.Sprintf("%.2f, met", v)
	}
	return fmt.Sprintf("%.2f, not met", v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
