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
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/coder/coder/v2/codersdk"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// Ownership is per Coder (DESIGN §9): a tenant points a namespaced
// ProviderConfig at a server of its own, which answers with ids it saw in
// the platform's Coder and claims the platform's deployment id. Nothing in
// the platform's Coder may be shielded, blocked or adopted by it.

// tenantServer starts a tenant's own hostile Coder, reachable only from
// this process, that reports deployment as its id; the scenario skips on
// kind, where the provider cannot reach it.
func tenantServer(t *testing.T, deployment string) *fakecoder.Server {
	t.Helper()
	if !testenv.IsLocal(env.Cluster) {
		t.Skip("the tenant's own server runs in the test process, which a provider on kind cannot reach")
	}
	s := fakecoder.New(fakecoder.Options{DeploymentID: deployment})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestATenantsServerAnsweringWithAPlatformKeysIDDoesNotShieldItFromTheSweep:
// the tenant's server answers the tenant key's create with the id of a
// platform key whose resource let go of it (its record Abandoned), and lists
// it so. The tenant's record names that id, but in the tenant's Coder: the
// sweep through the platform's ProviderConfig deletes the platform's key,
// and does not count a key it left live as deleted.
func TestATenantsServerAnsweringWithAPlatformKeysIDDoesNotShieldItFromTheSweep(t *testing.T) {
	c := env.Cluster.Coder(t)
	deployment := deploymentOf(t, c)
	tenant := tenantServer(t, deployment)
	pns := env.Namespace(t)
	name := "released-" + pns
	released, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}

	tns := env.Namespace(t)
	tenant.Mimic(released.ID)
	env.ReadyProviderConfigOf(t, tns, testenv.LocalCoder(tenant), nil)
	k := newKey(tns, "shield")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if got := meta.GetExternalName(k); got != released.ID.String() {
		t.Fatalf("the tenant's key took external name %s; the scenario needs the platform key's id %s", got, released.ID)
	}

	// The platform key's resource is gone and its record Abandoned; a
	// ProviderConfig of the platform's Coder in its namespace turning
	// Ready sweeps it.
	rec := abandonedKeyRecord("aigatewaykey-released-"+pns, pns, deployment, name, released.ID.String())
	env.CreateRecord(t, rec)
	env.ProviderConfig(t, pns)
	env.WaitGone(t, rec, testenv.WaitLong)
	if testenv.LiveKey(c, released.ID.String()) {
		t.Errorf("the sweep removed the record of key %s but left the key live in the platform's Coder: the tenant's server shielded it", released.ID)
	}
	if !meta.WasDeleted(k) && meta.GetExternalName(k) != released.ID.String() {
		t.Errorf("the tenant's key changed external name to %s", meta.GetExternalName(k))
	}
}

// TestATenantsBudgetThroughItsOwnServerBlocksNoBudgetOfThePlatformsCoder:
// a tenant's GroupAIBudget names a group of the platform's Coder through
// the tenant's own server, which answers for a group of that id; its
// record names the group, in the tenant's Coder. Another team's GroupAIBudget of that group
// through the platform's Coder is written, not refused as owned.
func TestATenantsBudgetThroughItsOwnServerBlocksNoBudgetOfThePlatformsCoder(t *testing.T) {
	s := env.Coder
	tenant := tenantServer(t, deploymentOf(t, env.Cluster.Coder(t)))
	pns := env.Namespace(t)
	g := budgetGroup(t, s, pns, 0)

	// The tenant's server answers for the platform's group as its own.
	tenant.Mimic(g.ID)
	if _, err := tenant.CreateGroup("squat"); err != nil {
		t.Fatal(err)
	}
	tns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, tns, testenv.LocalCoder(tenant), nil)
	squat := &aiv1alpha1.GroupAIBudget{ObjectMeta: metav1.ObjectMeta{Namespace: tns, Name: "squat"}}
	squat.Spec.ProviderConfigReference = testenv.PCRef()
	squat.Spec.ForProvider.GroupID = ptr.To(g.ID.String())
	squat.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](1)
	env.Create(t, squat)
	testenv.Eventually(t, testenv.WaitLong, "the tenant's record to name the platform's group", func() (bool, string) {
		rec := recordOf(t, kindGroupBudget, squat.UID)
		return rec != nil && rec.Status.ExternalID == g.ID.String(), fmt.Sprintf("record %+v", rec)
	})

	env.ProviderConfig(t, pns)
	b := newGroupBudget(pns, "platform", g.Name, 5_000_000)
	env.Create(t, b)
	env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitBudget(t, s, g.ID, 5_000_000, "the platform team's budget in the platform's Coder")
	env.Delete(t, b)
	env.WaitGone(t, b, testenv.WaitLong)
	if _, ok := budgetLimit(s, g.ID); ok {
		t.Errorf("the group's budget is still in the platform's Coder after its resource was deleted")
	}
}

// TestABudgetWhoseExternalNameMovesKeepsTheRecordOfItsFirstGroup: a
// GroupAIBudget wrote group g1's budget; its external name is then edited
// to g2, whose budget it writes too. The record of g1's budget is not
// rewritten to name g2: deleting the resource deletes both budgets.
func TestABudgetWhoseExternalNameMovesKeepsTheRecordOfItsFirstGroup(t *testing.T) {
	s, ns := env.Coder, env.Namespace(t)
	g1 := budgetGroup(t, s, ns+"-one", 0)
	g2 := budgetGroup(t, s, ns+"-two", 0)
	env.ProviderConfig(t, ns)
	b := newGroupBudget(ns, "moves", g1.Name, 3_000_000)
	env.Create(t, b)
	env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitBudget(t, s, g1.ID, 3_000_000, "the first group's budget")

	if err := env.Update(t, b, func() { meta.SetExternalName(b, g2.ID.String()) }); err != nil {
		t.Fatal(err)
	}
	waitBudget(t, s, g2.ID, 3_000_000, "the second group's budget, written after the external name moved")
	env.Delete(t, b)
	env.WaitGone(t, b, testenv.WaitLong)
	for _, g := range []uuid.UUID{g1.ID, g2.ID} {
		if limit, ok := budgetLimit(s, g); ok {
			t.Errorf("group %s still has the budget (limit %d) the deleted resource wrote: nothing tracks it", g, limit)
		}
	}
}

// TestAKeyRepointedToAServerAnsweringWithAnotherKeysIDTakesNothingBack:
// a key's ProviderConfig points at a tenant's server, which answers its
// create with the id of a key of the platform's Coder (as a server that
// saw it there would); the ProviderConfig then points at the platform's
// Coder. The resource's record names the key at the tenant's URL: in the
// platform's Coder that id is another key, which the resource must not
// take for its own (Ready, its Secret holding the tenant server's
// plaintext, the platform's key open to its rotations). It reads nothing
// there and is not Ready, naming its record's Coder. (Soak seeds
// 540571992116 and 849976942575, where the other Coder answered with the
// run's ids left over from an earlier seed.)
func TestAKeyRepointedToAServerAnsweringWithAnotherKeysIDTakesNothingBack(t *testing.T) {
	c := env.Cluster.Coder(t)
	deployment := deploymentOf(t, c)
	tenant := tenantServer(t, "tenant-"+deployment)
	ns := env.Namespace(t)
	victim, err := c.SDK(t).CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "victim-" + ns})
	if err != nil {
		t.Fatal(err)
	}
	tenant.Mimic(victim.ID)
	pc := env.ReadyProviderConfigOf(t, ns, testenv.LocalCoder(tenant), nil)
	k := newKey(ns, "repointed")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if got := meta.GetExternalName(k); got != victim.ID.String() {
		t.Fatalf("the key took external name %s; the scenario needs the platform key's id %s", got, victim.ID)
	}

	env.TokenSecret(t, ns, "coder-token-platform", c.Token())
	if err := env.Update(t, pc, func() {
		pc.Spec.URL = c.URL()
		pc.Spec.Credentials.SecretRef.Name = "coder-token-platform"
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the key not Ready, naming the Coder of its record", func() (bool, string) {
		env.Get(t, k)
		r := k.GetCondition(xpv2.TypeReady)
		return r.Status == corev1.ConditionFalse && strings.Contains(r.Message, "the cleanup record names"), fmt.Sprintf("%s: %s", r.Status, r.Message)
	})
	if !testenv.LiveKey(c, victim.ID.String()) {
		t.Errorf("the platform's key %s is gone", victim.ID)
	}
	if n := len(testenv.KeysNamed(c, aigatewaykey.DerivedName(k))); n != 0 {
		t.Errorf("the platform's Coder holds %d keys of the resource's name: it created there, though its record names the tenant's server", n)
	}

	// Pointed back at the server of its record, it deletes its key there,
	// and the platform's key stays.
	if err := env.Update(t, pc, func() {
		pc.Spec.URL = tenant.URL()
		pc.Spec.Credentials.SecretRef.Name = "coder-token"
	}); err != nil {
		t.Fatal(err)
	}
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	if !testenv.LiveKey(c, victim.ID.String()) {
		t.Errorf("the platform's key %s went with the tenant's resource", victim.ID)
	}
}
