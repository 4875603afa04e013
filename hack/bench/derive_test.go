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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Two sizes measured over a 120 s window, the second out of order: the
// figures per key and per poll come from what was measured, and the RSS
// per added key from the smallest size whatever its place.
func TestScaleFiguresArePerKeyPerPollAndTheirFlatnessIsMaxOverMin(t *testing.T) {
	runs := []scaleRun{
		// 0.4 CPU s/s over 120 s is 48 s; 1 poll per key per minute of
		// 5,000 keys over 2 minutes is 10,000 polls.
		{Resources: 5000, Configs: 10, Window: 120, CPU: 0.4, Reconciles: 1, RSS: 180},
		// 6 s over 0.9 × 1,000 × 2 = 1,800 polls.
		{Resources: 1000, Configs: 2, Window: 120, CPU: 0.05, Reconciles: 0.9, RSS: 100},
		// 6 s over 20,000 × 2 polls; 300 MiB more for 15,000 more keys.
		{Resources: 20000, Configs: 40, Window: 120, CPU: 0.05, Reconciles: 1, RSS: 480},
	}
	f := deriveScale(runs)
	type figures struct{ CPUPerPoll, RSSPerKey, RSSPerAdded, PollsPerMinute float64 }
	got := []figures{}
	for _, s := range runs {
		got = append(got, figures{s.CPUPerPoll, s.RSSPerKey, s.RSSPerAdded, s.PollsPerMinute})
	}
	want := []figures{
		{CPUPerPoll: 48 / 10000.0, RSSPerKey: 180 * 1024 / 5000.0, RSSPerAdded: 80 * 1024 / 4000.0, PollsPerMinute: 1},
		{CPUPerPoll: 6 / 1800.0, RSSPerKey: 100 * 1024 / 1000.0, RSSPerAdded: 0, PollsPerMinute: 0.9},
		{CPUPerPoll: 6 / 40000.0, RSSPerKey: 480 * 1024 / 20000.0, RSSPerAdded: 300 * 1024 / 15000.0, PollsPerMinute: 1},
	}
	approx := cmpopts.EquateApprox(1e-9, 0)
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("per-key figures: -want +got:\n%s", diff)
	}
	// CPU per poll rises 1.44 times from 1,000 keys to 5,000, then falls
	// to a 32nd at 20,000: the verdict weighs the rise.
	wantF := &flatness{
		CPU: (48 / 10000.0) / (6 / 1800.0), CPUSpread: (48 / 10000.0) / (6 / 40000.0),
		RSS: 1, RSSSpread: 1, Target: 1.2,
	}
	if diff := cmp.Diff(wantF, f, approx); diff != "" {
		t.Errorf("flatness: -want +got:\n%s", diff)
	}
	// CPU 1.44 is not within the target, RSS 1.0 is.
	if f.met(f.CPU) || !f.met(f.RSS) {
		t.Errorf("flatness verdicts: CPU %.3f met=%v, RSS %.3f met=%v; want not met, met", f.CPU, f.met(f.CPU), f.RSS, f.met(f.RSS))
	}
}

// With the idle provider's CPU measured at every size, flatness compares
// the polls' own cost; a size without it leaves the raw figures compared.
func TestScaleCPUFlatnessIsNetOfTheIdleProviderWhenEverySizeMeasuredIt(t *testing.T) {
	runs := []scaleRun{
		// (0.042 - 0.0245) × 120 over 2,000 polls: 1,050 µs.
		{Resources: 1000, Window: 120, CPU: 0.042, IdleCPU: 0.0245, Reconciles: 1, RSS: 110},
		// (0.555 - 0.0245) × 120 over 40,000 polls: 1,591.5 µs.
		{Resources: 20000, Window: 120, CPU: 0.555, IdleCPU: 0.0245, Reconciles: 1, RSS: 637},
	}
	f := deriveScale(runs)
	approx := cmpopts.EquateApprox(1e-9, 0)
	if diff := cmp.Diff([]float64{0.00105, 0.0015915}, []float64{runs[0].NetCPUPerPoll, runs[1].NetCPUPerPoll}, approx); diff != "" {
		t.Errorf("net CPU per poll: -want +got:\n%s", diff)
	}
	if !f.CPUNetOfIdle || math.Abs(f.CPU-0.0015915/0.00105) > 1e-9 {
		t.Errorf("flatness %+v, want net of idle, %.4f", *f, 0.0015915/0.00105)
	}
	runs[0].IdleCPU = 0
	f = deriveScale(runs)
	// Raw, 20,000 keys cost less per poll than 1,000: 1,665 µs against
	// 2,520 µs, so nothing grew; the spread still shows the fall.
	if raw := (0.555 * 120 / 40000) / (0.042 * 120 / 2000); f.CPUNetOfIdle || f.CPU != 1 || math.Abs(f.CPUSpread-1/raw) > 1e-9 {
		t.Errorf("a size without its idle CPU: flatness %+v, want the raw figures': 1 and a spread of %.4f", *f, 1/raw)
	}
}

func TestScaleFlatnessNeedsTwoSizesThatPolled(t *testing.T) {
	if f := deriveScale([]scaleRun{{Resources: 1000, Window: 120, CPU: 0.1, Reconciles: 1, RSS: 90}}); f != nil {
		t.Errorf("one size: flatness %+v, want none", *f)
	}
	f := deriveScale([]scaleRun{
		{Resources: 1000, Window: 120, CPU: 0.1, Reconciles: 1, RSS: 90},
		{Resources: 5000, Window: 120, CPU: 0.4, Reconciles: 0, RSS: 150},
	})
	if f == nil || f.CPU != 0 || f.met(f.CPU) {
		t.Errorf("a size without polls: flatness %+v, want CPU not computed (0) and not met", f)
	}
}

func TestBacklogRatioIsMeasuredOverPredictedWithin20Percent(t *testing.T) {
	cases := map[string]struct {
		drained, forecast float64
		ratio             float64
		holds             bool
	}{
		"twice the prediction":   {drained: 242.1, forecast: 123.0, ratio: 242.1 / 123.0},
		"as predicted":           {drained: 123, forecast: 123, ratio: 1, holds: true},
		"19% over":               {drained: 119, forecast: 100, ratio: 1.19, holds: true},
		"21% under":              {drained: 79, forecast: 100, ratio: 0.79},
		"no prediction to weigh": {drained: 50, forecast: 0, ratio: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := results{Backlog: []backlogRun{{Drained: tc.drained, Forecast: tc.forecast}}}
			r.derive()
			q := r.Backlog[0]
			if diff := cmp.Diff(tc.ratio, q.Ratio, cmpopts.EquateApprox(1e-9, 0)); diff != "" {
				t.Errorf("ratio: -want +got:\n%s", diff)
			}
			if q.holds() != tc.holds {
				t.Errorf("within 20%%: got %v, want %v", q.holds(), tc.holds)
			}
		})
	}
}

// The report carries the new figures: kube-apiserver's CPU per lifecycle
// lifted out of the per-process map, the backlog's ratio and verdict, and
// the scale table with its flatness.
func TestReportShowsAPIServerCPUBacklogRatioAndTheScaleCurve(t *testing.T) {
	r := results{
		Lifecycles: []lifecycle{{Coder: "fake", Kind: "AIGatewayKey", N: 200, Rate: 10, Creates: 5, BareCreates: 50, Deletes: 5, BareDeletes: 50,
			Writes: map[string]int{"update aigatewaykeys": 800}, Bed: map[string]float64{"kube-apiserver": 20.24, "etcd": 5.25}}},
		Backlog: []backlogRun{{Coder: "fake", Rate: 10, B0: 300, Lambda: 2.4, Mu: 4.9, MuFrom: 200, Drained: 237.9, Forecast: 122.6}},
		Scale: []scaleRun{
			// Flat per poll (3,000 µs both), but not once the idle
			// provider's 0.02 s/s is taken out: (0.05 - 0.02) × 120 s
			// over 2,000 polls is 1,800 µs, (0.25 - 0.02) × 120 s over
			// 10,000 is 2,760 µs, 1.53 times as much.
			{Coder: "fake", Resources: 1000, Configs: 2, Window: 120, CPU: 0.05, IdleCPU: 0.02, Reconciles: 1, RSS: 100},
			{Coder: "fake", Resources: 5000, Configs: 10, Window: 120, CPU: 0.25, IdleCPU: 0.02, Reconciles: 1, RSS: 180},
		},
	}
	r.derive()
	md := report(r)
	for _, want := range []string{
		"| kube-apiserver CPU ms per lifecycle |",
		"| 0.0 | 0 | 101.2 |", // CPU s, peak RSS, then 20.24 s × 1000 / 200
		"Measured / predicted = 1.94; within 20%: no.",
		"#### Steady state as keys grow, fake Coder, defaults",
		"| 1000 | 2 | 0 s | 0.003000 | 3000 | 0.020 | 1800 | 100 | 0 | 102.4 | – | 1.00 |",
		"| 5000 | 10 | 0 s | 0.003000 | 3000 | 0.020 | 2760 | 180 | 0 | 36.9 | 20.5 | 1.00 |",
		"provider CPU per key per poll net of the idle provider's 1.53, not met; memory per key added 1.00, met. The largest over the smallest, whatever the size: 1.53 and 1.00.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
