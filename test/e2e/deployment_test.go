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
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
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
	testenv.Eventually(t, testenv.WaitLong, "the ProviderConfig to reach Coder B", func() (bool, string) {
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
		testenv.Eventually(t, testenv.WaitLong, "the deleting resource to name both deployments", func() (bool, string) {
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
		if r == nil || r.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned || r.Status.Reason != deletion.ReasonOtherDeployment || r.Spec.DeploymentID != deploymentA {
			t.Fatalf("cleanup record of the %s = %+v, want Abandoned for %s, naming deployment %s", kindOf(o), r, deletion.ReasonOtherDeployment, deploymentA)
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

// The sweep trusts no deployment id a server reports (issue 26, items 2
// and 3). buildinfo is public: a tenant's own server can claim the
// platform's deployment id, and answer a create with the id of another's
// object. Two Abandoned provider records, as a tenant's creates would
// leave them, name the platform Coder's deployment and its provider
// "victim": one made at the tenant's URL, holding the victim's id (the
// tenant's server answered the create with it); one made at the platform's
// URL through the tenant's own ProviderConfig, knowing the victim by the
// name the tenant chose and a create attempt when the victim was made. The
// platform's ClusterProviderConfig at its URL sweeps neither into the
// victim: the first is another Coder's, and the second only its creator
// may find by name, so it stays, saying so.
func TestTheSweepDeletesOnlyThroughTheProviderConfigThatMadeARecordOrThePlatformsAtItsURL(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	deployment := deploymentOf(t, c)
	victim, err := c.SDK(t).CreateAIProvider(t.Context(), codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeOpenAI, Name: testenv.UniqueProviderName("victim"), Enabled: true, BaseURL: "https://api.openai.com/v1/", APIKeys: []string{"sk-not-a-real-key"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := env.Namespace(t)
	tenantAt := func(url string) *clusterv1alpha1.RecordedProviderConfig {
		return &clusterv1alpha1.RecordedProviderConfig{Group: providerconfig.NamespacedKind.Group, Kind: providerconfig.NamespacedKind.Kind, Namespace: ns, Name: "tenant", URL: url}
	}
	record := func(pc *clusterv1alpha1.RecordedProviderConfig, id string) *clusterv1alpha1.CleanupRecord {
		uid := types.UID(uuid.NewString())
		return &clusterv1alpha1.CleanupRecord{
			ObjectMeta: metav1.ObjectMeta{Name: deletion.Name("AIProvider", uid)},
			Spec: clusterv1alpha1.CleanupRecordSpec{
				Kind: "AIProvider",
				ManagedResource: clusterv1alpha1.ManagedResourceReference{
					APIVersion: "ai.coder.m.crossplane.io/v1alpha1", Kind: "AIProvider", Namespace: ns, Name: "gone", UID: string(uid),
				},
				DeploymentID: deployment, ProviderConfig: pc,
			},
			Status: clusterv1alpha1.CleanupRecordStatus{
				CoderName: victim.Name, ExternalID: id, CreateAttemptedAt: &metav1.Time{Time: victim.CreatedAt},
				Phase: clusterv1alpha1.CleanupPhaseAbandoned,
			},
		}
	}
	elsewhere := record(tenantAt("http://coder.tenant.invalid"), victim.ID.String())
	byName := record(tenantAt(coder.CanonicalURL(c.URL())), "")
	for _, rec := range []*clusterv1alpha1.CleanupRecord{elsewhere, byName} {
		env.CreateRecord(t, rec)
		t.Cleanup(func() { env.Delete(t, rec) })
	}

	// A Ready ClusterProviderConfig of the platform's Coder triggers a sweep.
	sweepThrough(t, c)
	testenv.Eventually(t, testenv.WaitLong, "the sweep to try the record it may not find by name", func() (bool, string) {
		if !env.Get(t, byName) {
			return false, "the record is gone"
		}
		return byName.Status.LastError != "", fmt.Sprintf("attempts: %d, no error yet", byName.Status.Attempts)
	})
	if !strings.Contains(byName.Status.LastError, "only the ProviderConfig that made it may find it by name") {
		t.Errorf("the record known by name only says %q, want why it is kept", byName.Status.LastError)
	}
	if !env.Get(t, elsewhere) || elsewhere.Status.Attempts != 0 {
		t.Errorf("the record made at another URL = %+v, want untouched by the platform's ProviderConfig", elsewhere.Status)
	}
	if _, err := c.SDK(t).AIProvider(t.Context(), victim.ID.String()); err != nil {
		t.Errorf("the platform's provider was swept for a tenant's record: %v", err)
	}
	if n := c.Requests(fakecoder.EndpointProviderDelete); n != 0 {
		t.Errorf("the platform's Coder received %d provider deletes", n)
	}
}
