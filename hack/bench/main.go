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

// Command bench measures the provider's throughput and cost against the
// bare Coder client, side by side on the same Coder and control plane, and
// writes the figures into docs/performance.md (between its bench markers)
// and docs/performance.json (the data of the plots, tools/plot).
//
// The provider runs as users run it: its own binary, built without the race
// detector, in its own process, with its production defaults but
// --max-reconcile-rate. Coder requests and reconciles are read from its
// /metrics, Kubernetes writes from the API server's audit log (the
// provider's identity only), CPU and memory from /proc.
//
// `make bench` runs it; see docs/performance.md for what each figure means.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type results struct {
	Machine    string       `json:"machine"`
	Date       string       `json:"date"`
	Lifecycles []lifecycle  `json:"lifecycles"`
	Hold       []holdResult `json:"hold,omitempty"`
	Backlog    []backlogRun `json:"backlog,omitempty"`
	Scale      []scaleRun   `json:"scale,omitempty"`
	// ScaleFlatness compares the scale runs' sizes: set when there are two
	// or more.
	ScaleFlatness *flatness `json:"scaleFlatness,omitempty"`
}

type holdResult struct {
	Coder   string  `json:"coder"`
	Keys    int     `json:"keys"`
	Latency float64 `json:"releaseSeconds"`
}

// options are the benchmark's flags.
type options struct {
	coders, kinds []string
	ns, rates     []int
	hold, backlog int
	// scale is the key counts of the steady-state runs, one provider
	// process each.
	scale     []int
	window    time.Duration
	out, json string
	// profile is where scale runs save CPU and heap profiles (-profile).
	profile string
}

func main() {
	var (
		o             options
		coders, kinds string
		ns, rates     string
		scale         string
	)
	flag.StringVar(&coders, "coders", "fake,real", "Coders to drive: fake, real (Coder's API rate limit off, as in the test bed), real-limited (its default limit); real ones are skipped with a message when they cannot run here")
	flag.StringVar(&kinds, "kinds", "keys,providers", "managed kinds: keys, providers")
	flag.StringVar(&ns, "n", "200,1000", "resources per run")
	flag.StringVar(&rates, "rates", "10,100", "--max-reconcile-rate values")
	flag.IntVar(&o.hold, "hold", 50, "keys behind the ProviderConfig whose hold release is timed (0: skip)")
	flag.IntVar(&o.backlog, "backlog", 300, "deletion backlog B0 of the queue-model run at the default rate (0: skip)")
	flag.StringVar(&scale, "scale", "1000,5000,20000", "keys of the steady-state polling runs on the fake Coder, one provider process each, at most 500 keys per namespace (0 or empty: skip)")
	flag.DurationVar(&o.window, "window", 2*time.Minute, "steady-state window of each scale run")
	flag.StringVar(&o.profile, "profile", "", "directory where each scale run saves its provider's CPU profile of the window and heap profile at its end (go tool pprof reads them); empty: none")
	flag.StringVar(&o.out, "out", "docs/performance.md", "Markdown file whose bench section is replaced")
	flag.StringVar(&o.json, "json", "docs/performance.json", "results as JSON")
	from := flag.String("from", "", "render -out from these results (JSON) instead of measuring")
	flag.Parse()
	if *from != "" {
		if err := rerender(*from, o.out); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	o.coders, o.kinds, o.ns, o.rates = strings.Split(coders, ","), strings.Split(kinds, ","), ints(ns), ints(rates)
	o.scale = positive(ints(scale))
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	_, err := run(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// positive are the values of ns above zero: "-scale 0" skips the runs.
func positive(ns []int) []int {
	var out []int
	for _, n := range ns {
		if n > 0 {
			out = append(out, n)
		}
	}
	return out
}

func run(ctx context.Context, o options) (results, error) {
	res := results{Machine: machine(), Date: time.Now().UTC().Format(time.DateOnly)}
	b, err := startBed(ctx)
	if err != nil {
		return res, err
	}
	defer b.stop()
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o750); err != nil {
			return res, err
		}
		b.profile = o.profile
	}
	for _, name := range o.coders {
		var c coderBed
		switch name {
		case "", "none":
			continue
		case "fake":
			c, err = startFake()
		case "real", "real-limited":
			if c, err = startReal(ctx, name == "real-limited"); err != nil {
				fmt.Printf("real Coder skipped: %v\n", err)
				continue
			}
		default:
			return res, fmt.Errorf("unknown coder %q", name)
		}
		if err != nil {
			return res, err
		}
		err = runCoder(ctx, b, c, o, &res)
		c.stop()
		if err != nil {
			return res, err
		}
	}
	if err := runScale(ctx, b, o, &res); err != nil {
		return res, err
	}
	res.derive()
	return res, write(res, o.out, o.json)
}

func runCoder(ctx context.Context, b *bed, c coderBed, o options, res *results) error {
	mu := map[int]float64{}
	for _, kn := range o.kinds {
		k := keys
		if kn == "providers" {
			k = providers
		} else if c.noKeys {
			continue
		}
		for _, rate := range o.rates {
			for _, n := range o.ns {
				id := fmt.Sprintf("%c%c-%d-%d", k.name[2]|0x20, c.tag, n, rate)
				start := time.Now()
				l, err := b.runLifecycle(ctx, c, k, n, rate, id)
				if err != nil {
					return err
				}
				fmt.Printf("%s %s N=%d rate=%d: creates %.1f/s (bare %.1f/s, %.2fx), deletes %.1f/s (bare %.1f/s, %.2fx), %.1f writes/resource, %.2f reconciles/create, Coder/create: %s; CPU %.1fs, peak RSS %.0f MiB (%s)\n",
					c.name, k.name, n, rate, l.Creates, l.BareCreates, l.Creates/l.BareCreates, l.Deletes, l.BareDeletes, l.Deletes/l.BareDeletes,
					l.writesPerResource(), l.ReconcilesCreate, perEach(l.CoderCreate, 1), l.CPU, l.PeakRSS, time.Since(start).Round(time.Second))
				res.Lifecycles = append(res.Lifecycles, l)
				if k.name == keys.name && n == o.ns[0] {
					mu[rate] = l.Deletes
				}
			}
		}
	}
	if hold := o.hold; hold > 0 {
		d, err := b.holdLatency(ctx, c, hold, fmt.Sprintf("hold-%c", c.tag))
		if err != nil {
			return err
		}
		fmt.Printf("%s hold: released %.2fs after the last of %d keys was gone\n", c.name, d.Seconds(), hold)
		res.Hold = append(res.Hold, holdResult{Coder: c.name, Keys: hold, Latency: d.Seconds()})
	}
	if m, ok := mu[10]; ok && o.backlog > 0 {
		b0 := o.backlog
		r, err := b.backlog(ctx, c, 10, b0, m/2, m, fmt.Sprintf("backlog-%c", c.tag))
		if err != nil {
			return err
		}
		r.MuFrom = o.ns[0]
		fmt.Printf("%s backlog B0=%d, lambda=%.1f/s, mu=%.1f/s: drained in %.1fs, predicted %.1fs (measured/predicted %.2f)\n", c.name, b0, r.Lambda, r.Mu, r.Drained, r.Forecast, r.measuredOverPredicted())
		res.Backlog = append(res.Backlog, r)
	}
	return nil
}

func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		_, _ = fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %f kB", &kb)
		mem = fmt.Sprintf(", %.0f GiB", kb/1024/1024)
	}
	return fmt.Sprintf("%d × %s%s, %s/%s, %s", runtime.NumCPU(), cpu, mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// rerender writes the report of earlier results: after a change of the
// report's text, without measuring again.
func rerender(from, out string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	var res results
	if err := json.Unmarshal(data, &res); err != nil {
		return err
	}
	res.derive()
	return replaceSection(out, report(res))
}

func write(res results, out, jsonOut string) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(jsonOut, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return replaceSection(out, report(res))
}
