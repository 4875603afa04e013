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
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// maxPerNamespace is the most keys a scale run puts in one namespace. At
// the default --max-reconcile-rate of 10 a second per namespace, 500 keys
// polling once a minute ask 8.3 reconciles a second, so their polls keep
// up; 1,000 would ask 16.7 and each poll would stretch to 100 s.
const maxPerNamespace = 500

// poll is the provider's default --poll, which the scale runs keep.
const poll = time.Minute

// A scaleRun is the cost of polling many keys at steady state, through a
// provider process of its own at its production defaults.
type scaleRun struct {
	Coder     string `json:"coder"`
	Resources int    `json:"resources"`
	// Configs is the namespaces, each with one ProviderConfig.
	Configs    int     `json:"providerConfigs"`
	CreateSecs float64 `json:"createSeconds"`
	Window     float64 `json:"windowSeconds"`
	// RSS is the mean of the provider's resident memory sampled every 5 s
	// over the window: one sample swings with the garbage collector's
	// cycle by up to the size of the live heap.
	RSS     float64 `json:"rssMiB"`
	PeakRSS float64 `json:"peakRSSMiB"`
	// CPU is the provider's CPU seconds per second of the window.
	CPU float64 `json:"cpuPerSecond"`
	// IdleCPU is the same provider's CPU seconds per second over a window
	// of the same length with its ProviderConfigs Ready and no key yet:
	// what it costs whatever the keys (the ProviderConfigs' own polls,
	// metrics, the Go runtime). 0 in results from before it was measured.
	IdleCPU float64 `json:"idleCPUPerSecond,omitempty"`
	// Lists is the key lists per ProviderConfig per poll interval.
	Lists float64 `json:"listsPerConfigPerPoll"`
	// Reconciles is the managed reconciles run (the polls) per key per
	// poll interval.
	Reconciles float64 `json:"reconcilesPerResourcePerPoll"`
	// Writes are the provider's Kubernetes writes per key per poll.
	Writes float64            `json:"kubernetesWritesPerResourcePerPoll"`
	Other  map[string]float64 `json:"coderRequestsInWindow"`
	// DrainSecs is how long deleting the namespaces took, until nothing
	// of them was left, records included, when another size followed;
	// DrainReleased the keys released without a delete meanwhile (the
	// sweep then deletes them). 0 when not measured.
	DrainSecs     float64 `json:"drainSeconds,omitempty"`
	DrainReleased float64 `json:"drainReleasedWithoutDelete,omitempty"`

	// Derived from the figures above (derive.go).

	// CPUPerPoll is the provider's CPU seconds in the window over the
	// managed reconciles it ran in the window: the polls.
	CPUPerPoll float64 `json:"cpuSecondsPerResourcePerPoll"`
	// NetCPUPerPoll is CPUPerPoll without the idle provider's CPU: what
	// the polls themselves cost, the figure whose flatness is judged (0
	// without IdleCPU).
	NetCPUPerPoll float64 `json:"netCPUSecondsPerResourcePerPoll,omitempty"`
	// RSSPerKey is RSS over keys; RSSPerAdded is RSS minus the smallest
	// size's, over the keys added to it (0 for the smallest). Both KiB.
	RSSPerKey   float64 `json:"rssKiBPerResource"`
	RSSPerAdded float64 `json:"rssKiBPerAddedResource"`
	// PollsPerMinute is 1 when the polls keep up with --poll=1m.
	PollsPerMinute float64 `json:"pollsPerResourcePerMinute"`
}

// runScale measures steady-state polling at each size of o.scale, one
// after the other, each on a fake Coder of its own. The last size's
// namespaces are left to the bed's stop, which follows.
func runScale(ctx context.Context, b *bed, o options, res *results) error {
	for i, n := range o.scale {
		c, err := startFake()
		if err != nil {
			return err
		}
		r, err := b.scale(ctx, c, n, o.window, i < len(o.scale)-1)
		c.stop()
		if err != nil {
			return err
		}
		fmt.Printf("scale: %d keys in %d namespaces, Ready in %.0fs: CPU %.0f µs per key per poll (%.3f s/s; idle %.3f s/s), RSS %.0f MiB (%.1f KiB per key, peak %.0f MiB), %.2f polls per key per minute, %.2f key lists per ProviderConfig per poll, %.3f Kubernetes writes per key per poll\n",
			r.Resources, r.Configs, r.CreateSecs, r.cpuPerPoll()*1e6, r.CPU, r.IdleCPU, r.RSS, r.rssPerKey(), r.PeakRSS, r.pollsPerMinute(), r.Lists, r.Writes)
		res.Scale = append(res.Scale, r)
	}
	return nil
}

// spread divides n keys over the fewest namespaces of at most
// maxPerNamespace keys each, as evenly as it can: 1,100 keys are 367, 367
// and 366.
func spread(n int) []int {
	k := (n + maxPerNamespace - 1) / maxPerNamespace
	out := make([]int, k)
	for i := range out {
		out[i] = n / k
		if i < n%k {
			out[i]++
		}
	}
	return out
}

// scale runs n keys through a provider process of its own at its
// production defaults, spread over namespaces of at most maxPerNamespace
// keys with a ProviderConfig each, waits for all to be Ready and a minute
// more, and measures window of steady-state polling. With drain (another
// size follows) it then deletes the namespaces, the provider still running,
// and waits until nothing of them is left: the next size's provider then
// caches, polls and sweeps nothing of this one.
func (b *bed) scale(ctx context.Context, c coderBed, n int, window time.Duration, drain bool) (scaleRun, error) {
	each := spread(n)
	r := scaleRun{Coder: c.name, Resources: n, Configs: len(each), Window: window.Seconds()}
	names := make([]string, len(each))
	for i := range names {
		names[i] = fmt.Sprintf("scale%d-%d", n, i)
	}
	first, err := b.session(ctx, c, names[0])
	if err != nil {
		return r, err
	}
	defer first.p.stop()
	if drain {
		if err := b.platformConfig(ctx, c); err != nil {
			return r, err
		}
	}
	// Every namespace but the first (the session's own) gets a Ready
	// ProviderConfig; with them and no key, the provider idles.
	for _, ns := range names[1:] {
		if err := first.providerConfig(ctx, ns); err != nil {
			return r, err
		}
	}
	if r.IdleCPU, err = idleWindow(ctx, first.p, window); err != nil {
		return r, err
	}
	took, err := b.scaleCreate(ctx, first, names, each)
	if err != nil {
		return r, err
	}
	r.CreateSecs = took.Seconds()
	// Let the creates' requeues settle into the steady poll.
	if err := sleep(ctx, time.Minute); err != nil {
		return r, err
	}
	if err := b.scaleWindow(ctx, first.p, window, &r); err != nil {
		return r, err
	}
	if !drain {
		return r, nil
	}
	s0, err := scrape(ctx, first.p.metrics)
	if err != nil {
		return r, err
	}
	start := time.Now()
	if err := b.drain(ctx, names); err != nil {
		return r, err
	}
	r.DrainSecs = time.Since(start).Seconds()
	s1, err := scrape(ctx, first.p.metrics)
	if err != nil {
		return r, err
	}
	r.DrainReleased = s1.released - s0.released
	fmt.Printf("scale %d: namespaces deleted and drained in %.0f s, %.0f keys released without a delete (swept after)\n", n, r.DrainSecs, r.DrainReleased)
	return r, nil
}

// idleWindow is p's CPU seconds per second over window, after a minute
// that lets the ProviderConfigs' first checks settle.
func idleWindow(ctx context.Context, p *proc, window time.Duration) (float64, error) {
	if err := sleep(ctx, time.Minute); err != nil {
		return 0, err
	}
	u0, err := p.usage()
	if err != nil {
		return 0, err
	}
	if err := sleep(ctx, window); err != nil {
		return 0, err
	}
	u1, err := p.usage()
	if err != nil {
		return 0, err
	}
	return (u1.CPU - u0.CPU) / window.Seconds(), nil
}

// scaleCreate creates each namespace's keys, and returns how long they
// took, from the first create to the last key Ready.
func (b *bed) scaleCreate(ctx context.Context, first *session, names []string, each []int) (time.Duration, error) {
	trackers := make([]*tracker, 0, len(names))
	defer func() {
		for _, t := range trackers {
			t.stop()
		}
	}()
	start := time.Now()
	for i, ns := range names {
		trackers = append(trackers, track(ctx, b.dyn, keys.gvr, ns))
		objs, _ := keysOf(ns, ns, each[i])
		// create sends each object to its own namespace.
		if err := first.create(ctx, objs); err != nil {
			return 0, err
		}
	}
	deadline, cancel := context.WithTimeout(ctx, 60*time.Minute)
	defer cancel()
	for i, t := range trackers {
		if t.until(deadline, func(_, rd, _ int) bool { return rd == each[i] }).IsZero() {
			_, rd, _ := t.counts()
			return 0, fmt.Errorf("scale: %d of %d keys in %s Ready after 60 minutes; provider log %s", rd, each[i], names[i], first.p.log)
		}
	}
	return time.Since(start), nil
}

// scaleWindow measures window of steady-state polling of p into r: its CPU
// and memory, the managed reconciles it ran, its Coder requests and its
// Kubernetes writes.
func (b *bed) scaleWindow(ctx context.Context, p *proc, window time.Duration, r *scaleRun) error {
	s0, err := scrape(ctx, p.metrics)
	if err != nil {
		return err
	}
	u0, _ := p.usage()
	off := b.auditOffset()
	cpu := p.cpuProfile(ctx, window, b.profileFile(r.Resources, "cpu"))
	rss, err := p.meanRSS(ctx, window, rssSample)
	if err != nil {
		return err
	}
	if err := <-cpu; err != nil {
		return err
	}
	if err := p.saveProfile(ctx, "heap", b.profileFile(r.Resources, "heap")); err != nil {
		return err
	}
	s1, err := scrape(ctx, p.metrics)
	if err != nil {
		return err
	}
	u1, _ := p.usage()
	w, err := b.writes(off, "") // its namespaces are all this run's
	if err != nil {
		return err
	}
	d := s1.since(s0)
	polls := window.Seconds() / poll.Seconds()
	r.Lists = d.coder["GET /api/v2/ai-gateway/keys"] / float64(r.Configs) / polls
	r.Reconciles = managedReconciles(d.reconciles) / float64(r.Resources) / polls
	nw := 0
	for _, v := range w {
		nw += v
	}
	r.Writes = float64(nw) / float64(r.Resources) / polls
	r.Other = per(d.coder, 1)
	r.CPU = (u1.CPU - u0.CPU) / window.Seconds()
	r.RSS, r.PeakRSS = rss, u1.PeakRSS
	return nil
}

// rssSample is how often the scale window samples the provider's RSS.
const rssSample = 5 * time.Second

// meanRSS samples p's RSS every period over window and returns the mean of
// the samples, in MiB.
func (p *proc) meanRSS(ctx context.Context, window, period time.Duration) (float64, error) {
	end := time.Now().Add(window)
	sum, n := 0.0, 0
	for {
		u, err := p.usage()
		if err != nil {
			return 0, err
		}
		sum, n = sum+u.RSS, n+1
		left := time.Until(end)
		if left <= 0 {
			return sum / float64(n), nil
		}
		if err := sleep(ctx, min(period, left)); err != nil {
			return 0, err
		}
	}
}

// drain deletes the namespaces while the provider runs, and waits until
// they are gone and so are the cleanup records of the keys they held: the
// provider deletes each key in Coder before it releases the key's
// finalizer, and each ProviderConfig's hold once its keys are gone.
func (b *bed) drain(ctx context.Context, names []string) error {
	in := make(map[string]bool, len(names))
	for _, ns := range names {
		in[ns] = true
		err := b.kube.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err = client.IgnoreNotFound(err); err != nil {
			return fmt.Errorf("scale: cannot delete namespace %s: %w", ns, err)
		}
	}
	left := -1
	err := wait.PollUntilContextTimeout(ctx, 5*time.Second, 60*time.Minute, true, func(ctx context.Context) (bool, error) {
		n, err := b.leftIn(ctx, in)
		if err != nil {
			// A read that failed is asked again at the next poll.
			return false, nil
		}
		left = n
		return left == 0, nil
	})
	if err != nil {
		return fmt.Errorf("scale: %d of namespaces %s to %s, or cleanup records of their keys, left after 60 minutes: %w", left, names[0], names[len(names)-1], err)
	}
	return nil
}

// leftIn counts the namespaces of in that still exist, or, once none
// does, the cleanup records of resources in them.
func (b *bed) leftIn(ctx context.Context, in map[string]bool) (int, error) {
	nss := &corev1.NamespaceList{}
	if err := b.kube.List(ctx, nss); err != nil {
		return 0, err
	}
	left := 0
	for _, ns := range nss.Items {
		if in[ns.Name] {
			left++
		}
	}
	if left > 0 {
		return left, nil
	}
	recs := &clusterv1alpha1.CleanupRecordList{}
	if err := b.kube.List(ctx, recs); err != nil {
		return 0, err
	}
	for _, rec := range recs.Items {
		if in[rec.Spec.ManagedResource.Namespace] {
			left++
		}
	}
	return left, nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// profileFile is where the scale run of n keys saves its profile of kind,
// or "" when the bed does not profile.
func (b *bed) profileFile(n int, kind string) string {
	if b.profile == "" {
		return ""
	}
	return filepath.Join(b.profile, fmt.Sprintf("scale-%d.%s.pprof", n, kind))
}

// cpuProfile saves p's CPU profile of the next d to file, and sends its
// error when done; with no file, or a p without pprof, it sends nil at
// once.
func (p *proc) cpuProfile(ctx context.Context, d time.Duration, file string) <-chan error {
	done := make(chan error, 1)
	if file == "" || p.pprof == "" {
		done <- nil
		return done
	}
	go func() {
		done <- p.save(ctx, fmt.Sprintf("/profile?seconds=%d", int(d.Seconds())), file)
	}()
	return done
}

// saveProfile saves p's profile of kind (heap, goroutine) to file, if any.
func (p *proc) saveProfile(ctx context.Context, kind, file string) error {
	if file == "" || p.pprof == "" {
		return nil
	}
	return p.save(ctx, "/"+kind, file)
}

func (p *proc) save(ctx context.Context, path, file string) error {
	resp, err := httpGet(ctx, p.pprof+path)
	if err != nil {
		return fmt.Errorf("profile %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile %s: %s", path, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
