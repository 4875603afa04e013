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
	"testing"
	"time"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/fakecoder"
)

// sweepTenant is one tenant of the sweep scenario: its own Coder, an
// Abandoned record, and the key the record names.
type sweepTenant struct {
	coder Coder
	rec   *clusterv1alpha1.CleanupRecord
	key   string
}

// tenantWithAbandonedKey makes a namespace whose ProviderConfig reaches c,
// with an Abandoned record naming a key there; fault (if any) is set on
// c's key endpoints before the ProviderConfig turns Ready, which triggers a
// sweep.
func tenantWithAbandonedKey(t *testing.T, c Coder, name string, fault *fakecoder.Fault) sweepTenant {
	t.Helper()
	ns := env.Namespace(t)
	resp, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdkKeyRequest(name+"-"+ns))
	if err != nil {
		t.Fatal(err)
	}
	if fault != nil {
		for _, e := range []string{fakecoder.EndpointKeysList, fakecoder.EndpointKeysDelete} {
			if err := c.SetFault(e, *fault); err != nil {
				t.Fatal(err)
			}
		}
	}
	rec := abandonedKeyRecord("aigatewaykey-"+name+"-"+ns, ns, deploymentOf(t, c), name+"-"+ns, resp.ID.String())
	env.CreateRecord(t, rec)
	t.Cleanup(func() { env.Delete(t, rec) })
	env.ReadyProviderConfigOf(t, ns, c, nil)
	return sweepTenant{coder: c, rec: rec, key: resp.ID.String()}
}

// TestASlowTenantsCoderDoesNotDelayAnotherTenantsSweep: tenant A's Coder
// answers every key list and delete after 25 s, tenant C's drips each list
// over 29 s (within the 30 s timeout, so both are answering), and tenant B's
// (the shared fake) is healthy. While the sweep works on A's and C's records, B's record
// turns sweepable and is swept within seconds; A's and C's are swept later,
// within their own budgets.
func TestASlowTenantsCoderDoesNotDelayAnotherTenantsSweep(t *testing.T) {
	start := time.Now()
	slow := tenantWithAbandonedKey(t, env.Cluster.SpareCoder(t), "slow", &fakecoder.Fault{Latency: 25 * time.Second})
	drip := tenantWithAbandonedKey(t, env.Cluster.SpareCoder(t), "drip", &fakecoder.Fault{Drip: 29 * time.Second})
	// Generous: a sweep that works one Coder after another reaches the
	// dripping one only after the slow one's 75 s, and must then fail on
	// the healthy tenant below, not here.
	Eventually(t, 3*time.Minute, "the sweep to be listing the slow tenants' keys", func() (bool, string) {
		a, c := slow.coder.Requests(fakecoder.EndpointKeysList), drip.coder.Requests(fakecoder.EndpointKeysList)
		return a > 0 && c > 0, fmt.Sprintf("key lists: %d of the slow Coder, %d of the dripping one", a, c)
	})

	ready := time.Now()
	healthy := tenantWithAbandonedKey(t, env.Cluster.Coder(t), "healthy", nil)
	env.WaitGone(t, healthy.rec, waitLong)
	took := time.Since(ready)
	slowLeft, dripLeft := env.Get(t, slow.rec.DeepCopy()), env.Get(t, drip.rec.DeepCopy())
	t.Logf("beside a Coder answering in 25 s and one dripping its lists over 29 s, a healthy tenant's record was swept %s after its ProviderConfig was created (slow tenants' records still there: %t, %t)",
		took.Round(100*time.Millisecond), slowLeft, dripLeft)
	if took > 20*time.Second {
		t.Errorf("the healthy tenant's record took %s to be swept beside slow tenants, want within 20s", took)
	}
	if liveKey(healthy.coder, healthy.key) {
		t.Errorf("the healthy tenant's record went and its key is still in Coder")
	}
	if !slowLeft || !dripLeft {
		t.Errorf("a slow tenant's record was swept before the healthy one (slow %t, dripping %t still there): the scenario did not hold the sweep", slowLeft, dripLeft)
	}

	// Slow but answering: each slow tenant's worker finishes within its
	// budget, and its record goes too.
	for _, s := range []sweepTenant{slow, drip} {
		env.WaitGone(t, s.rec, 3*time.Minute)
		if liveKey(s.coder, s.key) {
			t.Errorf("record %s was swept and its key is still in Coder", s.rec.Name)
		}
	}
	t.Logf("the slow tenants' records were swept %s after the scenario began", time.Since(start).Round(time.Second))
}
