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

// Command plot draws the figures of docs/performance.md from the results
// `make bench` writes (docs/performance.json): throughput against the number
// of resources and against --max-reconcile-rate, next to the bare client, the
// deletion backlog against the queue model, and the steady state's cost per
// key as keys grow. It is its own module so that
// its plotting library stays out of the provider's dependencies.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

type lifecycle struct {
	Coder       string  `json:"coder"`
	Kind        string  `json:"kind"`
	N           int     `json:"n"`
	Rate        int     `json:"rate"`
	Creates     float64 `json:"createsPerSecond"`
	Deletes     float64 `json:"deletesPerSecond"`
	BareCreates float64 `json:"bareCreatesPerSecond"`
	BareDeletes float64 `json:"bareDeletesPerSecond"`
}

type backlog struct {
	Coder  string `json:"coder"`
	B0     int    `json:"b0"`
	Points []struct {
		T         float64 `json:"t"`
		Measured  int     `json:"measured"`
		Predicted float64 `json:"predicted"`
	} `json:"points"`
}

type results struct {
	Lifecycles []lifecycle `json:"lifecycles"`
	Backlog    []backlog   `json:"backlog"`
	Scale      []scaleRun  `json:"scale"`
}

func main() {
	in := flag.String("in", "docs/performance.json", "results of make bench")
	out := flag.String("out", "docs/performance.png", "throughput figure")
	backlogOut := flag.String("backlog", "docs/performance-backlog.png", "backlog figure")
	scaleOut := flag.String("scale", "", "figure of the steady state as keys grow (default: performance-scale.png beside -out)")
	flag.Parse()
	if *scaleOut == "" {
		*scaleOut = filepath.Join(filepath.Dir(*out), "performance-scale.png")
	}
	if err := run(*in, *out, *backlogOut, *scaleOut); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

func run(in, out, backlogOut, scaleOut string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var r results
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	var panels []*plot.Plot
	for _, axis := range []string{"N", "rate"} {
		for _, op := range []string{"creates", "deletes"} {
			p, err := throughput(r.Lifecycles, axis, op)
			if err != nil {
				return err
			}
			panels = append(panels, p)
		}
	}
	if err := save(out, panels, 2, 2); err != nil {
		return err
	}
	if len(r.Backlog) > 0 {
		var bl []*plot.Plot
		for _, b := range r.Backlog {
			p, err := backlogPlot(b)
			if err != nil {
				return err
			}
			bl = append(bl, p)
		}
		if err := save(backlogOut, bl, 1, len(bl)); err != nil {
			return err
		}
	}
	if len(r.Scale) == 0 {
		return nil
	}
	sc, err := scalePlots(r.Scale)
	if err != nil {
		return err
	}
	return save(scaleOut, sc, 1, len(sc))
}

// series groups the runs of one line: coder, kind and the fixed parameter.
type series struct {
	label string
	pts   plotter.XYs
}

// throughput plots op per second against axis ("N" or "rate"), one line per
// coder, kind and value of the other parameter, and the bare client's rate.
func throughput(ls []lifecycle, axis, op string) (*plot.Plot, error) {
	p := plot.New()
	other := map[string]string{"N": "rate", "rate": "N"}[axis]
	p.Title.Text = fmt.Sprintf("%s/s vs %s", op, map[string]string{"N": "resources (N)", "rate": "--max-reconcile-rate"}[axis])
	p.X.Label.Text = map[string]string{"N": "N", "rate": "--max-reconcile-rate"}[axis]
	p.Y.Label.Text = op + " per second"
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(7)

	groups := map[string]*series{}
	for _, l := range ls {
		x, fixed := float64(l.N), l.Rate
		if axis == "rate" {
			x, fixed = float64(l.Rate), l.N
		}
		y, bare := l.Creates, l.BareCreates
		if op == "deletes" {
			y, bare = l.Deletes, l.BareDeletes
		}
		for _, s := range []struct {
			who string
			y   float64
		}{{"provider", y}, {"bare client", bare}} {
			key := fmt.Sprintf("%s: %s, %s Coder, %s=%d", s.who, l.Kind, l.Coder, other, fixed)
			g := groups[key]
			if g == nil {
				g = &series{label: key}
				groups[key] = g
			}
			g.pts = append(g.pts, plotter.XY{X: x, Y: max(s.y, 0.01)})
		}
	}
	keys := make([]string, 0, len(groups))
	for k, g := range groups {
		if len(g.pts) > 1 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		// The bare client on the fake is 100 times faster than anything
		// else: a log scale keeps the rest readable.
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, k := range keys {
		g := groups[k]
		sort.Slice(g.pts, func(a, b int) bool { return g.pts[a].X < g.pts[b].X })
		l, pts, err := plotter.NewLinePoints(g.pts)
		if err != nil {
			return nil, err
		}
		c := palette[i%len(palette)]
		l.Color, pts.Color = c, c
		if len(k) > 4 && k[:4] == "bare" {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, pts)
		p.Legend.Add(g.label, l, pts)
	}
	return p, nil
}

func backlogPlot(b backlog) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("deletion backlog, %s Coder: measured vs max(0, B0 - (mu - lambda) t)", b.Coder)
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = "resources deleted, not yet gone"
	var measured, predicted plotter.XYs
	for _, pt := range b.Points {
		measured = append(measured, plotter.XY{X: pt.T, Y: float64(pt.Measured)})
		predicted = append(predicted, plotter.XY{X: pt.T, Y: pt.Predicted})
	}
	m, err := plotter.NewLine(measured)
	if err != nil {
		return nil, err
	}
	m.Color = palette[0]
	pr, err := plotter.NewLine(predicted)
	if err != nil {
		return nil, err
	}
	pr.Color = palette[1]
	pr.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(m, pr)
	p.Legend.Add("measured", m)
	p.Legend.Add("predicted", pr)
	p.Legend.Top = true
	return p, nil
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

// save draws panels in a grid of rows by cols into a PNG.
func save(path string, panels []*plot.Plot, rows, cols int) error {
	const w, h = 7 * vg.Inch, 5 * vg.Inch
	img := vgimg.New(w*vg.Length(cols), h*vg.Length(rows))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	grid := make([][]*plot.Plot, rows)
	for i := range rows {
		grid[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(panels) {
				grid[i][j] = panels[k]
			}
		}
	}
	canvases := plot.Align(grid, tiles, dc)
	for i := range rows {
		for j := range cols {
			if grid[i][j] != nil {
				grid[i][j].Draw(canvases[i][j])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
