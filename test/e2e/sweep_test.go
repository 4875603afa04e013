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

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// TestSweepNeverTouchesAnotherDeploymentsRecords: a Ready ProviderConfig of
// deployment B leaves the Abandoned records of deployment A alone, even when
// an object of the same id could exist in B.
func TestSweepNeverTouchesAnotherDeploymentsRecords(t *testing.T) {
	b := env.Cluster.SpareCoder(t)
	// A key in B whose id an A record names: deleting it would be a bug.
	resp, err := b.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "in-b"})
	if err != nil {
		t.Fatal(err)
	}

	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, b, nil)

	rec := abandonedKeyRecord("aigatewaykey-deployment-a-test", ns, "2c6f1b8e-0000-4000-8000-00000000000a", "in-b", resp.ID.String())
	env.CreateRecord(t, rec)
	t.Cleanup(func() { env.Delete(t, rec) })

	waitForSweep(t)
	if !env.Get(t, rec) || rec.Status.Attempts != 0 {
		t.Errorf("record of deployment A = %+v, want untouched (0 attempts)", rec.Spec)
	}
	if n := b.Requests(fakecoder.EndpointKeysDelete); n != 0 {
		t.Errorf("Coder B received %d key deletes for deployment A's record", n)
	}
	if len(b.Keys()) != 1 {
		t.Errorf("Coder B holds %d keys, want its 1", len(b.Keys()))
	}
}

// TestSweepClears500AbandonedRecordsAndTheirKeysInBound reports how long one
// ProviderConfig takes to sweep 500 Abandoned records (issue scenario 6); it
// fails only past a generous bound, the figure is in the log.
func TestSweepClears500AbandonedRecordsAndTheirKeysInBound(t *testing.T) {
	const n = 500
	ns := env.Namespace(t)
	coder := env.Cluster.Coder(t)
	c := coder.SDK(t)
	deployment := deploymentOf(t, coder)
	ids := make(map[string]bool, n)
	for i := range n {
		resp, err := c.CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: fmt.Sprintf("sweep-%s-%03d", ns, i)})
		if err != nil {
			t.Fatal(err)
		}
		ids[resp.ID.String()] = true
		env.CreateRecord(t, abandonedKeyRecord(fmt.Sprintf("aigatewaykey-sweep-%s-%03d", ns, i), ns, deployment, fmt.Sprintf("sweep-%s-%03d", ns, i), resp.ID.String()))
	}
	// The ProviderConfig turning Ready triggers the sweep.
	env.ProviderConfig(t, ns)
	start := time.Now()
	testenv.Eventually(t, 5*time.Minute, fmt.Sprintf("%d records to be swept", n), func() (bool, string) {
		l := &clusterv1alpha1.CleanupRecordList{}
		if err := env.Kube.List(t.Context(), l); err != nil {
			return false, err.Error()
		}
		left := 0
		for _, r := range l.Items {
			if strings.HasPrefix(r.Name, "aigatewaykey-sweep-"+ns) {
				left++
			}
		}
		return left == 0, fmt.Sprintf("%d records left", left)
	})
	took := time.Since(start)
	live := 0
	for _, k := range coder.Keys() {
		if ids[k.ID.String()] {
			live++
		}
	}
	t.Logf("%d Abandoned records swept by one ProviderConfig in %s (%.1f records/s); %d of their keys left in Coder",
		n, took.Round(100*time.Millisecond), float64(n)/took.Seconds(), live)
	if live != 0 {
		t.Errorf("%d swept keys are still in Coder", live)
	}
}

// TestProviderKilledMidCreateLeavesOneKeyAndOneRecord kills the provider
// while Coder has written a key whose answer never arrived (after the
// record, before the id was recorded), restarts it, and checks there is
// exactly one key and one record for the object, and none after its delete.
func TestProviderKilledMidCreateLeavesOneKeyAndOneRecord(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	coder := env.Cluster.Coder(t)
	if err := coder.SetFault(fakecoder.EndpointKeysCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coder.ClearFault(fakecoder.EndpointKeysCreate) })
	k := newKey(ns, "killed")
	env.Create(t, k)
	env.Get(t, k)
	name := aigatewaykey.DerivedName(k)
	testenv.Eventually(t, testenv.WaitLong, "Coder to hold the key whose answer is lost", func() (bool, string) {
		return len(testenv.KeysNamed(coder, name)) == 1, "no key yet"
	})
	// The record came first: whatever the crash interrupts, the key is
	// already in the inventory a namespace deletion cannot reach.
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: deletion.Name("AIGatewayKey", k.UID)}}
	if !env.Get(t, rec) || rec.Status.CoderName != name {
		t.Fatalf("Coder holds key %s while no cleanup record names it (record %+v)", name, rec.Spec)
	}
	env.Cluster.RestartProvider(t)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if rows := testenv.KeysNamed(coder, name); len(rows) != 1 || rows[0].ID.String() != meta.GetExternalName(k) {
		t.Fatalf("Coder holds %d keys named %s, want exactly the one the object names", len(rows), name)
	}
	testenv.Eventually(t, testenv.WaitLong, "the record to carry the surviving key's id", func() (bool, string) {
		return env.Get(t, rec) && rec.Status.ExternalID == meta.GetExternalName(k), fmt.Sprintf("record %+v", rec.Spec)
	})
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	if n := len(testenv.KeysNamed(coder, name)); n != 0 {
		t.Errorf("%d keys left in Coder after the delete", n)
	}
	if env.Get(t, rec) {
		t.Errorf("the record outlived its deleted key")
	}
}

// TestProviderConfigWithSweepOffLeavesRecords: spec.sweep=false keeps a
// Ready ProviderConfig from sweeping its deployment's records.
func TestProviderConfigWithSweepOffLeavesRecords(t *testing.T) {
	// A Coder of its own: other scenarios' ProviderConfigs of the shared
	// fake may still be Ready while their namespaces go, and would sweep.
	own := env.Cluster.SpareCoder(t)
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, own, func(pc *namespacedv1alpha1.ProviderConfig) { pc.Spec.Sweep = ptr.To(false) })
	resp, err := own.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "sweep-off-" + ns})
	if err != nil {
		t.Fatal(err)
	}
	rec := abandonedKeyRecord("aigatewaykey-sweep-off-"+ns, ns, pc.Status.DeploymentID, "sweep-off-"+ns, resp.ID.String())
	env.CreateRecord(t, rec)
	waitForSweep(t)
	if !env.Get(t, rec) || rec.Status.Attempts != 0 || len(own.Keys()) != 1 {
		t.Errorf("with sweep off the record was touched: %+v (keys in Coder: %d)", rec.Spec, len(own.Keys()))
	}
	// Turning it on sweeps at once: the ProviderConfig can now sweep its
	// deployment, as if it had just turned Ready.
	if err := env.Update(t, pc, func() { pc.Spec.Sweep = ptr.To(true) }); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the record to be swept once sweep is on", func() (bool, string) {
		return !env.Get(t, rec) && len(own.Keys()) == 0, "record or key left"
	})
}

// abandonedKeyRecord is an Abandoned cleanup record, as a bounded pass in ns
// would leave it, naming the key id of deployment.
func abandonedKeyRecord(name, ns, deployment, coderName, id string) *clusterv1alpha1.CleanupRecord {
	return &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1alpha1.CleanupRecordSpec{
			Kind: "AIGatewayKey",
			ManagedResource: clusterv1alpha1.ManagedResourceReference{
				APIVersion: "ai.coder.m.crossplane.io/v1alpha1", Kind: "AIGatewayKey", Namespace: ns, Name: "gone", UID: name,
			},
			DeploymentID: deployment,
		},
		Status: clusterv1alpha1.CleanupRecordStatus{CoderName: coderName, ExternalID: id, Phase: clusterv1alpha1.CleanupPhaseAbandoned},
	}
}

// deploymentOf is the deployment id Coder c reports.
func deploymentOf(t *testing.T, c testenv.Coder) string {
	t.Helper()
	bi, err := c.SDK(t).BuildInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return bi.DeploymentID
}

// waitForSweep returns after a sweep that listed every cleanup record
// created before the call: it leaves a key of the shared Coder to a new
// Abandoned record, then makes a ProviderConfig of that Coder turn Ready,
// which triggers a sweep, and waits until the record is swept. A sweep that
// lists that record lists every older one.
func waitForSweep(t *testing.T) {
	t.Helper()
	c := env.Cluster.Coder(t)
	ns := env.Namespace(t)
	resp, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "witness-" + ns})
	if err != nil {
		t.Fatal(err)
	}
	rec := abandonedKeyRecord("aigatewaykey-witness-"+ns, ns, deploymentOf(t, c), "witness-"+ns, resp.ID.String())
	env.CreateRecord(t, rec)
	env.ProviderConfig(t, ns)
	env.WaitGone(t, rec, testenv.WaitLong)
}

// TestARecordTheProviderDidNotWriteDeletesNothing: a cleanup record someone
// writes by hand can name nothing in Coder (what the sweep acts on is in
// the status, which a create does not set), and the spec of a record the
// provider wrote cannot be edited to point it elsewhere. The hand-written
// record goes once the sweep's grace has passed; the key it was meant to
// name stays.
func TestARecordTheProviderDidNotWriteDeletesNothing(t *testing.T) {
	c := env.Cluster.Coder(t)
	ns := env.Namespace(t)
	resp, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "by-hand-" + ns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SDK(t).DeleteAIGatewayKey(context.Background(), resp.ID) })
	forged := abandonedKeyRecord("aigatewaykey-forged-"+ns, ns, deploymentOf(t, c), "by-hand-"+ns, resp.ID.String())
	env.Create(t, forged)
	if env.Get(t, forged); forged.Status.Phase != "" || forged.Status.ExternalID != "" {
		t.Fatalf("a create wrote the status of a cleanup record: %+v", forged.Status)
	}

	// A record the provider wrote: its spec is fixed.
	env.ProviderConfig(t, ns)
	k := newKey(ns, "own")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	own := recordOf(t, "AIGatewayKey", k.UID)
	if own == nil || own.Status.Phase != clusterv1alpha1.CleanupPhaseActive || own.Status.ExternalID != meta.GetExternalName(k) {
		t.Fatalf("the key's record = %+v, want Active with the key's id in its status", own)
	}
	for field, edit := range map[string]func(){
		"deploymentID":    func() { own.Spec.DeploymentID = "another-deployment" },
		"managedResource": func() { own.Spec.ManagedResource.Namespace = "elsewhere" },
	} {
		err := env.Update(t, own, edit)
		if err == nil || !strings.Contains(err.Error(), "spec is immutable") {
			t.Errorf("editing a record's %s: %v, want refused as immutable", field, errText(err))
		}
	}

	// Within the sweep's grace (measured from the record's creation) the
	// hand-written record stays, whatever sweeps the other scenarios
	// trigger; past it, any sweep removes it, and the key stays. A removal
	// counts against the grace only when seen before the grace ended.
	graceEnd := forged.CreationTimestamp.Add(provider.DefaultOptions().SweepGrace)
	testenv.Never(t, time.Until(graceEnd), "the hand-written record removed within the sweep's grace", func() (bool, string) {
		gone := !env.Get(t, forged.DeepCopy())
		return gone && time.Now().Before(graceEnd), fmt.Sprintf("removed %s before the grace ended", time.Until(graceEnd).Round(time.Millisecond))
	})
	waitForSweep(t)
	if env.Get(t, forged) {
		t.Errorf("a sweep past the grace kept the record nobody completed: %+v", forged.Status)
	}
	if !testenv.LiveKey(c, resp.ID.String()) {
		t.Errorf("a record written by hand deleted the key it named")
	}
}
