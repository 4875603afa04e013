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
	"math"
	"slices"
	"time"
)

// flatnessTarget is the most the largest per-key cost over the sizes may
// be, as a multiple of the smallest: cost that stays flat as keys grow.
const flatnessTarget = 1.2

// backlogTolerance is how far the measured drain time may be from the
// queue model's before the model is not taken to hold: 20%.
const backlogTolerance = 0.2

// flatness is how the scale runs' per-key costs grow with the keys: the
// largest figure over the figure at the smallest size, the verdict's
// figure, at most 1 when nothing costs more per key as keys grow; and the
// largest over the smallest figure, whatever their sizes, which counts a
// cost that falls as keys grow as much as one that rises. 0 when a size
// has no figure to compare (it ran no poll).
type flatness struct {
	CPU       float64 `json:"cpuPerResourcePerPollOverSmallestSize"`
	CPUSpread float64 `json:"cpuPerResourcePerPollMaxOverMin"`
	// CPUNetOfIdle says CPU compares the figures without the idle
	// provider's CPU (scaleRun.NetCPUPerPoll), as it does when every size
	// measured it.
	CPUNetOfIdle bool `json:"cpuNetOfIdle,omitempty"`
	// RSS is over the memory each added key costs, from one size to the
	// next (scaleRun.RSSPerAdded): 1 with two sizes.
	RSS       float64 `json:"rssPerAddedResourceOverSmallestSize"`
	RSSSpread float64 `json:"rssPerAddedResourceMaxOverMin"`
	Target    float64 `json:"target"`
}

// derive computes the figures that follow from what was measured. They are
// written to the JSON for its readers, and computed again when the report
// is rendered from earlier results.
func (r *results) derive() {
	for i := range r.Lifecycles {
		r.Lifecycles[i].APIServerMs = r.Lifecycles[i].apiServerMs()
	}
	for i := range r.Backlog {
		r.Backlog[i].Ratio = r.Backlog[i].measuredOverPredicted()
	}
	r.ScaleFlatness = deriveScale(r.Scale)
}

// apiServerMs is kube-apiserver's CPU milliseconds per resource over the
// create and the delete: what serving the provider's Kubernetes requests
// costs, apart from the provider's own CPU.
func (l lifecycle) apiServerMs() float64 {
	if l.N == 0 {
		return 0
	}
	return l.Bed["kube-apiserver"] * 1000 / float64(l.N)
}

// measuredOverPredicted is the measured drain time over the queue model's.
func (q backlogRun) measuredOverPredicted() float64 {
	if q.Forecast <= 0 {
		return 0
	}
	return q.Drained / q.Forecast
}

// holds says whether the measured drain time is within backlogTolerance
// of the predicted one.
func (q backlogRun) holds() bool {
	ratio := q.measuredOverPredicted()
	return ratio > 0 && math.Abs(ratio-1) <= backlogTolerance
}

// cpuPerPoll is the provider's CPU seconds in the window over the managed
// reconciles it ran in the window.
func (s scaleRun) cpuPerPoll() float64 {
	return s.perPoll(s.CPU)
}

// netCPUPerPoll is cpuPerPoll without the idle provider's CPU, or 0 when
// the idle CPU was not measured.
func (s scaleRun) netCPUPerPoll() float64 {
	if s.IdleCPU <= 0 {
		return 0
	}
	return s.perPoll(s.CPU - s.IdleCPU)
}

// perPoll is cpu CPU seconds a second over the window, over the polls in
// it; 0 without polls.
func (s scaleRun) perPoll(cpu float64) float64 {
	polls := s.Reconciles * float64(s.Resources) * s.Window / poll.Seconds()
	if polls <= 0 {
		return 0
	}
	return cpu * s.Window / polls
}

// rssPerKey is the provider's RSS over the keys, in KiB.
func (s scaleRun) rssPerKey() float64 {
	if s.Resources == 0 {
		return 0
	}
	return s.RSS * 1024 / float64(s.Resources)
}

// pollsPerMinute is the polls per key per minute.
func (s scaleRun) pollsPerMinute() float64 {
	return s.Reconciles * time.Minute.Seconds() / poll.Seconds()
}

// deriveScale fills in each scale run's per-key figures and returns their
// flatness over the sizes, or nil with fewer than two sizes.
func deriveScale(runs []scaleRun) *flatness {
	if len(runs) == 0 {
		return nil
	}
	bySize := make([]*scaleRun, len(runs))
	for i := range runs {
		bySize[i] = &runs[i]
	}
	slices.SortStableFunc(bySize, func(a, b *scaleRun) int { return a.Resources - b.Resources })
	var cpu, net, rss []float64
	for i, s := range bySize {
		s.CPUPerPoll, s.NetCPUPerPoll, s.RSSPerKey, s.PollsPerMinute = s.cpuPerPoll(), s.netCPUPerPoll(), s.rssPerKey(), s.pollsPerMinute()
		s.RSSPerAdded = 0
		if i > 0 {
			// What each key added since the next smaller size costs: the
			// provider's fixed memory, which RSS per key carries and
			// which weighs most at the smallest size, is left out.
			prev := bySize[i-1]
			if added := s.Resources - prev.Resources; added > 0 {
				s.RSSPerAdded = (s.RSS - prev.RSS) * 1024 / float64(added)
				rss = append(rss, s.RSSPerAdded)
			}
		}
		cpu = append(cpu, s.CPUPerPoll)
		net = append(net, s.NetCPUPerPoll)
	}
	if len(runs) < 2 {
		return nil
	}
	f := &flatness{CPU: overFirst(cpu), CPUSpread: maxOverMin(cpu), RSS: overFirst(rss), RSSSpread: maxOverMin(rss), Target: flatnessTarget}
	if !slices.Contains(net, 0) {
		// The idle provider's CPU is the same whatever the keys, so it
		// weighs most per key at the smallest size; without it the
		// figures compare what the polls cost.
		f.CPU, f.CPUSpread, f.CPUNetOfIdle = overFirst(net), maxOverMin(net), true
	}
	return f
}

// overFirst is the largest of vs over the first, the smallest size's, or
// 0 when any is not above zero (a size without a figure).
func overFirst(vs []float64) float64 {
	if len(vs) == 0 || slices.ContainsFunc(vs, func(v float64) bool { return v <= 0 }) {
		return 0
	}
	return slices.Max(vs) / vs[0]
}

// maxOverMin is the largest of vs over the smallest, or 0 when the
// smallest is not above zero.
func maxOverMin(vs []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo <= 0 || math.IsInf(lo, 1) {
		return 0
	}
	return hi / lo
}

// met says whether a flatness figure is computed and at most the target.
func (f flatness) met(v float64) bool {
	return v > 0 && v <= f.Target
}
