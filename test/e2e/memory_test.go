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
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// memoryWatch samples each provider pod's container memory, as its cgroup
// counts it, every few seconds: a restarted container starts a new cgroup
// and loses the peak of the one before, so the samples keep it.
type memoryWatch struct {
	mu      sync.Mutex
	peak    map[string]int64 // pod → the highest cgroup peak seen
	samples int
	errs    int
	lastErr error
}

func watchMemory(ctx context.Context, ha testenv.Replicated, pods func() []string, every time.Duration) *memoryWatch {
	w := &memoryWatch{peak: map[string]int64{}}
	go func() {
		for {
			for _, p := range pods() {
				peak, _, err := ha.PodMemory(ctx, p)
				w.mu.Lock()
				if err != nil {
					w.errs++
					w.lastErr = err
				} else {
					w.samples++
					w.peak[p] = max(w.peak[p], peak)
				}
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	}()
	return w
}

func (w *memoryWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := ""
	for p, b := range w.peak {
		s += fmt.Sprintf("%s %.0f MiB; ", p, float64(b)/(1<<20))
	}
	return fmt.Sprintf("%s%d samples, %d failed (last: %v)", s, w.samples, w.errs, w.lastErr)
}

// TestTheProviderAtTheInstallGuidesLimitHolds5000KeysWithoutAnOOMKill runs
// the provider as the install guide does (two replicas, a 512Mi memory
// limit, --poll=1m) and has it create 5,000 keys in a fake Coder pod, in 10
// namespaces of 500 with a ProviderConfig each (the layout docs/performance.md
// measured), hold them through two polls, and delete them. No container
// restarts (an OOM kill restarts it); the log says each pod's peak
// memory as its cgroup counts it (what the OOM killer compares with the
// limit) and its resident memory at the steady state.
// PROVIDER_CODER_E2E_MEMORY_LIMIT replaces the guide's limit, to watch the
// scenario fail below what the provider needs.
func TestTheProviderAtTheInstallGuidesLimitHolds5000KeysWithoutAnOOMKill(t *testing.T) {
	ha, ok := env.Cluster.(testenv.Replicated)
	if !ok {
		t.Skip("only the kind cluster runs the provider as pods, with a memory limit (make e2e)")
	}
	const namespaces, perNamespace = 10, 500
	coder := env.Cluster.SpareCoder(t)
	ha.RunAsInstalled(t)
	pods := ha.ProviderPods(t)
	restartsBefore := map[string]int32{}
	for _, p := range pods {
		restartsBefore[p], _ = ha.PodRestarts(t, p)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	w := watchMemory(ctx, ha, func() []string { return pods }, 3*time.Second)

	start := time.Now()
	var nss []string
	for range namespaces {
		ns := env.Namespace(t)
		nss = append(nss, ns)
		env.ReadyProviderConfigOf(t, ns, coder, nil)
	}
	// One writer per namespace: 5,000 creates one after the other took
	// 3m24s on the kind node.
	var wg sync.WaitGroup
	errs := make(chan error, len(nss))
	for _, ns := range nss {
		wg.Go(func() {
			for i := range perNamespace {
				if err := env.Kube.Create(context.Background(), newKey(ns, fmt.Sprintf("mem-%03d", i))); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("cannot create the keys: %v", err)
	}
	t.Logf("%d keys created in Kubernetes in %s", namespaces*perNamespace, time.Since(start).Round(time.Second))
	ready := func() (int, error) {
		n := 0
		for _, ns := range nss {
			l := &aiv1alpha1.AIGatewayKeyList{}
			if err := env.Kube.List(context.Background(), l, client.InNamespace(ns)); err != nil {
				return 0, err
			}
			for i := range l.Items {
				if l.Items[i].GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue {
					n++
				}
			}
		}
		return n, nil
	}
	restarted := func() {
		for _, p := range pods {
			if n, why := ha.PodRestarts(t, p); n != restartsBefore[p] {
				t.Fatalf("pod %s's container restarted %d times (last ended: %s) %s after the first create; memory: %s",
					p, n-restartsBefore[p], why, time.Since(start).Round(time.Second), w)
			}
		}
	}
	logged := time.Now()
	testenv.EventuallyEvery(t, 5*time.Second, 40*time.Minute, "every key Ready", func() (bool, string) {
		restarted()
		n, err := ready()
		if err != nil {
			return false, err.Error()
		}
		if time.Since(logged) > time.Minute {
			logged = time.Now()
			t.Logf("%d keys Ready %s after the first create; memory so far: %s", n, time.Since(start).Round(time.Second), w)
		}
		return n == namespaces*perNamespace, fmt.Sprintf("%d Ready; memory: %s", n, w)
	})
	t.Logf("%d keys Ready %s after the first create; memory so far: %s", namespaces*perNamespace, time.Since(start).Round(time.Second), w)
	// Two polls of the install guide's --poll=1m at the steady state: the
	// leader has reconciled every key twice more.
	leader := ha.Leader(t)
	keyReconciles := func() float64 {
		mfs, err := ha.PodMetrics(t.Context(), leader)
		if err != nil {
			return -1
		}
		return keyReconcilesOf(mfs)
	}
	polled := keyReconciles()
	testenv.EventuallyEvery(t, 5*time.Second, 5*time.Minute, "two polls of every key at the steady state", func() (bool, string) {
		restarted()
		d := keyReconciles() - polled
		return d >= 2*namespaces*perNamespace, fmt.Sprintf("%.0f key reconciles by %s since every key was Ready", d, leader)
	})
	for _, p := range pods {
		mfs, err := ha.PodMetrics(t.Context(), p)
		if err != nil {
			t.Errorf("cannot read pod %s's metrics: %v", p, err)
			continue
		}
		t.Logf("pod %s at the steady state: resident %.0f MiB, Go heap in use %.0f MiB", p,
			gauge(mfs, "process_resident_memory_bytes")/(1<<20), gauge(mfs, "go_memstats_heap_inuse_bytes")/(1<<20))
	}

	deleted := time.Now()
	for _, ns := range nss {
		env.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	for _, ns := range nss {
		env.WaitGone(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, productionHoldBound)
	}
	t.Logf("the %d namespaces gone %s after their deletion", namespaces, time.Since(deleted).Round(time.Second))
	stop()
	t.Logf("peak memory by cgroup over create, steady state and deletion (limit %s): %s", memoryLimit(t, pods[0]), w)
	for _, p := range pods {
		n, why := ha.PodRestarts(t, p)
		if d := n - restartsBefore[p]; d != 0 {
			t.Errorf("pod %s's container restarted %d times during the scenario (last ended: %s), want none", p, d, why)
		} else {
			t.Logf("pod %s: no restart", p)
		}
	}
}

// keyReconcilesOf sums the reconciles of the AIGatewayKey controllers.
func keyReconcilesOf(mfs []*dto.MetricFamily) float64 {
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && strings.HasPrefix(l.GetValue(), "managed/aigatewaykey.") {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// gauge is a gauge's value, the first series of name.
func gauge(mfs []*dto.MetricFamily, name string) float64 {
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return 0
}

// memoryLimit is the memory limit of pod's container.
func memoryLimit(t *testing.T, pod string) string {
	t.Helper()
	p := &corev1.Pod{}
	if err := env.Kube.Get(t.Context(), client.ObjectKey{Namespace: kind.ProviderNamespace, Name: pod}, p); err != nil {
		return err.Error()
	}
	return p.Spec.Containers[0].Resources.Limits.Memory().String()
}
