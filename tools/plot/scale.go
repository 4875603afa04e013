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
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// scaleRun is one size of the steady-state runs, with the per-key figures
// the benchmark derived from it.
type scaleRun struct {
	Coder       string  `json:"coder"`
	Resources   int     `json:"resources"`
	CPUPerPoll  float64 `json:"cpuSecondsPerResourcePerPoll"`
	RSSPerKey   float64 `json:"rssKiBPerResource"`
	RSSPerAdded float64 `json:"rssKiBPerAddedResource"`
}

// flatTarget is the flatness target of the per-key costs: the largest at
// most 1.2 times the smallest over the sizes.
const flatTarget = 1.2

// scalePlots draws the provider's CPU per key per poll and its RSS per key
// against the number of keys, on a log axis, each with the line 1.2 times
// its lowest value that the sizes must stay under to count as flat.
func scalePlots(runs []scaleRun) ([]*plot.Plot, error) {
	runs = append([]scaleRun(nil), runs...)
	sort.Slice(runs, func(i, j int) bool { return runs[i].Resources < runs[j].Resources })
	var cpu, rss, added plotter.XYs
	for _, r := range runs {
		x := float64(r.Resources)
		cpu = append(cpu, plotter.XY{X: x, Y: r.CPUPerPoll * 1e6})
		rss = append(rss, plotter.XY{X: x, Y: r.RSSPerKey})
		if r.RSSPerAdded != 0 {
			added = append(added, plotter.XY{X: x, Y: r.RSSPerAdded})
		}
	}
	cp, err := scalePanel(runs, "provider CPU per key per poll", "µs per poll (CPU s in the window / polls run)", []curve{{"per key per poll", cpu}})
	if err != nil {
		return nil, err
	}
	curves := []curve{{"RSS / keys", rss}}
	if len(added) > 0 {
		curves = append(curves, curve{"RSS added / keys added, over the smallest size", added})
	}
	rp, err := scalePanel(runs, "provider RSS per key", "KiB per key", curves)
	if err != nil {
		return nil, err
	}
	return []*plot.Plot{cp, rp}, nil
}

// A curve is one line of a panel; the first curve of a panel is the one
// whose flatness is drawn.
type curve struct {
	label string
	pts   plotter.XYs
}

func scalePanel(runs []scaleRun, title, ylabel string, curves []curve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s vs keys, %s Coder, defaults", title, runs[0].Coder)
	p.X.Label.Text = "keys (log scale)"
	p.Y.Label.Text = ylabel
	// Bottom left: the lines run above it, from zero.
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	lo, hi := float64(runs[0].Resources), float64(runs[len(runs)-1].Resources)
	if hi > lo {
		p.X.Scale = plot.LogScale{}
		var ticks plot.ConstantTicks
		for _, r := range runs {
			ticks = append(ticks, plot.Tick{Value: float64(r.Resources), Label: fmt.Sprint(r.Resources)})
		}
		p.X.Tick.Marker = ticks
	}
	for i, c := range curves {
		l, pts, err := plotter.NewLinePoints(c.pts)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color = palette[i%len(palette)], palette[i%len(palette)]
		p.Add(l, pts)
		p.Legend.Add(c.label, l, pts)
	}
	lowest := math.Inf(1)
	for _, pt := range curves[0].pts {
		lowest = math.Min(lowest, pt.Y)
	}
	if lowest > 0 && hi > lo {
		t, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lowest * flatTarget}, {X: hi, Y: lowest * flatTarget}})
		if err != nil {
			return nil, err
		}
		t.Color = palette[len(palette)-1]
		t.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(t)
		p.Legend.Add(fmt.Sprintf("flat: at most %.1f × the lowest %s", flatTarget, curves[0].label), t)
	}
	// From zero: how flat a line is shows against its whole height.
	p.Y.Min, p.Y.Max = 0, p.Y.Max*1.1
	return p, nil
}
