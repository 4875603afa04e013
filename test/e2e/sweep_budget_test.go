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

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// sweepTenant is one tenant of the sweep scenario: its Coder, and its
// Abandoned records with the keys they name.
type sweepTenant struct {
	coder testenv.Coder
	recs  []*clusterv1alpha1.CleanupRecord
	keys  []string
}

// tenantWithAbandonedKeys makes a namespace whose ProviderConfig reaches c,
// with n Abandoned records each naming a key there; faults are set on c
// before the ProviderConfig turns Ready, which triggers a sweep.
func tenantWithAbandonedKeys(t *testing.T, c testenv.Coder, name string, n int, faults map[string]fakecoder.Fault) sweepTenant {
	t.Helper()
	ns := env.Namespace(t)
	out := sweepTenant{coder: c}
	for i := range n {
		coderName := fmt.Sprintf("%s-%s-%d", name, ns, i)
		resp, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: coderName})
		if err != nil {
			t.Fatal(err)
		}
		rec := abandonedKeyRecord("aigatewaykey-"+coderName, ns, deploymentOf(t, c), coderName, resp.ID.String())
		env.CreateRecord(t, rec)
		t.Cleanup(func() { env.Delete(t, rec) })
		out.recs, out.keys = append(out.recs, rec), append(out.keys, resp.ID.String())
	}
	for e, f := range faults {
		if err := c.SetFault(e, f); err != nil {
			t.Fatal(err)
		}
	}
	env.ReadyProviderConfigOf(t, ns, c, nil)
	return out
}

// left is how many of the tenant's records are still there.
func (s sweepTenant) left(t *testing.T) int {
	n := 0
	for _, r := range s.recs {
		if env.Get(t, r.DeepCopy()) {
			n++
		}
	}
	return n
}

// TestASlowTenantsCoderDoesNotDelayAnotherTenantsSweep: tenant A's Coder
// answers, but slowly: each key delete after three quarters of the
// provider's Coder timeout (22.5 s of the default 30 s), each key list
// dripped over as long. A has 30 Abandoned records, which one after another
// take it most of a minute. While the sweep works on them, tenant B's record
// (on the healthy shared fake) turns sweepable and is swept within seconds;
// A's records are swept later, within A's own budget.
func TestASlowTenantsCoderDoesNotDelayAnotherTenantsSweep(t *testing.T) {
	const n = 30
	timeout := env.Options.CoderTimeout
	if timeout == 0 {
		timeout = provider.DefaultOptions().CoderTimeout
	}
	slowly := timeout * 3 / 4
	start := time.Now()
	slow := tenantWithAbandonedKeys(t, env.Cluster.SpareCoder(t), "slow", n, map[string]fakecoder.Fault{
		fakecoder.EndpointKeysList:   {Drip: slowly},
		fakecoder.EndpointKeysDelete: {Latency: slowly},
	})
	testenv.Eventually(t, testenv.WaitLong, "the sweep to be working on the slow tenant's records", func() (bool, string) {
		got := slow.coder.Requests(fakecoder.EndpointKeysDelete)
		return got > 0, fmt.Sprintf("%d key deletes reached the slow Coder", got)
	})

	ready := time.Now()
	healthy := tenantWithAbandonedKeys(t, env.Cluster.Coder(t), "healthy", 1, nil)
	env.WaitGone(t, healthy.recs[0], testenv.WaitLong)
	took := time.Since(ready)
	slowLeft := slow.left(t)
	t.Logf("beside a Coder that drips each list and answers each delete over %s, a healthy tenant's record was swept %s after its namespace was made (%d of the slow tenant's %d records still there)",
		slowly, took.Round(100*time.Millisecond), slowLeft, n)
	if took > 20*time.Second {
		t.Errorf("the healthy tenant's record took %s to be swept beside a slow tenant, want within 20s", took)
	}
	if testenv.LiveKey(healthy.coder, healthy.keys[0]) {
		t.Errorf("the healthy tenant's record went and its key is still in Coder")
	}
	if slowLeft == 0 {
		t.Errorf("the slow tenant's records were all swept before the healthy one: the scenario did not hold the sweep")
	}

	// Slow but answering: A's worker finishes within its budget.
	testenv.Eventually(t, provider.DefaultOptions().CoderTimeout*4+time.Minute, "the slow tenant's records to be swept", func() (bool, string) {
		left := slow.left(t)
		return left == 0, fmt.Sprintf("%d records left; the slow Coder got %d lists and %d deletes", left,
			slow.coder.Requests(fakecoder.EndpointKeysList), slow.coder.Requests(fakecoder.EndpointKeysDelete))
	})
	for _, id := range slow.keys {
		if testenv.LiveKey(slow.coder, id) {
			t.Errorf("the slow tenant's record of key %s was swept and the key is still in Coder", id)
		}
	}
	t.Logf("the slow tenant's %d records were swept %s after the scenario began", n, time.Since(start).Round(time.Second))
}
