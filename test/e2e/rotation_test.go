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
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// rotatingKey is a key with a rotation section; every may be zero.
func rotatingKey(ns, name string, every, settle time.Duration) *aiv1alpha1.AIGatewayKey {
	k := newKey(ns, name)
	k.Spec.ForProvider.Rotation = &common.AIGatewayKeyRotation{SettleWindow: &metav1.Duration{Duration: settle}}
	if every > 0 {
		k.Spec.ForProvider.Rotation.Every = &metav1.Duration{Duration: every}
	}
	return k
}

// isKeyOf matches the Coder names of k's keys, any rotation.
func isKeyOf(k *aiv1alpha1.AIGatewayKey) func(string) bool {
	prefix, ns, name, uid := k.Spec.ForProvider.NamePrefix, k.Namespace, k.Name, string(k.UID)
	return func(keyName string) bool {
		_, ok := aigatewaykey.RotationOf(keyName, prefix, ns, name, uid)
		return ok
	}
}

// liveKeysOf returns the fake's keys of k, any rotation.
func liveKeysOf(k *aiv1alpha1.AIGatewayKey) []fakecoder.KeyRow {
	match := isKeyOf(k)
	var out []fakecoder.KeyRow
	for _, row := range env.Coder.Keys() {
		if match(row.Name) {
			out = append(out, row)
		}
	}
	return out
}

// connSecret reads k's connection Secret.
func connSecret(t *testing.T, k *aiv1alpha1.AIGatewayKey) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Spec.WriteConnectionSecretToReference.Name}}
	if !env.Get(t, s) {
		return nil
	}
	return s
}

// waitPublished waits until the connection Secret holds a key the fake
// accepts whose id is not old, and returns that key's row.
func waitPublished(t *testing.T, k *aiv1alpha1.AIGatewayKey, old string, timeout time.Duration) fakecoder.KeyRow {
	t.Helper()
	var row fakecoder.KeyRow
	testenv.Eventually(t, timeout, "the connection Secret to hold a new valid key", func() (bool, string) {
		s := connSecret(t, k)
		if s == nil {
			return false, "no Secret"
		}
		r, ok := env.Coder.ValidKey(string(s.Data[aigatewaykey.ConnectionKey]))
		if !ok {
			return false, "the Secret's key is not valid in Coder"
		}
		row = r
		return r.ID.String() != old && string(s.Data[aigatewaykey.ConnectionID]) == r.ID.String(), "Secret holds key " + r.ID.String()
	})
	return row
}

// recordsOf returns the names of k's cleanup records.
func recordsOf(t *testing.T, k *aiv1alpha1.AIGatewayKey) []string {
	t.Helper()
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := env.Kube.List(context.Background(), l, client.MatchingLabels{deletion.ManagedResourceUIDLabel: string(k.UID)}); err != nil {
		t.Fatalf("cannot list cleanup records: %v", err)
	}
	out := make([]string, 0, len(l.Items))
	for _, r := range l.Items {
		out = append(out, r.Name)
	}
	return out
}

// waitEvent fails the test unless an event of the reason about k appears
// within waitLong: events reach the API server through the provider's
// event broadcaster, after the reconcile that wrote them.
func waitEvent(t *testing.T, k *aiv1alpha1.AIGatewayKey, reason string) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, "a "+reason+" event", func() (bool, string) {
		return hasEvent(t, k, reason), "no event"
	})
}

func hasEvent(t *testing.T, k *aiv1alpha1.AIGatewayKey, reason string) bool {
	t.Helper()
	for _, e := range env.Events(t) {
		if e.InvolvedObject.UID == k.UID && e.Reason == reason {
			return true
		}
	}
	return false
}

// readyRotatingKey creates a rotating key in a namespace of its own, with a
// ProviderConfig, and waits for its first key to be published.
func readyRotatingKey(t *testing.T, name string, every, settle time.Duration) (*aiv1alpha1.AIGatewayKey, fakecoder.KeyRow) {
	t.Helper()
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := rotatingKey(ns, name, every, settle)
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	return k, waitPublished(t, k, "", testenv.WaitLong)
}

func requestRotation(t *testing.T, k *aiv1alpha1.AIGatewayKey, value string) {
	t.Helper()
	if err := env.Update(t, k, func() { meta.AddAnnotations(k, map[string]string{aigatewaykey.RotateAnnotation: value}) }); err != nil {
		t.Fatalf("cannot annotate the key: %v", err)
	}
}

func TestKeyRotationOnDemandKeepsTheOldKeyThroughTheSettleWindow(t *testing.T) {
	const settle = 20 * time.Second
	k, oldRow := readyRotatingKey(t, "gateway", 0, settle)

	requested := time.Now()
	requestRotation(t, k, "1")
	newRow := waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	published := time.Now()
	t.Logf("new key published %s after the request", published.Sub(requested).Round(time.Millisecond))
	if newRow.Name != aigatewaykey.RotatedKeyName("", k.Namespace, "gateway", string(k.UID), 1) {
		t.Errorf("new key name = %q, want the derived name with rotation counter 1", newRow.Name)
	}
	s := connSecret(t, k)
	if got := string(s.Data[aigatewaykey.ConnectionPreviousKeyPrefix]); got != oldRow.KeyPrefix {
		t.Errorf("previousKeyPrefix = %q, want the retiring key's prefix %q", got, oldRow.KeyPrefix)
	}
	testenv.Eventually(t, testenv.WaitLong, "status to show the rotation", func() (bool, string) {
		env.Get(t, k)
		r := k.Status.AtProvider.Rotation
		ok := r != nil && r.Counter == 1 && r.RetiringKeyID == oldRow.ID.String() && r.RetiresAt != nil &&
			k.Status.AtProvider.ID == newRow.ID.String() && meta.GetExternalName(k) == newRow.ID.String()
		return ok, fmt.Sprintf("atProvider.id %s, rotation %+v, external name %s", k.Status.AtProvider.ID, r, meta.GetExternalName(k))
	})
	if got := k.Annotations[aigatewaykey.RotatedAnnotation]; got != "1" {
		t.Errorf("annotation %s = %q, want 1", aigatewaykey.RotatedAnnotation, got)
	}
	if n := len(recordsOf(t, k)); n != 2 {
		t.Errorf("cleanup records during the window = %d, want 2 (one per key in Coder)", n)
	}

	// The old key stays valid until the window that began with the new
	// key's creation ends; the last second is left to the clocks of the
	// test and the fake Coder.
	windowEnd := newRow.CreatedAt.Add(settle)
	testenv.Never(t, time.Until(windowEnd)-time.Second, "the old key revoked before its settle window ended", func() (bool, string) {
		_, ok := env.Coder.ValidKey(oldRow.Key)
		return !ok, fmt.Sprintf("revoked %s before the window's end", time.Until(windowEnd).Round(time.Millisecond))
	})
	testenv.Eventually(t, testenv.WaitLong, "the old key to be deleted after the window", func() (bool, string) {
		_, ok := env.Coder.ValidKey(oldRow.Key)
		return !ok, "old key still valid"
	})
	t.Logf("old key deleted %s after the new key was created (settle window %s)", time.Since(newRow.CreatedAt).Round(time.Millisecond), settle)
	testenv.Eventually(t, testenv.WaitLong, "the rotation to finish", func() (bool, string) {
		env.Get(t, k)
		s := connSecret(t, k)
		_, prev := s.Data[aigatewaykey.ConnectionPreviousKeyPrefix]
		r := k.Status.AtProvider.Rotation
		recs := recordsOf(t, k)
		return !prev && r != nil && r.RetiringKeyID == "" && r.LastRotatedAt != nil && len(recs) == 1,
			fmt.Sprintf("previousKeyPrefix present %v, rotation %+v, records %v", prev, r, recs)
	})
	if rows := liveKeysOf(k); len(rows) != 1 || rows[0].ID != newRow.ID {
		t.Errorf("keys in Coder after the rotation = %d, want only the new one", len(rows))
	}
	if peak := env.Coder.PeakKeys(isKeyOf(k)); peak != 2 {
		t.Errorf("at most %d keys existed at once, want exactly 2", peak)
	}
	for _, reason := range []string{string(aigatewaykey.ReasonKeyRotationStarted), string(aigatewaykey.ReasonKeyRotated)} {
		waitEvent(t, k, reason)
	}
	// Each step of the rotation is an update the change log names.
	wantChanges(t, k, change{op: opCreate},
		change{op: opUpdate, details: map[string]string{aigatewaykey.ChangeLogRotationStep: string(aigatewaykey.ActionStart)}},
		change{op: opUpdate, details: map[string]string{aigatewaykey.ChangeLogRotationStep: string(aigatewaykey.ActionRetire)}})
	if strings.Contains(env.Logs.String(), newRow.Key) || strings.Contains(env.Logs.String(), oldRow.Key) {
		t.Error("a key plaintext appears in the provider logs")
	}
}

func TestKeyRotationEveryRotatesPeriodically(t *testing.T) {
	const every, settle = 25 * time.Second, 8 * time.Second
	k, first := readyRotatingKey(t, "periodic", every, settle)

	second := waitPublished(t, k, first.ID.String(), every+testenv.WaitLong)
	if lag := second.CreatedAt.Sub(first.CreatedAt); lag < every || lag > every+3*env.Options.PollInterval {
		t.Errorf("second key created %s after the first, want about every (%s) plus at most a few polls", lag, every)
	}
	t.Logf("periodic rotation: second key created %s after the first (every %s)", second.CreatedAt.Sub(first.CreatedAt).Round(time.Millisecond), every)
	testenv.Eventually(t, settle+testenv.WaitLong, "the first key to be deleted", func() (bool, string) {
		_, ok := env.Coder.ValidKey(first.Key)
		return !ok, "first key still valid"
	})
	env.Get(t, k)
	if r := k.Status.AtProvider.Rotation; r == nil || r.NextRotationAt == nil || !r.NextRotationAt.Time.Equal(second.CreatedAt.Add(every).Truncate(time.Second)) {
		t.Errorf("status rotation %+v, want nextRotationAt = second key's creation + every", r)
	}
	if peak := env.Coder.PeakKeys(isKeyOf(k)); peak != 2 {
		t.Errorf("at most %d keys existed at once, want exactly 2", peak)
	}
}

func TestKeyRotationEndsEarlyWhenReplicasMoved(t *testing.T) {
	const settle = 10 * time.Minute
	k, oldRow := readyRotatingKey(t, "early", 0, settle)

	requestRotation(t, k, "moved")
	newRow := waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	// No heartbeats: the window does not end early. Three polls, each a
	// chance for the provider to decide wrongly that the replicas moved.
	testenv.Never(t, 3*env.Options.PollInterval, "the old key deleted although no replica showed up on the new key", func() (bool, string) {
		_, ok := env.Coder.ValidKey(oldRow.Key)
		return !ok, "old key no longer valid"
	})
	// The replicas reload the Secret: the new key checks in, and the old
	// key's last heartbeat is two and a half periods old. (The fake does not
	// check a heartbeat against a key's age, so the old key's time can be
	// set in the past without waiting two minutes.)
	moved := time.Now()
	if err := env.Coder.Heartbeat(newRow.ID, moved); err != nil {
		t.Fatal(err)
	}
	if err := env.Coder.Heartbeat(oldRow.ID, moved.Add(-150*time.Second)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the old key to be deleted before the window ends", func() (bool, string) {
		_, ok := env.Coder.ValidKey(oldRow.Key)
		return !ok, "old key still valid"
	})
	t.Logf("early end: old key deleted %s after the heartbeats, %s after the rotation began (window %s)",
		time.Since(moved).Round(time.Millisecond), time.Since(newRow.CreatedAt).Round(time.Millisecond), settle)
	if time.Since(newRow.CreatedAt) >= settle {
		t.Errorf("the window ran its full length")
	}
}

func TestKeyRotationResumesAfterUncertainCreateAndRestart(t *testing.T) {
	const settle = 20 * time.Second
	k, oldRow := readyRotatingKey(t, "resume", 0, settle)

	// The rotation's create is written in Coder but its answer never
	// arrives, and the provider stops right after.
	if err := env.Coder.SetFault(fakecoder.EndpointKeysCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Coder.ClearFault(fakecoder.EndpointKeysCreate) })
	before := env.Coder.Requests(fakecoder.EndpointKeysCreate)
	requestRotation(t, k, "1")
	testenv.Eventually(t, testenv.WaitLong, "the uncertain create", func() (bool, string) {
		n := len(liveKeysOf(k))
		return n == 2 && env.Coder.Requests(fakecoder.EndpointKeysCreate) > before, fmt.Sprintf("%d keys", n)
	})
	env.Cluster.RestartProvider(t)
	newRow := waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	if _, ok := env.Coder.ValidKey(oldRow.Key); !ok {
		t.Fatal("the old key was lost before its settle window")
	}

	// A restart in the middle of the settle window. While the provider is
	// down (two seconds: less than a poll, a small share of the window)
	// nothing in Coder changes.
	oldKeyGoneOrExtraKey := func() (bool, string) {
		if _, ok := env.Coder.ValidKey(oldRow.Key); !ok {
			return true, "the old key is no longer valid"
		}
		if rows := liveKeysOf(k); len(rows) > 2 {
			return true, fmt.Sprintf("%d keys of the object in Coder, want at most one current and one retiring", len(rows))
		}
		return false, ""
	}
	env.StopProvider()
	testenv.Never(t, 2*time.Second, "a key changed in Coder while the provider was stopped", oldKeyGoneOrExtraKey)
	if err := env.StartProvider(); err != nil {
		t.Fatal(err)
	}
	// After the restart, the old key stays until the window ends; the last
	// second is left to the clocks of the test and the fake Coder.
	testenv.Never(t, time.Until(newRow.CreatedAt.Add(settle))-time.Second, "the settle window broken before its end", oldKeyGoneOrExtraKey)
	testenv.Eventually(t, testenv.WaitLong, "one key and one record left", func() (bool, string) {
		rows, recs := liveKeysOf(k), recordsOf(t, k)
		return len(rows) == 1 && rows[0].ID == newRow.ID && len(recs) == 1, fmt.Sprintf("%d keys, records %v", len(rows), recs)
	})
	// Three keys were made (old, lost, new); the lost one went before the
	// new one was created.
	hist := 0
	for _, l := range env.Coder.KeyHistory() {
		if isKeyOf(k)(l.Name) {
			hist++
			if l.ID != newRow.ID && l.Deleted == nil {
				t.Errorf("key %s leaked", l.Name)
			}
		}
	}
	peak := env.Coder.PeakKeys(isKeyOf(k))
	t.Logf("uncertain create and two restarts: %d keys created in all, at most %d at once", hist, peak)
	if peak != 2 {
		t.Errorf("at most %d keys existed at once, want 2 (never a second new key)", peak)
	}
	if s := connSecret(t, k); string(s.Data[aigatewaykey.ConnectionKey]) != newRow.Key {
		t.Error("the Secret does not hold the surviving key")
	}
}

func TestKeyDeletedMidRotationDeletesBothKeys(t *testing.T) {
	k, oldRow := readyRotatingKey(t, "midway", 0, 10*time.Minute)
	requestRotation(t, k, "1")
	waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	if n := len(liveKeysOf(k)); n != 2 {
		t.Fatalf("%d keys in Coder mid-rotation, want 2", n)
	}
	testenv.Eventually(t, testenv.WaitLong, "a record per key", func() (bool, string) {
		recs := recordsOf(t, k)
		return len(recs) == 2, fmt.Sprintf("records %v", recs)
	})

	start := time.Now()
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	t.Logf("deleted mid-rotation in %s", time.Since(start).Round(time.Millisecond))
	if rows := liveKeysOf(k); len(rows) != 0 {
		t.Errorf("%d keys of the object left in Coder", len(rows))
	}
	if recs := recordsOf(t, k); len(recs) != 0 {
		t.Errorf("cleanup records left: %v", recs)
	}
}

func TestKeyBoundedPassMidRotationLeavesARecordPerKeyForTheSweep(t *testing.T) {
	ns := env.Namespace(t)
	env.TokenSecret(t, ns, "coder-token", env.Coder.Token())
	d := func(s time.Duration) *metav1.Duration { return &metav1.Duration{Duration: s} }
	pc := env.ProviderConfigFromSecret(t, ns, "coder-token")
	if err := env.Update(t, pc, func() {
		pc.Spec.Deletion = &common.DeletionSpec{
			DependentTimeout: d(6 * time.Second), LiveDependentTimeout: d(3 * time.Second), UnreachableTimeout: d(3 * time.Second),
			Grace: &common.GraceSpec{Base: d(2 * time.Second), PerDependent: d(time.Second), Max: d(10 * time.Second)},
		}
	}); err != nil {
		t.Fatal(err)
	}
	env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	k := rotatingKey(ns, "bounded", 0, 10*time.Minute)
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	oldRow := waitPublished(t, k, "", testenv.WaitLong)
	requestRotation(t, k, "1")
	newRow := waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	testenv.Eventually(t, testenv.WaitLong, "a record per key", func() (bool, string) {
		recs := recordsOf(t, k)
		return len(recs) == 2, fmt.Sprintf("records %v", recs)
	})

	// Coder refuses every delete: the hold runs out, the bounded pass
	// fails for both keys, and the object is released without a delete.
	if err := env.Coder.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: 403}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Coder.ClearFault(fakecoder.EndpointKeysDelete) })
	env.Delete(t, k)
	env.Delete(t, pc)
	env.WaitGone(t, k, testenv.WaitLong)
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := env.Kube.List(context.Background(), l, client.MatchingLabels{deletion.ManagedResourceUIDLabel: string(k.UID)}); err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, r := range l.Items {
		if r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
			t.Errorf("record %s is %s, want Abandoned", r.Name, r.Status.Phase)
		}
		named[r.Status.ExternalID] = true
	}
	if len(l.Items) != 2 || !named[oldRow.ID.String()] || !named[newRow.ID.String()] {
		t.Fatalf("records after the release = %d naming %v, want one per key", len(l.Items), named)
	}

	// Coder accepts deletes again; a Ready ClusterProviderConfig of the
	// same deployment sweeps both keys.
	env.Coder.ClearFault(fakecoder.EndpointKeysDelete)
	sweepThrough(t, env.Cluster.Coder(t))
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete both keys and their records", func() (bool, string) {
		rows, recs := liveKeysOf(k), recordsOf(t, k)
		return len(rows) == 0 && len(recs) == 0, fmt.Sprintf("%d keys, records %v", len(rows), recs)
	})
}

func TestKeyRotationEveryMustExceedTheSettleWindow(t *testing.T) {
	ns := env.Namespace(t)
	k := rotatingKey(ns, "overlapping", time.Minute, 5*time.Minute)
	err := env.Kube.Create(context.Background(), k)
	if err == nil || !strings.Contains(err.Error(), "rotation.every must be longer than rotation.settleWindow") {
		t.Errorf("create with every 1m and settleWindow 5m: err = %v, want the CEL message", err)
	}
	// The default window (5m) counts too.
	k = newKey(ns, "default-window")
	k.Spec.ForProvider.Rotation = &common.AIGatewayKeyRotation{Every: &metav1.Duration{Duration: 4 * time.Minute}}
	if err := env.Kube.Create(context.Background(), k); err == nil {
		t.Errorf("create with every 4m and the default 5m settle window was accepted")
	}
	k = rotatingKey(ns, "fine", 6*time.Minute, 5*time.Minute)
	if err := env.Kube.Create(context.Background(), k); err != nil {
		t.Errorf("create with every 6m and settleWindow 5m: %v", err)
	}
}

// TestAConnectionSecretRemovedAgainAndAgainKeepsAtMostMaxKeys deletes the
// connection Secret again and again, each time once the provider restored
// it, as a GitOps tool that owns it would, all within one settle window:
// six of the losses start a rotation, but the oldest retiring key goes
// first, so Coder never holds more than MaxKeys of the resource's keys, and
// a condition names the Secret and what to do. (A loss the provider answers
// from the Secret its cache still holds restores the same key and counts
// for nothing.)
func TestAConnectionSecretRemovedAgainAndAgainKeepsAtMostMaxKeys(t *testing.T) {
	const settle, losses = 3 * time.Minute, 6
	k, row := readyRotatingKey(t, "churn", 0, settle)
	last, started := row.ID.String(), 0
	for i := 0; started < losses && i < 3*losses; i++ {
		s := connSecret(t, k)
		env.Delete(t, s)
		testenv.Eventually(t, testenv.WaitLong, "the connection Secret to be restored with a valid key", func() (bool, string) {
			r := connSecret(t, k)
			if r == nil || r.UID == s.UID {
				return false, "not restored"
			}
			row, ok := env.Coder.ValidKey(string(r.Data[aigatewaykey.ConnectionKey]))
			if !ok || string(r.Data[aigatewaykey.ConnectionID]) != row.ID.String() {
				return false, "the restored Secret holds no valid key of its id"
			}
			if row.ID.String() != last {
				started++
				last = row.ID.String()
			}
			return true, ""
		})
		if n := len(liveKeysOf(k)); n > aigatewaykey.MaxKeys {
			t.Fatalf("after loss %d of the connection Secret (%d new keys), %d keys of the resource are in Coder, more than %d", i+1, started, n, aigatewaykey.MaxKeys)
		}
	}
	if started < aigatewaykey.MaxKeys {
		t.Fatalf("only %d losses of the Secret started a rotation; the bound needs %d to be reached", started, aigatewaykey.MaxKeys)
	}
	if peak := env.Coder.PeakKeys(isKeyOf(k)); peak != aigatewaykey.MaxKeys {
		t.Errorf("at most %d keys existed at once, want exactly %d (the bound, reached from the third loss on)", peak, aigatewaykey.MaxKeys)
	}
	if time.Since(row.CreatedAt) >= settle {
		t.Fatalf("the losses took %s, longer than the settle window %s: a rotation may have settled between them", time.Since(row.CreatedAt), settle)
	}
	c := env.WaitCondition(t, k, aigatewaykey.TypeConnectionSecretLost, corev1.ConditionTrue, testenv.WaitLong)
	t.Logf("condition %s: %s", c.Reason, c.Message)
	if c.Reason != aigatewaykey.ReasonRemovedRepeatedly || !strings.Contains(c.Message, k.Namespace+"/"+k.Spec.WriteConnectionSecretToReference.Name) ||
		!strings.Contains(c.Message, "GitOps") {
		t.Errorf("condition %s/%s %q names neither the Secret nor what removes it", c.Type, c.Reason, c.Message)
	}
	var n int
	if i := strings.Index(c.Message, "removed "); i < 0 {
		t.Errorf("condition message %q does not say how often the Secret was removed", c.Message)
	} else if _, err := fmt.Sscanf(c.Message[i:], "removed %d times", &n); err != nil || n < 2 || n > started {
		t.Errorf("condition message %q does not count the losses that started a rotation (2 to %d): %v", c.Message, started, err)
	}
	waitEvent(t, k, string(aigatewaykey.ReasonRetiringKeyRevokedEarly))
	s := connSecret(t, k)
	if _, ok := env.Coder.ValidKey(string(s.Data[aigatewaykey.ConnectionKey])); !ok || string(s.Data[aigatewaykey.ConnectionID]) != last {
		t.Errorf("the connection Secret holds id %s, not the last key %s with its valid plaintext", s.Data[aigatewaykey.ConnectionID], last)
	}
}
