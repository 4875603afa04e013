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
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The production defaults' bound on a namespace deletion the hold waits
// for: dependentTimeout, then the grace at its most (apis/common/v1alpha1).
const productionHoldBound = 10*time.Minute + 5*time.Minute

// deletionCounts are one provider pod's cleanup counters, by kind:
// finalizer removals (deletion_duration_seconds' samples: deleted in Coder
// or released) and releases without delete.
type deletionCounts map[string][2]float64

func countsOf(mfs []*dto.MetricFamily) deletionCounts {
	out := deletionCounts{}
	for _, k := range []string{"AIGatewayKey", "AIProvider"} {
		removed := 0.0
		for _, mf := range mfs {
			if mf.GetName() != "provider_coder_cleanup_deletion_duration_seconds" {
				continue
			}
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "kind" && l.GetValue() == k {
						removed += float64(m.GetHistogram().GetSampleCount())
					}
				}
			}
		}
		out[k] = [2]float64{removed, testenv.Counter(mfs, "provider_coder_cleanup_released_without_delete_total", "kind", k)}
	}
	out[sweptKey] = [2]float64{sweptOf(mfs, "AIGatewayKey", "deleted"), sweptOf(mfs, "AIGatewayKey", "superseded")}
	return out
}

// sweptKey holds, in deletionCounts, the keys' records swept: deleted in
// Coder, and superseded.
const sweptKey = "swept AIGatewayKey"

// sweptOf is provider_coder_cleanup_swept_total{kind, result}.
func sweptOf(mfs []*dto.MetricFamily, kind, result string) float64 {
	for _, mf := range mfs {
		if mf.GetName() != "provider_coder_cleanup_swept_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] == kind && labels["result"] == result {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func (d deletionCounts) add(o deletionCounts, sign float64) {
	for k, v := range o {
		d[k] = [2]float64{d[k][0] + sign*v[0], d[k][1] + sign*v[1]}
	}
}

// TestLeaderFailoverDuringANamespaceDeletionDeletesEachObjectOnce runs the
// provider as the install guide does (two replicas, --leader-election, the
// production defaults), deletes a namespace of 200 keys and 50 providers,
// and kills the leader when about half are gone in Coder. The other replica
// takes the lease once it expired, the namespace goes within the hold's
// bound, and each object is deleted in Coder or released, counted once over
// both pods' lives and the cleanup records, none created twice.
func TestLeaderFailoverDuringANamespaceDeletionDeletesEachObjectOnce(t *testing.T) {
	ha, ok := env.Cluster.(testenv.Replicated)
	if !ok {
		t.Skip("only the kind cluster runs the provider as pods (make e2e)")
	}
	coder := env.Cluster.SpareCoder(t)
	ha.RunAsInstalled(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, coder, nil) // the production deletion defaults
	keys, providers := failoverObjects(t, ns, 200, 50)
	keyNames, providerNames := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		keyNames[aigatewaykey.DerivedName(k)] = true
	}
	for _, p := range providers {
		providerNames[*p.Spec.ForProvider.Name] = true
	}
	live := func() int {
		n := 0
		for _, k := range coder.Keys() {
			if keyNames[k.Name] {
				n++
			}
		}
		for _, p := range coder.Providers(false) {
			if providerNames[p.Name] {
				n++
			}
		}
		return n
	}
	total := len(keys) + len(providers)
	if n := live(); n != total {
		t.Fatalf("Coder holds %d of the namespace's %d objects before the deletion", n, total)
	}
	creates := coder.Requests(fakecoder.EndpointKeysCreate) + coder.Requests(fakecoder.EndpointProvidersCreate)

	// Each pod's counters before: the sums are over what the pods counted since.
	counted := deletionCounts{}
	for _, p := range ha.ProviderPods(t) {
		counted.add(scrape(t, ha, p), -1)
	}
	start := time.Now()
	env.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	testenv.Eventually(t, productionHoldBound, "half of the namespace's objects gone in Coder", func() (bool, string) {
		n := live()
		return n <= total/2, fmt.Sprintf("%d of %d left", n, total)
	})
	leader := ha.Leader(t)
	// A counter read and a kill cannot be one instant: Coder refuses for a
	// few seconds, far below unreachableTimeout (30s), so that the leader's
	// count stands still before it dies. Its deletes in flight fail or
	// land in Coder unanswered; the next leader finds out which.
	if err := coder.SetDown(true); err != nil {
		t.Fatal(err)
	}
	last := stillCounts(t, ha, leader)
	ha.KillPod(t, leader)
	killed := time.Now()
	if err := coder.SetDown(false); err != nil {
		t.Fatal(err)
	}
	// Nobody renews the lease now until another replica takes it, a lease
	// duration after the dead leader's last renewal.
	dead := ha.Lease(t)
	if dead.Holder != leader || dead.Duration != kind.LeaseDuration {
		t.Fatalf("the lease after the kill = %+v, want %s's of %s (controller-runtime's default)", dead, leader, kind.LeaseDuration)
	}
	left := live()
	counted.add(last, 1)
	t.Logf("leader %s killed %s into the deletion with %d of %d objects left in Coder", leader, killed.Sub(start).Round(100*time.Millisecond), left, total)

	waitNewLeader(t, ha, leader, killed)
	taken := ha.Lease(t)
	took := taken.Acquired.Sub(dead.Renewed)
	t.Logf("%s took the lease %s after the dead leader's last renewal", taken.Holder, took.Round(10*time.Millisecond))
	checkTakeover(t, taken.Holder, took)
	env.WaitGone(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, productionHoldBound)
	t.Logf("namespace gone %s after its deletion (bound %s)", time.Since(start).Round(time.Second), productionHoldBound)

	for _, p := range ha.ProviderPods(t) {
		counted.add(scrape(t, ha, p), 1)
	}
	checkEachOnce(t, coder, counted, keys, providers, keyNames, providerNames)
	if n := coder.Requests(fakecoder.EndpointKeysCreate) + coder.Requests(fakecoder.EndpointProvidersCreate) - creates; n != 0 {
		t.Errorf("%d creates reached Coder during the deletion, want none", n)
	}
}

// checkTakeover: a replica counts the lease duration from when it saw the
// last renewal, one jittered retry at most after it was written, and tries
// to take the lease once per jittered retry (client-go's leaderelection):
// kind.TakeoverBound.
func checkTakeover(t *testing.T, holder string, took time.Duration) {
	t.Helper()
	if bound := kind.TakeoverBound(); took > bound || took < kind.LeaseDuration {
		t.Errorf("%s took the lease %s after the dead leader's last renewal, want the lease duration and at most two jittered retries (%s to %s)",
			holder, took, kind.LeaseDuration, bound)
	}
}

// failoverObjects creates n keys and m providers in ns and waits until
// each is Ready.
func failoverObjects(t *testing.T, ns string, n, m int) ([]*aiv1alpha1.AIGatewayKey, []*aiv1alpha1.AIProvider) {
	t.Helper()
	env.Secret(t, ns, "llm-keys", map[string]string{"openai": "sk-failover-k3y9Qm2Xv7Lp"})
	keys := make([]*aiv1alpha1.AIGatewayKey, n)
	for i := range keys {
		keys[i] = newKey(ns, fmt.Sprintf("gateway-%03d", i))
		env.Create(t, keys[i])
	}
	providers := make([]*aiv1alpha1.AIProvider, m)
	for i := range providers {
		providers[i] = aiProvider(ns, fmt.Sprintf("openai-%02d", i), func(p *aiv1alpha1.AIProvider) {
			p.Spec.ForProvider.Name = ptr.To(fmt.Sprintf("fo-%s-%02d", ns, i))
		})
		env.Create(t, providers[i])
	}
	for _, k := range keys {
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	for _, p := range providers {
		env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	return keys, providers
}

func scrape(t *testing.T, ha testenv.Replicated, pod string) deletionCounts {
	t.Helper()
	mfs, err := ha.PodMetrics(t.Context(), pod)
	if err != nil {
		t.Fatalf("cannot read the metrics of provider pod %s: %v", pod, err)
	}
	return countsOf(mfs)
}

// stillCounts reads pod's counters until three reads a second apart agree.
func stillCounts(t *testing.T, ha testenv.Replicated, pod string) deletionCounts {
	t.Helper()
	var last deletionCounts
	same := 0
	testenv.EventuallyEvery(t, time.Second, 20*time.Second, "the leader's counters to stand still", func() (bool, string) {
		c := scrape(t, ha, pod)
		if fmt.Sprint(c) == fmt.Sprint(last) {
			same++
		} else {
			same = 0
		}
		last = c
		return same >= 2, fmt.Sprint(c)
	})
	return last
}

// waitNewLeader waits until a pod other than old holds the lease.
func waitNewLeader(t *testing.T, ha testenv.Replicated, old string, killed time.Time) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "another replica to take the lease", func() (bool, string) {
		l := ha.Leader(t)
		return l != "" && l != old && slices.Contains(ha.ProviderPods(t), l), "holder " + l
	})
	t.Logf("the lease went from %s to %s, seen %s after the kill", old, ha.Leader(t), time.Since(killed).Round(100*time.Millisecond))
}

// checkEachOnce: every object is deleted in Coder or released with its
// record Abandoned, and the pods counted each once.
func checkEachOnce(t *testing.T, coder testenv.Coder, counted deletionCounts, keys []*aiv1alpha1.AIGatewayKey, providers []*aiv1alpha1.AIProvider, keyNames, providerNames map[string]bool) {
	t.Helper()
	inCoder := map[string]int{}
	for _, k := range coder.Keys() {
		if keyNames[k.Name] {
			inCoder["AIGatewayKey"]++
		}
	}
	for _, p := range coder.Providers(false) {
		if providerNames[p.Name] {
			inCoder["AIProvider"]++
		}
	}
	uids := map[string]bool{}
	for _, k := range keys {
		uids[string(k.UID)] = true
	}
	for _, p := range providers {
		uids[string(p.UID)] = true
	}
	abandoned, active := map[string]int{}, 0
	records := &clusterv1alpha1.CleanupRecordList{}
	if err := env.Kube.List(context.Background(), records); err != nil {
		t.Fatal(err)
	}
	for _, r := range records.Items {
		if !uids[r.Spec.ManagedResource.UID] {
			continue
		}
		if r.Status.Phase == clusterv1alpha1.CleanupPhaseAbandoned {
			abandoned[r.Spec.Kind]++
		} else {
			active++
		}
	}
	if active != 0 {
		t.Errorf("%d cleanup records of the namespace's objects are still Active", active)
	}
	for kind, n := range map[string]int{"AIGatewayKey": len(keys), "AIProvider": len(providers)} {
		removed, released := counted[kind][0], counted[kind][1]
		t.Logf("%s: %d objects, %v finalizer removals and %v releases counted over both pods, %d left in Coder, %d records Abandoned",
			kind, n, removed, released, inCoder[kind], abandoned[kind])
		if removed != float64(n) {
			t.Errorf("%s: the pods counted %v finalizer removals, want %d, one per object", kind, removed, n)
		}
		if released != float64(abandoned[kind]) || inCoder[kind] != abandoned[kind] {
			t.Errorf("%s: %v releases counted, %d records Abandoned, %d left in Coder: want them equal", kind, released, abandoned[kind], inCoder[kind])
		}
	}
}
