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
	"net/http"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// sweepPromptness is how soon after a ProviderConfig of a deployment turns
// Ready its Abandoned records must be swept (issue 11, item 12).
const sweepPromptness = 10 * time.Second

// TestSweepRunsWhenAProviderConfigOfTheDeploymentTurnsReady: Coder is down
// while a namespace with a ProviderConfig, a key and a provider is deleted,
// so the bounded passes leave their records Abandoned. Coder comes back and
// a ProviderConfig of the same deployment turns Ready elsewhere: the key and
// the provider are deleted in Coder within seconds, not at the next sync
// period (the sweep interval is the provider's default here).
func TestSweepRunsWhenAProviderConfigOfTheDeploymentTurnsReady(t *testing.T) {
	// A deployment of its own: no other scenario's ProviderConfig can sweep
	// its records, so only the ProviderConfig below can.
	s := newHoldSetupOf(t, env.Cluster.SpareCoder(t))
	if err := s.coder.SetDown(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.coder.SetDown(false) })
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}
	env.Delete(t, ns)
	env.WaitGone(t, ns, 2*time.Minute)
	for _, r := range []*clusterv1alpha1.CleanupRecord{s.record(t, "AIGatewayKey", s.key.UID), s.record(t, "AIProvider", s.ai.UID)} {
		if r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
			t.Fatalf("cleanup record = %+v, want Abandoned", r)
		}
	}
	if err := s.coder.SetDown(false); err != nil {
		t.Fatal(err)
	}
	if !s.keyInCoder() || !s.providerInCoder() {
		t.Fatalf("Coder lost the key or the provider while it was down")
	}
	// The sweeps that find no Ready ProviderConfig for the records back off
	// (2s, doubling). Once none has run for longer than sweepPromptness,
	// only the ProviderConfig's turning Ready can sweep within it.
	last, lastAt := sweeps(t), time.Now()
	testenv.Eventually(t, 2*testenv.WaitLong, "the sweep to back off past 10s", func() (bool, string) {
		if n := sweeps(t); n != last {
			last, lastAt = n, time.Now()
		}
		quiet := time.Since(lastAt)
		return quiet > sweepPromptness+time.Second, fmt.Sprintf("last sweep %s ago", quiet.Round(time.Second))
	})

	// Cluster-scoped: the records' namespace is gone, and a namespaced
	// ProviderConfig sweeps only its own namespace's records.
	pc := sweepThrough(t, s.coder)
	// The transition time has second precision: rounded down, so the figure
	// may be up to a second longer than the real one, never shorter.
	ready := pc.GetCondition(xpv2.TypeReady).LastTransitionTime.Time
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete the key and the provider in Coder", func() (bool, string) {
		return !s.keyInCoder() && !s.providerInCoder(), fmt.Sprintf("key in Coder %v, provider in Coder %v", s.keyInCoder(), s.providerInCoder())
	})
	took := time.Since(ready)
	t.Logf("key and provider deleted in Coder %s after a ProviderConfig of their deployment turned Ready", took.Round(100*time.Millisecond))
	if took > sweepPromptness {
		t.Errorf("swept %s after the ProviderConfig turned Ready, want within %s", took.Round(100*time.Millisecond), sweepPromptness)
	}
	testenv.Eventually(t, testenv.WaitLong, "the swept records to be deleted", func() (bool, string) {
		return s.record(t, "AIGatewayKey", s.key.UID) == nil && s.record(t, "AIProvider", s.ai.UID) == nil, "records left"
	})
}

// TestFailedSweepIsRetriedWithinSeconds: Coder answers the sweep's delete
// with 503 once; the sweep is retried with backoff, within seconds, not
// after the interval (the provider's default, an hour).
func TestFailedSweepIsRetriedWithinSeconds(t *testing.T) {
	coder := env.Cluster.Coder(t)
	ns := env.Namespace(t)
	resp, err := coder.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "retried-" + ns})
	if err != nil {
		t.Fatal(err)
	}
	if err := coder.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: http.StatusServiceUnavailable, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coder.ClearFault(fakecoder.EndpointKeysDelete) })
	rec := abandonedKeyRecord("aigatewaykey-retried-"+ns, ns, deploymentOf(t, coder), "retried-"+ns, resp.ID.String())
	env.CreateRecord(t, rec)
	t.Cleanup(func() { env.Delete(t, rec) })
	// The ProviderConfig turning Ready triggers the first sweep, which
	// Coder fails.
	env.ProviderConfig(t, ns)
	testenv.Eventually(t, testenv.WaitLong, "the first sweep of the record to fail", func() (bool, string) {
		if !env.Get(t, rec) {
			return true, ""
		}
		return rec.Status.LastError != "", fmt.Sprintf("attempts %d, no error yet", rec.Status.Attempts)
	})
	failed := time.Now()
	if rec.Status.LastError == "" {
		t.Fatalf("the record was swept without the failure the fault injects")
	}
	testenv.Eventually(t, testenv.WaitLong, "the retried sweep to delete the key", func() (bool, string) {
		return !env.Get(t, rec) && !testenv.LiveKey(coder, resp.ID.String()), fmt.Sprintf("record attempts %d, error %q", rec.Status.Attempts, rec.Status.LastError)
	})
	took := time.Since(failed)
	t.Logf("a sweep that Coder failed was retried and succeeded %s later", took.Round(100*time.Millisecond))
	if took > sweepPromptness {
		t.Errorf("the failed sweep was retried after %s, want within %s", took.Round(100*time.Millisecond), sweepPromptness)
	}
}

// sweeps is how many sweeps the provider has made.
func sweeps(t *testing.T) uint64 {
	t.Helper()
	for _, mf := range env.Cluster.ProviderMetrics(t) {
		if mf.GetName() == "provider_coder_cleanup_sweep_duration_seconds" {
			return mf.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	return 0
}
