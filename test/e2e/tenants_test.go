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
	"sync"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// quietKeyBound is how long a new key of one namespace may take to turn
// Ready while another namespace's backlog waits for its reconcile rate.
// Alone it takes about a second; were the rate shared by every namespace,
// it would wait behind the whole backlog, tens of seconds.
const quietKeyBound = 10 * time.Second

// TestANoisyNamespacesBacklogLeavesAnotherNamespacesNewKeyReadyInSeconds:
// a few hundred keys created at once in one namespace (no fault: a Coder
// that answers, a real backlog of reconciles) wait for that namespace's
// share of --max-reconcile-rate; a key created meanwhile in another
// namespace does not wait behind them.
func TestANoisyNamespacesBacklogLeavesAnotherNamespacesNewKeyReadyInSeconds(t *testing.T) {
	const n = 200
	quiet := env.Namespace(t)
	env.ProviderConfig(t, quiet)
	alone := timeToReady(t, quiet, "alone")

	noisy := env.Namespace(t)
	env.ProviderConfig(t, noisy)
	deferred := reconcilesDeferred(t)
	start := time.Now()
	createAtOnce(t, n, func(i int) client.Object { return newKey(noisy, fmt.Sprintf("backlog-%03d", i)) })
	created := time.Since(start)
	// The backlog is real: the rate already sends the noisy namespace's
	// reconciles back to wait.
	testenv.Eventually(t, testenv.WaitLong, "the noisy namespace's reconciles to be deferred", func() (bool, string) {
		d := reconcilesDeferred(t) - deferred
		return d > 0, fmt.Sprintf("%v deferred", d)
	})

	waiting := n - readyKeys(t, noisy)
	beside := timeToReady(t, quiet, "beside")
	t.Logf("a new key became Ready in %s alone, %s beside %d keys created at once in another namespace (created in %s; %d of them not Ready when it was created, %v reconciles deferred)",
		alone.Round(time.Millisecond), beside.Round(time.Millisecond), n, created.Round(time.Millisecond), waiting, reconcilesDeferred(t)-deferred)
	if waiting == 0 {
		t.Errorf("the noisy namespace's %d keys were all Ready before the quiet one was created: no backlog was measured", n)
	}
	if beside > quietKeyBound {
		t.Errorf("a key took %s to become Ready beside another namespace's backlog of %d keys, want under %s", beside, n, quietKeyBound)
	}
}

// reconcilesDeferred is provider_coder_reconciles_deferred_total over every
// controller.
func reconcilesDeferred(t *testing.T) float64 {
	t.Helper()
	return sumCounter(env.Cluster.ProviderMetrics(t), "provider_coder_reconciles_deferred_total")
}

// sumCounter sums the counter name over all its labels.
func sumCounter(mfs []*dto.MetricFamily, name string) float64 {
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// createAtOnce creates n objects from 20 clients at once, as an apply of a
// directory or a GitOps sync does, rather than one after another.
func createAtOnce(t *testing.T, n int, obj func(i int) client.Object) {
	t.Helper()
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for i := range next {
				errs <- env.Kube.Create(context.Background(), obj(i))
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("cannot create: %v", err)
		}
	}
}
