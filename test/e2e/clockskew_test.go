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
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The scenarios of this file run a Coder whose clock differs from the
// cluster's (issue 26, item 6): the provider compares Coder's timestamps only
// with Coder's own times, so an owned key is swept, an adopted provider is
// deleted, and a rotation's window lasts as long as it says, however far
// the clocks are apart. Each offset runs on a fake Coder of its own, in
// parallel with the others.

// onSkewedCoders runs f once per offset, each on a spare fake Coder whose
// clock runs that far ahead of the cluster's (behind when negative).
func onSkewedCoders(t *testing.T, offsets []time.Duration, f func(t *testing.T, c testenv.Coder)) {
	t.Helper()
	for _, d := range offsets {
		t.Run(skewName(d), func(t *testing.T) {
			t.Parallel()
			c := env.Cluster.SpareCoder(t)
			if err := c.SetClockOffset(d); err != nil {
				t.Fatal(err)
			}
			f(t, c)
		})
	}
}

// skewName names an offset: CoderBehind2m0s, CoderAhead2m0s.
func skewName(d time.Duration) string {
	if d < 0 {
		return "CoderBehind" + (-d).String()
	}
	return "CoderAhead" + d.String()
}

// twoMinutes is Coder two minutes behind the cluster and two minutes ahead.
var twoMinutes = []time.Duration{-2 * time.Minute, 2 * time.Minute}

// TestClockSkewSweepDeletesTheKeyItsRecordNames: a key released without a
// delete (Coder down while its namespace went) is swept later. Coder dated
// the key by its clock, the API server the record by its own; with Coder
// two minutes behind, the key looked older than its record, which made it
// someone else's and "absent": the record went and the key stayed.
func TestClockSkewSweepDeletesTheKeyItsRecordNames(t *testing.T) {
	onSkewedCoders(t, twoMinutes, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Deletion = shortBounds() })
		k := newKey(ns, "swept")
		env.Create(t, k)
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		id := meta.GetExternalName(k)

		releaseWhileCoderIsDownThenSweep(t, c, ns, k.UID)
		if testenv.LiveKey(c, id) {
			t.Errorf("key %s is still in Coder after the sweep settled its record", id)
		}
	})
}

// TestClockSkewSweepKeepsARecordThatNamesAnOlderKey: a record naming a key
// Coder made minutes before the record was written is not the record's,
// and the key is not deleted; but it is not absent either, so the record
// stays, with an error that says why, however often the sweep retries.
func TestClockSkewSweepKeepsARecordThatNamesAnOlderKey(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	// Coder's clock ran five minutes behind when the key was made, then was
	// put right: on Coder's clock the key is five minutes old.
	if err := c.SetClockOffset(-5 * time.Minute); err != nil {
		t.Fatal(err)
	}
	resp, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "older-key"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetClockOffset(0); err != nil {
		t.Fatal(err)
	}
	ns := env.Namespace(t)
	rec := abandonedKeyRecord("aigatewaykey-older-"+ns, ns, deploymentOf(t, c), "older-key", resp.ID.String())
	env.CreateRecord(t, rec)
	t.Cleanup(func() { env.Delete(t, rec) })

	sweepThrough(t, c)
	testenv.Eventually(t, testenv.WaitLong, "two sweeps to fail on the record, keeping it", func() (bool, string) {
		if !env.Get(t, rec) {
			return false, "the record is gone"
		}
		return rec.Status.Attempts >= 2 && strings.Contains(rec.Status.LastError, "predates the cleanup record"),
			fmt.Sprintf("attempts %d, last error %q", rec.Status.Attempts, rec.Status.LastError)
	})
	if !testenv.LiveKey(c, resp.ID.String()) {
		t.Errorf("the sweep deleted key %s, which Coder made before the record that names it", resp.ID)
	}
	if !env.Get(t, rec) || rec.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
		t.Errorf("the record after the sweeps = %+v, want still Abandoned", rec.Status)
	}
}

// TestClockSkewAdoptedProviderIsDeleted: a create whose answer was lost
// wrote a provider; the next reconcile adopts it only if Coder created it
// within the attempt's window. With Coder's clock ten seconds or two minutes
// behind, or two minutes ahead, that window was measured against the
// cluster's clock: the provider was called someone else's, never adopted,
// and left in Coder when the resource was deleted.
func TestClockSkewAdoptedProviderIsDeleted(t *testing.T) {
	onSkewedCoders(t, []time.Duration{-10 * time.Second, -2 * time.Minute, 2 * time.Minute}, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		env.Secret(t, ns, "openai", map[string]string{"key": "sk-skewed-k3y9Qm2Xv7Lp"})
		// The provider is written and the answer lost: the outcome is
		// uncertain.
		if err := c.SetFault(fakecoder.EndpointProvidersCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
			t.Fatal(err)
		}
		p := newAIProvider(ns, "skewed", "openai", "https://api.openai.com/v1")
		p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
		env.Create(t, p)
		env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		name := *p.Spec.ForProvider.Name
		rows := providersNamed(c, name)
		if len(rows) != 1 || meta.GetExternalName(p) != rows[0].ID.String() {
			t.Fatalf("external name %q, Coder's providers named %s %+v: want the one the uncertain create wrote, adopted", meta.GetExternalName(p), name, rows)
		}

		env.Delete(t, p)
		env.WaitGone(t, p, testenv.WaitLong)
		if rows := providersNamed(c, name); len(rows) != 0 {
			t.Errorf("the adopted provider %s is still in Coder after its resource was deleted", rows[0].ID)
		}
		if r := recordOf(t, "AIProvider", p.UID); r != nil {
			t.Errorf("the provider's cleanup record is left: %+v", r.Status)
		}
	})
}

// providersNamed returns c's live providers named name.
func providersNamed(c testenv.Coder, name string) []fakecoder.ProviderRow {
	var out []fakecoder.ProviderRow
	for _, p := range c.Providers(false) {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// TestClockSkewRotationKeepsTheOldKeyThroughItsWindow: a rotation's settle
// window runs from the new key's creation, a time of Coder's, and the old
// key goes early only when Coder shows no heartbeat on it for two periods.
// With Coder's clock two minutes behind, both were measured against the
// cluster's clock: the window was over at once, and a key whose replica
// still beat looked abandoned. Here a replica keeps beating on the old key:
// it must stay valid for the whole window and, still in use, on to
// maxSettleWindow, both on Coder's clock; and go when that ends, not a poll
// later.
func TestClockSkewRotationKeepsTheOldKeyThroughItsWindow(t *testing.T) {
	const settle, maxSettle = 20 * time.Second, 40 * time.Second
	onSkewedCoders(t, twoMinutes, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		k := rotatingKey(ns, "skewed", 0, settle)
		k.Spec.ForProvider.Rotation.MaxSettleWindow = &metav1.Duration{Duration: maxSettle}
		env.Create(t, k)
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		old := publishedOn(t, c, k, "")

		requestRotation(t, k, "1")
		cur := publishedOn(t, c, k, old.ID.String())
		// Some replicas moved to the new key, one is still on the old one;
		// both beat, on Coder's clock, as a replica's heartbeat is.
		stop := beating(t, c, old, cur)
		defer stop()

		windowEnd, revokeBy := cur.CreatedAt.Add(settle), cur.CreatedAt.Add(maxSettle)
		until := func(end time.Time) time.Duration { return end.Sub(c.Now()) }
		testenv.Never(t, until(windowEnd)-time.Second, "the old key revoked before its settle window ended", func() (bool, string) {
			return !testenv.LiveKey(c, old.ID.String()), fmt.Sprintf("revoked %s before the window's end, on Coder's clock", until(windowEnd).Round(time.Millisecond))
		})
		// Past the window, the old key still beats: it is kept, and the
		// resource says so.
		env.WaitCondition(t, k, aigatewaykey.TypeRetiringKeyInUse, corev1.ConditionTrue, testenv.WaitLong)
		testenv.Never(t, until(revokeBy)-time.Second, "the old key, still in use, revoked before maxSettleWindow", func() (bool, string) {
			return !testenv.LiveKey(c, old.ID.String()), fmt.Sprintf("revoked %s before maxSettleWindow ended, on Coder's clock", until(revokeBy).Round(time.Millisecond))
		})
		testenv.Eventually(t, testenv.WaitLong, "the old key to be deleted when maxSettleWindow ends", func() (bool, string) {
			return !testenv.LiveKey(c, old.ID.String()), "old key still in Coder"
		})
		late := -until(revokeBy)
		t.Logf("old key deleted %s after maxSettleWindow ended, on Coder's clock (Coder %s from the cluster, settle %s, max %s)",
			late.Round(time.Millisecond), time.Until(c.Now()).Round(time.Second), settle, maxSettle)
		if late > 3*env.Options.PollInterval+5*time.Second {
			t.Errorf("the old key was deleted %s after maxSettleWindow ended: the window ran long", late.Round(time.Millisecond))
		}
	})
}

// beating makes a gateway replica on each key heartbeat every few seconds,
// at Coder's now, until stop is called.
func beating(t *testing.T, c testenv.Coder, keys ...fakecoder.KeyRow) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			for _, k := range keys {
				// A deleted key's replica is refused: nothing to record.
				_ = c.Heartbeat(k.ID, c.Now())
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
