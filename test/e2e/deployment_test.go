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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/cleanup"
)

// A delete counts only in the deployment that made the object (issue 26,
// item 1). A key and a provider are made in Coder A; their ProviderConfig
// is then pointed at Coder B, which has never heard of them, and they are
// deleted. B not listing them proves nothing: the resources stay, their
// Synced condition names both deployments, and A keeps the objects. When
// the namespace goes, the hold's bounds release them without delete,
// counted, their records Abandoned for OtherDeployment, and the sweep
// through a ProviderConfig of A deletes them there.
func TestRepointedProviderConfigDeletesNothingItCannotVerifyAndTheSweepFinishesInTheDeploymentThatMadeIt(t *testing.T) {
	s := newHoldSetup(t)
	a := s.coder
	deploymentA := s.pc.Status.DeploymentID
	b := env.Cluster.SpareCoder(t)
	env.TokenSecret(t, s.ns, "coder-token-b", b.Token())
	if err := env.Update(t, s.pc, func() {
		s.pc.Spec.URL = b.URL()
		s.pc.Spec.Credentials.SecretRef.Name = "coder-token-b"
	}); err != nil {
		t.Fatal(err)
	}
	Eventually(t, waitLong, "the ProviderConfig to reach Coder B", func() (bool, string) {
		env.Get(t, s.pc)
		return s.pc.Status.DeploymentID != "" && s.pc.Status.DeploymentID != deploymentA, "deployment " + s.pc.Status.DeploymentID
	})
	deploymentB := s.pc.Status.DeploymentID
	before := releasedWithoutDeleteBoth(t)

	env.Delete(t, s.key)
	env.Delete(t, s.ai)
	for _, o := range s.managed() {
		c := o.(interface {
			GetCondition(xpv2.ConditionType) xpv2.Condition
		})
		Eventually(t, waitLong, "the deleting resource to name both deployments", func() (bool, string) {
			env.Get(t, o)
			m := c.GetCondition(xpv2.TypeSynced).Message
			return strings.Contains(m, "deployment "+deploymentA) && strings.Contains(m, "deployment "+deploymentB), m
		})
	}
	if !s.keyInCoder() || !s.providerInCoder() {
		t.Fatalf("Coder A lost the key (%t) or the provider (%t) to a delete verified in Coder B", !s.keyInCoder(), !s.providerInCoder())
	}
	if d := releasedWithoutDeleteBoth(t) - before; d != 0 {
		t.Errorf("releases without delete before the bound = %v, want 0", d)
	}

	start := time.Now()
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}
	env.Delete(t, namespace)
	env.WaitGone(t, namespace, 2*time.Minute)
	t.Logf("namespace released in %s (dependentTimeout 8s)", time.Since(start).Round(100*time.Millisecond))
	if d := releasedWithoutDeleteBoth(t) - before; d != 2 {
		t.Errorf("releases without delete = %v, want 2 (the key and the provider)", d)
	}
	for _, o := range s.managed() {
		r := s.record(t, kindOf(o), o.GetUID())
		if r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned || r.Status.Reason != cleanup.ReasonOtherDeployment || r.Spec.DeploymentID != deploymentA {
			t.Fatalf("cleanup record of the %s = %+v, want Abandoned for %s, naming deployment %s", kindOf(o), r, cleanup.ReasonOtherDeployment, deploymentA)
		}
	}
	if !s.keyInCoder() || !s.providerInCoder() {
		t.Fatalf("Coder A lost the key (%t) or the provider (%t) without a verified delete", !s.keyInCoder(), !s.providerInCoder())
	}

	sweepThrough(t, a)
	for _, o := range s.managed() {
		waitRecordGone(t, kindOf(o), o.GetUID())
	}
	if s.keyInCoder() || s.providerInCoder() {
		t.Errorf("after the sweep Coder A still holds the key (%t) or the provider (%t)", s.keyInCoder(), s.providerInCoder())
	}
	if id := meta.GetExternalName(s.ai); !deletedProvider(a, id) {
		t.Errorf("Coder A holds no soft-deleted provider %s after the sweep", id)
	}
}
