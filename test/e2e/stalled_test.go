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
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
)

// The scenarios of this file are issue 26, item 8: waits outside the hold.
// crossplane-runtime's managed reconciler leaves a paused resource, or one
// whose management policies it does not support, alone, even while it is
// being deleted; and a cleanup record the provider may not delete used to
// keep its resource. Each is released at its bounds, counted, evented, and
// its records cover the rest.

// waitSynced waits until o's Synced condition has the reason.
func waitSynced(t *testing.T, o interface {
	client.Object
	GetCondition(xpv2.ConditionType) xpv2.Condition
}, reason xpv2.ConditionReason) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, fmt.Sprintf("%s to be Synced with reason %s", o.GetName(), reason), func() (bool, string) {
		env.Get(t, o)
		c := o.GetCondition(xpv2.TypeSynced)
		return c.Reason == reason, fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
	})
}

// waitReleasedEvent waits for a ReleasedWithoutDelete event about uid that
// names the reason.
func waitReleasedEvent(t *testing.T, uid types.UID, reason string) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, "a ReleasedWithoutDelete event naming "+reason, func() (bool, string) {
		return eventWith(t, string(uid), string(deletion.ReasonReleasedWithoutDelete), "("+reason+")"), fmt.Sprint(eventsOf(t, string(uid)))
	})
}

// wantAbandoned checks that the record of a released resource is Abandoned
// for the reason, or already swept with its object gone from Coder.
func wantAbandoned(t *testing.T, kind string, uid types.UID, reason string, inCoder bool) {
	t.Helper()
	r := recordOf(t, kind, uid)
	switch {
	case r == nil && inCoder:
		t.Errorf("the %s's record is gone but its object is still in Coder", kind)
	case r == nil:
		// Swept already, by a ClusterProviderConfig of the deployment.
	case r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned || r.Status.Reason != reason:
		t.Errorf("the %s's record is %s (%s), want Abandoned (%s)", kind, r.Status.Phase, r.Status.Reason, reason)
	}
}

// One tenant pauses its key (the crossplane.io/paused annotation) and its
// AI provider (managementPolicies: []), which use the platform team's
// ClusterProviderConfig; then its namespace is deleted. The namespace
// deletion does not touch the ClusterProviderConfig, so only the namespace
// bound ends the wait: dependentTimeout from the namespace's deletion.
func TestPausedResourcesDoNotKeepTheirNamespaceTerminating(t *testing.T) {
	coder := env.Cluster.Coder(t)
	cpc, _ := readyClusterConfig(t, coder)
	tenant := env.Namespace(t)
	k := keyOfClusterConfig(t, tenant, "paused", cpc)
	p := aiProvider(tenant, "paused-"+tenant, func(p *aiv1alpha1.AIProvider) {
		p.Spec.ForProvider.Name = ptr.To("paused-" + tenant)
		p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: cpc.Name}
	})
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	keyID, providerID := meta.GetExternalName(k), meta.GetExternalName(p)
	providerInCoder := func() bool { return liveProvider(coder, providerID) }

	if err := env.Update(t, k, func() { meta.AddAnnotations(k, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"}) }); err != nil {
		t.Fatal(err)
	}
	// As `kubectl apply` sends it: the typed field omits an empty list.
	if err := env.Kube.Patch(context.Background(), p, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"managementPolicies":[]}}`))); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, k, xpv2.ReasonReconcilePaused)
	waitSynced(t, p, xpv2.ReasonReconcilePaused)

	keysBefore, provsBefore := releasedWithoutDelete(t, "AIGatewayKey"), releasedWithoutDelete(t, "AIProvider")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}}
	start := time.Now()
	env.Delete(t, ns)
	env.WaitGone(t, ns, 2*time.Minute)
	took := time.Since(start)
	t.Logf("a namespace with a paused key and a paused provider went %s after its deletion (dependentTimeout 8s)", took.Round(100*time.Millisecond))
	// The deletion timestamp has second precision.
	if took < shortBounds().DependentTimeout.Duration-time.Second {
		t.Errorf("the namespace went after %s, before the dependentTimeout: the paused resources did not wait", took)
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - keysBefore; got != 1 {
		t.Errorf("released_without_delete{kind=AIGatewayKey} grew by %v, want 1", got)
	}
	if got := releasedWithoutDelete(t, "AIProvider") - provsBefore; got != 1 {
		t.Errorf("released_without_delete{kind=AIProvider} grew by %v, want 1", got)
	}
	// Kubernetes refuses events in a terminating namespace (the scenario of
	// unsupported policies sees them); the log says why each went.
	for _, name := range []string{k.Name, p.Name} {
		if logLine(env.Cluster.ProviderLogs(t), "Releasing a deleting resource the managed reconciler leaves alone", tenant+"/"+name, policy.ReasonPaused) == "" {
			t.Errorf("no log line says %s/%s was released for being paused", tenant, name)
		}
	}
	wantAbandoned(t, "AIGatewayKey", k.UID, policy.ReasonPaused, testenv.LiveKey(coder, keyID))
	wantAbandoned(t, "AIProvider", p.UID, policy.ReasonPaused, providerInCoder())

	// The records cover the rest: the ClusterProviderConfig's sweep deletes
	// what the paused resources left in Coder.
	testenv.Eventually(t, provider.DefaultOptions().SweepGrace+testenv.WaitLong, "the sweep to delete the paused resources' objects in Coder", func() (bool, string) {
		return !testenv.LiveKey(coder, keyID) && !providerInCoder(), fmt.Sprintf("key in Coder %v, provider in Coder %v", testenv.LiveKey(coder, keyID), providerInCoder())
	})
	waitRecordGone(t, "AIGatewayKey", k.UID)
	waitRecordGone(t, "AIProvider", p.UID)
}

// A key whose management policies were changed to a combination the
// managed reconciler does not support is deleted with its ProviderConfig:
// the hold waits for it, and when the hold's grace begins the key is
// released without delete, counted, and the ProviderConfig goes.
func TestAResourceWithUnsupportedPoliciesIsReleasedWhenItsHoldEnds(t *testing.T) {
	s := newHoldSetup(t)
	keyID := meta.GetExternalName(s.key)
	if err := env.Update(t, s.key, func() {
		s.key.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionCreate, xpv2.ManagementActionDelete}
	}); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, s.key, xpv2.ReasonReconcileError)

	before := releasedWithoutDelete(t, "AIGatewayKey")
	start := time.Now()
	env.Delete(t, s.ai)
	env.Delete(t, s.key)
	env.Delete(t, s.pc)
	env.WaitGone(t, s.key, testenv.WaitLong)
	env.WaitGone(t, s.pc, testenv.WaitLong)
	env.WaitGone(t, s.ai, testenv.WaitLong)
	took := time.Since(start)
	t.Logf("a key with unsupported management policies and its ProviderConfig went %s after their deletion (dependentTimeout 8s, grace 3s)", took.Round(100*time.Millisecond))
	if took < shortBounds().DependentTimeout.Duration-time.Second {
		t.Errorf("gone after %s, before the dependentTimeout: the hold did not wait for the key", took)
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - before; got != 1 {
		t.Errorf("released_without_delete{kind=AIGatewayKey} grew by %v, want 1", got)
	}
	waitReleasedEvent(t, s.key.UID, policy.ReasonUnsupportedPolicies)
	wantAbandoned(t, "AIGatewayKey", s.key.UID, policy.ReasonUnsupportedPolicies, testenv.LiveKey(s.coder, keyID))
	if s.providerInCoder() {
		t.Errorf("the provider, whose policies are the default, was not deleted in Coder")
	}

	sweepThrough(t, s.coder)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to delete the released key in Coder", func() (bool, string) {
		return !testenv.LiveKey(s.coder, keyID), "key in Coder"
	})
	waitRecordGone(t, "AIGatewayKey", s.key.UID)
}

// withoutRecordDelete takes the delete of cleanup records away from the
// provider (as an install without examples/install/rbac.yaml has it) until
// the test ends, and waits until the API server refuses it.
func withoutRecordDelete(t *testing.T) {
	t.Helper()
	pkg, err := packagerbac.Load(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: pkg.ExtraClusterRole().Name}}
	if !env.Get(t, role) {
		t.Fatalf("no ClusterRole %s", role.Name)
	}
	orig := role.DeepCopy()
	done := env.ExpectDenials(`cannot delete resource "cleanuprecords"`)
	restore := func() {
		cur := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: orig.Name}}
		if err := env.Update(t, cur, func() { cur.Rules = orig.Rules }); err != nil {
			t.Errorf("cannot restore ClusterRole %s: %v", orig.Name, err)
		}
	}
	t.Cleanup(func() {
		restore()
		waitRecordDelete(t, true)
		done()
	})
	if err := env.Update(t, role, func() {
		var kept []rbacv1.PolicyRule
		for _, r := range role.Rules {
			if !packagerbac.Allows([]rbacv1.PolicyRule{r}, "coder.crossplane.io", "cleanuprecords", "delete") {
				kept = append(kept, r)
			}
		}
		role.Rules = kept
	}); err != nil {
		t.Fatal(err)
	}
	waitRecordDelete(t, false)
}

// waitRecordDelete waits until the provider may delete cleanup records, or
// may not.
func waitRecordDelete(t *testing.T, allowed bool) {
	t.Helper()
	s, err := provider.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	as, err := client.New(env.ControlPlane.UserConfig(packagerbac.User(), packagerbac.Groups()...), client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	del := []config.Permission{{Group: "coder.crossplane.io", Resource: "cleanuprecords", Verb: "delete"}}
	testenv.Eventually(t, testenv.WaitLong, fmt.Sprintf("the provider's delete of cleanup records to be allowed: %v", allowed), func() (bool, string) {
		missing, err := config.MissingPermissions(context.Background(), as, del)
		if err != nil {
			return false, err.Error()
		}
		return (len(missing) == 0) == allowed, fmt.Sprint(missing)
	})
}

// With the delete of cleanup records taken away, a key and a provider are
// deleted while their ProviderConfig stands: their objects go from Coder,
// their records cannot. They do not wait on an operator: the records turn
// Abandoned, the releases are counted and evented, and once the RBAC is
// back the sweep verifies that nothing is left and deletes the records.
func TestAResourceWhoseRecordDeleteIsForbiddenIsReleasedAndItsRecordSwept(t *testing.T) {
	if env.ControlPlane == nil {
		t.Skip("needs the local control plane, whose RBAC the scenario edits and whose denials it tells apart")
	}
	s := newHoldSetup(t)
	keyID := meta.GetExternalName(s.key)
	withoutRecordDelete(t)

	keysBefore, provsBefore := releasedWithoutDelete(t, "AIGatewayKey"), releasedWithoutDelete(t, "AIProvider")
	start := time.Now()
	env.Delete(t, s.key)
	env.Delete(t, s.ai)
	env.WaitGone(t, s.key, testenv.WaitLong)
	env.WaitGone(t, s.ai, testenv.WaitLong)
	t.Logf("a key and a provider whose records the provider may not delete went %s after their deletion", time.Since(start).Round(100*time.Millisecond))
	if testenv.LiveKey(s.coder, keyID) || s.providerInCoder() {
		t.Errorf("Coder still has the key: %v, the provider: %v", testenv.LiveKey(s.coder, keyID), s.providerInCoder())
	}
	if got := releasedWithoutDelete(t, "AIGatewayKey") - keysBefore; got != 1 {
		t.Errorf("released_without_delete{kind=AIGatewayKey} grew by %v, want 1", got)
	}
	if got := releasedWithoutDelete(t, "AIProvider") - provsBefore; got != 1 {
		t.Errorf("released_without_delete{kind=AIProvider} grew by %v, want 1", got)
	}
	waitReleasedEvent(t, s.key.UID, deletion.ReasonRecordDeleteForbidden)
	waitReleasedEvent(t, s.ai.UID, deletion.ReasonRecordDeleteForbidden)
	for kind, uid := range map[string]types.UID{"AIGatewayKey": s.key.UID, "AIProvider": s.ai.UID} {
		if r := recordOf(t, kind, uid); r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned || r.Status.Reason != deletion.ReasonRecordDeleteForbidden {
			t.Errorf("the %s's record = %+v, want Abandoned (%s)", kind, r, deletion.ReasonRecordDeleteForbidden)
		}
	}

	// The RBAC is back: the ProviderConfig turns Ready again and sweeps its
	// namespace's records, finding nothing left in Coder.
	pkg, err := packagerbac.Load(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: pkg.ExtraClusterRole().Name}}
	if err := env.Update(t, role, func() { role.Rules = pkg.ExtraClusterRole().Rules }); err != nil {
		t.Fatal(err)
	}
	waitRecordDelete(t, true)
	env.WaitCondition(t, s.pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitRecordGone(t, "AIGatewayKey", s.key.UID)
	waitRecordGone(t, "AIProvider", s.ai.UID)
}
