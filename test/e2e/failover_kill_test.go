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
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// A killed leader, as the failover scenarios see it.
type killedLeader struct {
	pod    string
	dead   testenv.LeaseTimes // the lease as the killed process left it
	killed time.Time
}

// killLeaderInItsContainer kills the lease holder's process with kill -9
// in its container: the pod stays and kubelet restarts the container, a
// new process that holds the lease, if ever, under a new identity. As in
// TestLeaderFailoverDuringANamespaceDeletionDeletesEachObjectOnce, Coder
// refuses for a few seconds (far below unreachableTimeout) until three
// reads of the leader's counters agree, which are added to counted.
func killLeaderInItsContainer(t *testing.T, ha testenv.Replicated, coder testenv.Coder, counted deletionCounts) killedLeader {
	t.Helper()
	leader := ha.Leader(t)
	if err := coder.SetDown(true); err != nil {
		t.Fatal(err)
	}
	last := stillCounts(t, ha, leader)
	before := ha.Lease(t)
	ha.KillContainer(t, leader)
	killed := time.Now()
	if err := coder.SetDown(false); err != nil {
		t.Fatal(err)
	}
	counted.add(last, 1)
	dead := ha.Lease(t)
	if dead.Identity != before.Identity || dead.Holder != leader || dead.Duration != kind.LeaseDuration {
		t.Fatalf("the lease after the kill = %+v, want %s's of %s (controller-runtime's default)", dead, before.Identity, kind.LeaseDuration)
	}
	return killedLeader{pod: leader, dead: dead, killed: killed}
}

// waitTakeover waits until a process other than the killed one holds the
// lease, checks it took it within kind.TakeoverBound of the dead process's
// last renewal, and says which pod it is: the other replica, or (should
// it see the lease first) the killed pod's restarted container.
func waitTakeover(t *testing.T, ha testenv.Replicated, k killedLeader) time.Duration {
	t.Helper()
	var taken testenv.LeaseTimes
	testenv.Eventually(t, time.Minute, "another process to take the lease", func() (bool, string) {
		taken = ha.Lease(t)
		return taken.Identity != k.dead.Identity && slices.Contains(ha.ProviderPods(t), taken.Holder), "holder " + taken.Identity
	})
	who := "the other replica"
	if taken.Holder == k.pod {
		who = "the killed pod's restarted container"
	}
	took := taken.Acquired.Sub(k.dead.Renewed)
	t.Logf("%s (%s) took the lease %s after the dead leader's last renewal (seen %s after the kill)",
		who, taken.Holder, took.Round(10*time.Millisecond), time.Since(k.killed).Round(100*time.Millisecond))
	checkTakeover(t, taken.Holder, took)
	restarts, why := ha.PodRestarts(t, k.pod)
	if restarts < 1 {
		t.Errorf("pod %s's container restarted %d times after kill -9, want at least once", k.pod, restarts)
	}
	t.Logf("pod %s's container restarted %d times (last ended: %s)", k.pod, restarts, why)
	return took
}

// scrapeAll adds every ready provider pod's counters to counted, once both
// are ready again.
func scrapeAll(t *testing.T, ha testenv.Replicated, counted deletionCounts) {
	t.Helper()
	testenv.Eventually(t, 2*time.Minute, "both provider pods ready", func() (bool, string) {
		p := ha.ProviderPods(t)
		return len(p) == 2, fmt.Sprintf("ready: %v", p)
	})
	for _, p := range ha.ProviderPods(t) {
		counted.add(scrape(t, ha, p), 1)
	}
}

// TestLeaderKilledInItsContainerDuringARotationsSettleWindowRotatesEachKeyOnce
// runs the provider as the install guide does, asks 100 keys with a settle
// window of 2 minutes to rotate, and kills the leader with kill -9 in its
// container once every key is in its settle window. The other replica takes
// the lease once it expired; each key gets one new key (nothing created
// twice), keeps its old key through its window and loses it after; then a
// namespace deletion deletes each key once, counted over both pods' lives.
func TestLeaderKilledInItsContainerDuringARotationsSettleWindowRotatesEachKeyOnce(t *testing.T) {
	ha, ok := env.Cluster.(testenv.Replicated)
	if !ok {
		t.Skip("only the kind cluster runs the provider as pods (make e2e)")
	}
	const n, settle = 100, 2 * time.Minute
	coder := env.Cluster.SpareCoder(t)
	ha.RunAsInstalled(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, coder, nil) // the production deletion defaults
	keys := make([]*aiv1alpha1.AIGatewayKey, n)
	for i := range keys {
		keys[i] = rotatingKey(ns, fmt.Sprintf("rot-%03d", i), 0, settle)
		env.Create(t, keys[i])
	}
	for _, k := range keys {
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		env.Get(t, k)
	}
	// Each key's first and rotated Coder names.
	first, rotated := map[string]int{}, map[string]int{}
	for i, k := range keys {
		first[aigatewaykey.DerivedName(k)] = i
		rotated[aigatewaykey.RotatedKeyName("", ns, k.Name, string(k.UID), 1)] = i
	}
	oldIDs := map[int]string{}
	for _, row := range coder.Keys() {
		if i, ok := first[row.Name]; ok {
			oldIDs[i] = row.ID.String()
		}
	}
	if len(oldIDs) != n {
		t.Fatalf("Coder holds %d of the %d keys' first keys", len(oldIDs), n)
	}
	creates := coder.Requests(fakecoder.EndpointKeysCreate)
	counted := deletionCounts{}
	for _, p := range ha.ProviderPods(t) {
		counted.add(scrape(t, ha, p), -1)
	}

	// What Coder shows, looked at every second: the ids each name ever had,
	// when each new key was created, when each old key was first missing.
	w := &rotationWatch{idsOf: map[string]map[string]bool{}, newAt: map[int]time.Time{}, oldGone: map[int]time.Time{}}
	look := func() {
		present := map[string]bool{}
		for _, row := range coder.Keys() {
			present[row.ID.String()] = true
			if _, ok := first[row.Name]; !ok {
				if _, ok := rotated[row.Name]; !ok {
					continue
				}
			}
			if w.idsOf[row.Name] == nil {
				w.idsOf[row.Name] = map[string]bool{}
			}
			w.idsOf[row.Name][row.ID.String()] = true
			// The window begins with the creation of the new key that
			// stays: a later one of the same name, should there be one.
			if i, ok := rotated[row.Name]; ok && row.CreatedAt.After(w.newAt[i]) {
				w.newAt[i] = row.CreatedAt
			}
		}
		for i, id := range oldIDs {
			if _, gone := w.oldGone[i]; !gone && !present[id] {
				w.oldGone[i] = time.Now()
			}
		}
	}

	start := time.Now()
	for _, k := range keys {
		requestRotation(t, k, "1")
	}
	// The kill lands in every key's settle window: each has its new key
	// published (status names the retiring one), none is being created. A
	// kill amid the creates instead (59 of 100 made, in make e2e) loses the
	// plaintext of a create in flight: its key is found by name, deleted
	// and made again (DESIGN §3, uncertain create), a second create of that
	// name by design.
	testenv.Eventually(t, 5*time.Minute, "every key in its settle window", func() (bool, string) {
		look()
		l := &aiv1alpha1.AIGatewayKeyList{}
		if err := env.Kube.List(t.Context(), l, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		in := 0
		for i := range l.Items {
			if r := l.Items[i].Status.AtProvider.Rotation; r != nil && r.Counter == 1 && r.RetiringKeyID != "" {
				in++
			}
		}
		return in == n, fmt.Sprintf("%d of %d in their window, %d new keys in Coder", in, n, len(w.newAt))
	})
	kl := killLeaderInItsContainer(t, ha, coder, counted)
	look()
	t.Logf("leader %s killed (kill -9) %s after the rotations were asked, every key in its settle window (%d new keys created, %d old keys gone)",
		kl.pod, kl.killed.Sub(start).Round(100*time.Millisecond), len(w.newAt), len(w.oldGone))
	waitTakeover(t, ha, kl)

	testenv.EventuallyEvery(t, time.Second, settle+3*time.Minute, "every key rotated and every old key deleted after its window", func() (bool, string) {
		look()
		return len(w.newAt) == n && len(w.oldGone) == n, fmt.Sprintf("%d new keys, %d old keys gone", len(w.newAt), len(w.oldGone))
	})
	t.Logf("every key rotated and every old key gone %s after the rotations were asked (settle window %s)", time.Since(start).Round(time.Second), settle)
	w.check(t, n, settle)
	if d := coder.Requests(fakecoder.EndpointKeysCreate) - creates; d != n {
		t.Errorf("%d key creates reached Coder for %d rotations, want exactly one each", d, n)
	}
	// The retiring key's record goes once its delete is verified, a
	// reconcile after the key left Coder.
	testenv.Eventually(t, testenv.WaitLong, "one cleanup record per key, its one key in Coder", func() (bool, string) {
		for i, k := range keys {
			if recs := recordsOf(t, k); len(recs) != 1 {
				return false, fmt.Sprintf("key %d has %d records", i, len(recs))
			}
		}
		return true, ""
	})
	keyNames := map[string]bool{}
	for _, k := range keys {
		keyNames[aigatewaykey.RotatedKeyName("", ns, k.Name, string(k.UID), 1)] = true
		keyNames[aigatewaykey.DerivedName(k)] = true
	}

	// Then the namespace: each key deleted in Coder once, counted once.
	creates = coder.Requests(fakecoder.EndpointKeysCreate)
	deleted := time.Now()
	env.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	env.WaitGone(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, productionHoldBound)
	t.Logf("namespace gone %s after its deletion", time.Since(deleted).Round(time.Second))
	scrapeAll(t, ha, counted)
	checkEachOnce(t, coder, counted, keys, nil, keyNames, map[string]bool{})
	if d := coder.Requests(fakecoder.EndpointKeysCreate) - creates; d != 0 {
		t.Errorf("%d creates reached Coder during the deletion, want none", d)
	}
}

// rotationWatch is what the rotation scenario saw of Coder's keys.
type rotationWatch struct {
	idsOf   map[string]map[string]bool // Coder name → every id it had
	newAt   map[int]time.Time          // key → its new key's creation, by Coder's clock
	oldGone map[int]time.Time          // key → when its old key was first missing
}

// check: no name had two keys (nothing created twice), and no old key went
// before its window, which begins with the new key's creation, ended (the
// last second is left to the clocks of the test and the fake Coder).
func (w *rotationWatch) check(t *testing.T, n int, settle time.Duration) {
	t.Helper()
	for name, ids := range w.idsOf {
		if len(ids) > 1 {
			t.Errorf("Coder held %d keys named %s over the scenario, want one: created twice", len(ids), name)
		}
	}
	var early []string
	var after []time.Duration
	for i := range n {
		end := w.newAt[i].Add(settle)
		if w.oldGone[i].Before(end.Add(-time.Second)) {
			early = append(early, fmt.Sprintf("key %d %s early", i, end.Sub(w.oldGone[i]).Round(100*time.Millisecond)))
		}
		after = append(after, w.oldGone[i].Sub(end))
	}
	if len(early) > 0 {
		t.Errorf("%d old keys were deleted before their settle window ended: %s", len(early), strings.Join(early, ", "))
	}
	sort.Slice(after, func(i, j int) bool { return after[i] < after[j] })
	t.Logf("old keys seen gone after their window's end: median %s, last %s (looked at every second)",
		after[len(after)/2].Round(100*time.Millisecond), after[len(after)-1].Round(100*time.Millisecond))
}

// TestLeaderKilledInItsContainerDuringTheSweepSweepsEachRecordOnce runs the
// provider as the install guide does (the production sweep interval, 1h),
// leaves 500 Abandoned records with their keys in a Coder of their own that
// answers deletes in 200ms, and triggers the sweep the way a user does: a ProviderConfig for that Coder
// turning Ready. When about half of their keys are deleted, it kills the leader with kill
// -9 in its container. The other replica takes the lease once it expired
// and sweeps the rest at its start; each record is swept (its key verified
// gone, the record removed) and counted once over both pods' lives, and
// nothing is created.
func TestLeaderKilledInItsContainerDuringTheSweepSweepsEachRecordOnce(t *testing.T) {
	ha, ok := env.Cluster.(testenv.Replicated)
	if !ok {
		t.Skip("only the kind cluster runs the provider as pods (make e2e)")
	}
	const n = 500
	coder := env.Cluster.SpareCoder(t)
	ha.RunAsInstalled(t)
	ns := env.Namespace(t)
	c := coder.SDK(t)
	deployment := deploymentOf(t, coder)
	ids := make(map[string]bool, n)
	prefix := "aigatewaykey-sweep-" + ns
	for i := range n {
		name := fmt.Sprintf("sweep-%s-%03d", ns, i)
		resp, err := c.CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		ids[resp.ID.String()] = true
		env.CreateRecord(t, abandonedKeyRecord(fmt.Sprintf("%s-%03d", prefix, i), ns, deployment, name, resp.ID.String()))
	}
	left := func() int {
		l := &clusterv1alpha1.CleanupRecordList{}
		if err := env.Kube.List(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		m := 0
		for _, r := range l.Items {
			if strings.HasPrefix(r.Name, prefix) {
				m++
			}
		}
		return m
	}
	inCoder := func() int {
		m := 0
		for _, k := range coder.Keys() {
			if ids[k.ID.String()] {
				m++
			}
		}
		return m
	}
	creates, deletes := coder.Requests(fakecoder.EndpointKeysCreate), coder.Requests(fakecoder.EndpointKeysDelete)
	counted := deletionCounts{}
	for _, p := range ha.ProviderPods(t) {
		counted.add(scrape(t, ha, p), -1)
	}

	// A Coder that takes 200ms to answer a delete: one ProviderConfig's
	// records are swept one after the other, so the sweep of 500 lasts
	// long enough to kill the leader amid it (without, it took 20 s from
	// the first record removed to the last, shorter than the kill's own
	// steps).
	if err := coder.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Latency: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coder.ClearFault(fakecoder.EndpointKeysDelete) })
	start := time.Now()
	env.ReadyProviderConfigOf(t, ns, coder, nil) // turning Ready, it triggers the sweep
	// A ProviderConfig's share of the sweep deletes its records' objects in
	// Coder, verifies them gone with one list, then removes the records:
	// the records go at the end, the keys one by one.
	testenv.EventuallyEvery(t, 500*time.Millisecond, 5*time.Minute, "about half of the records' keys deleted in Coder", func() (bool, string) {
		m := inCoder()
		return m <= n/2, fmt.Sprintf("%d of %d keys left", m, n)
	})
	kl := killLeaderInItsContainer(t, ha, coder, counted)
	atKill, keysAtKill := left(), inCoder()
	if atKill == 0 {
		t.Errorf("the sweep was over before the leader was killed: the scenario killed no sweep")
	}
	t.Logf("leader %s killed (kill -9) %s into the sweep with %d of %d records and %d of their keys left",
		kl.pod, kl.killed.Sub(start).Round(100*time.Millisecond), atKill, n, keysAtKill)
	waitTakeover(t, ha, kl)
	testenv.EventuallyEvery(t, 500*time.Millisecond, 5*time.Minute, "every record swept", func() (bool, string) {
		m := left()
		return m == 0, fmt.Sprintf("%d of %d records left", m, n)
	})
	t.Logf("%d records swept %s after the ProviderConfig was created (%s after the kill)", n,
		time.Since(start).Round(time.Second), time.Since(kl.killed).Round(time.Second))
	scrapeAll(t, ha, counted)
	sweptDeleted, superseded := counted[sweptKey][0], counted[sweptKey][1]
	sent := coder.Requests(fakecoder.EndpointKeysDelete) - deletes
	t.Logf("swept counted over both pods: %v deleted, %v superseded; %d key deletes reached Coder for %d keys; %d keys left in Coder",
		sweptDeleted, superseded, sent, n, inCoder())
	if sweptDeleted+superseded != n {
		t.Errorf("the pods counted %v records swept, want %d, one per record", sweptDeleted+superseded, n)
	}
	if m := inCoder(); m != 0 {
		t.Errorf("%d swept keys are still in Coder", m)
	}
	if sent < n {
		t.Errorf("%d key deletes reached Coder for %d swept keys", sent, n)
	}
	if d := coder.Requests(fakecoder.EndpointKeysCreate) - creates; d != 0 {
		t.Errorf("%d creates reached Coder during the sweep, want none", d)
	}
}
