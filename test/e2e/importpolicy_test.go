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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// docPolicy reads the YAML block of the section heading of a how-to, so
// the documented policy is the tested one.
func docPolicy(t *testing.T, file, heading string) []*unstructured.Unstructured {
	t.Helper()
	block := docBlock(t, filepath.Join("how-to", file), heading, "yaml")
	var out []*unstructured.Unstructured
	for _, y := range strings.Split(block, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
			t.Fatalf("the documented policy does not parse: %v", err)
		}
		out = append(out, u)
	}
	return out
}

// docBlock returns the first fenced block of language lang in the section
// heading of docs/file, so what a page tells users is what a test runs.
func docBlock(t *testing.T, file, heading, lang string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(crds.RepoRoot(), "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), heading+"\n")
	if !ok {
		t.Fatalf("docs/%s has no section %q", file, heading)
	}
	_, block, ok := strings.Cut(section, "```"+lang+"\n")
	if !ok {
		t.Fatalf("section %q of docs/%s has no %s block", heading, file, lang)
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// The documented policy's refusals.
const (
	refusedByName   = "tenants cannot set crossplane.io/external-name"
	refusedReadOnly = "tenants cannot import a budget read-only"
)

// An import is one way of naming an object someone may already manage in
// Coder, made by a person in namespace ns.
type anImport struct {
	object  func(ns string) client.Object
	refused string
}

// imports are the imports of every namespaced kind: by external name, and
// for the budget kinds, read-only.
func imports() map[string]anImport {
	const id = "0b7e4a4e-0000-4000-8000-000000000001"
	named := func(o client.Object, name string) client.Object {
		meta.SetExternalName(o, name)
		return o
	}
	groupBudget := func(ns string) *aiv1alpha1.GroupAIBudget {
		b := newGroupBudget(ns, "imported", "", 50_000_000)
		b.Spec.ForProvider.GroupName, b.Spec.ForProvider.GroupID = nil, ptr.To(id)
		return b
	}
	override := func(ns string) *aiv1alpha1.UserAIBudgetOverride {
		o := &aiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imported"}}
		o.Spec.ProviderConfigReference = testenv.PCRef()
		o.Spec.ForProvider.User = id
		o.Spec.ForProvider.GroupName = ptr.To("data-science")
		o.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](1_000_000_000_000)
		return o
	}
	observeOnly := xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	return map[string]anImport{
		"KeyByID": {func(ns string) client.Object { return named(newKey(ns, "imported"), id) }, refusedByName},
		"ProviderByName": {func(ns string) client.Object {
			return named(newAIProvider(ns, "imported", "openai", "https://api.openai.com/v1"), "legacy-openai")
		}, refusedByName},
		"MCPServerBySlug": {func(ns string) client.Object {
			return named(newMCPServer(ns, "imported", common.MCPServerAuthNone), "legacy-docs")
		}, refusedByName},
		"GroupBudgetByGroupID": {func(ns string) client.Object { return named(groupBudget(ns), id) }, refusedByName},
		"GroupBudgetReadOnly": {func(ns string) client.Object {
			b := groupBudget(ns)
			b.Spec.ManagementPolicies, b.Spec.ForProvider.SpendLimitMicros = observeOnly, nil
			return b
		}, refusedReadOnly},
		"OverrideByUserID": {func(ns string) client.Object { return named(override(ns), id) }, refusedByName},
		"OverrideReadOnly": {func(ns string) client.Object {
			o := override(ns)
			o.Spec.ManagementPolicies, o.Spec.ForProvider.SpendLimitMicros = observeOnly, nil
			return o
		}, refusedReadOnly},
	}
}

// TestDocumentedImportPolicyKeepsTenantsFromImporting applies the
// ValidatingAdmissionPolicy of docs/how-to/importing.md: in a tenant
// namespace a person can import no key, provider, group budget or
// override, by external name or (budgets) read-only, while the provider
// still records the id of what it creates there; outside tenant namespaces
// the same imports stay open to the platform team.
func TestDocumentedImportPolicyKeepsTenantsFromImporting(t *testing.T) {
	for _, u := range docPolicy(t, "importing.md", "### Restrict imports to the platform team") {
		env.Create(t, u)
		t.Cleanup(func() { env.Delete(t, u) })
	}
	tenant := env.Namespace(t)
	ns := &corev1.Namespace{}
	ns.Name = tenant
	if err := env.Update(t, ns, func() { meta.AddLabels(ns, map[string]string{"coder.crossplane.io/tenant": "true"}) }); err != nil {
		t.Fatal(err)
	}
	env.ProviderConfig(t, tenant)
	platform := env.Namespace(t)

	importing := func(i anImport, ns string) error {
		return env.Kube.Create(t.Context(), i.object(ns), client.DryRunAll)
	}
	all := imports()
	// A policy takes effect a moment after it is created.
	testenv.Eventually(t, testenv.WaitLong, "the policy to refuse an import in a tenant namespace", func() (bool, string) {
		err := importing(all["KeyByID"], tenant)
		return err != nil && strings.Contains(err.Error(), refusedByName), errText(err)
	})
	for name, i := range all {
		t.Run(name, func(t *testing.T) {
			if err := importing(i, tenant); err == nil || !strings.Contains(err.Error(), i.refused) {
				t.Errorf("a person's import in a tenant namespace: %v, want refused with %q", errText(err), i.refused)
			}
			if err := importing(i, platform); err != nil {
				t.Errorf("the platform team's import outside tenant namespaces was refused: %v", err)
			}
		})
	}

	// A tenant's own key, group budget and override: the provider, as its
	// ServiceAccount in crossplane-system, writes the id of what it created.
	g := budgetGroup(t, env.Coder, tenant, 0)
	k := newKey(tenant, "own")
	b := newGroupBudget(tenant, "own", g.Name, 5_000_000)
	o := &aiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "own"}}
	o.Spec.ProviderConfigReference = testenv.PCRef()
	o.Spec.ForProvider.User = memberOf(t, g.ID).String()
	o.Spec.ForProvider.GroupName = ptr.To(g.Name)
	o.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](20_000_000)
	for _, mg := range []resource.Managed{k, b, o} {
		env.Create(t, mg)
	}
	for _, mg := range []resource.Managed{k, b, o} {
		env.WaitCondition(t, mg, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		if meta.GetExternalName(mg) == "" {
			t.Errorf("the provider could not record the id of the %T it created in a tenant namespace", mg)
		}
	}
	// The tenant still edits its budget, the external name unchanged, but
	// cannot narrow it to read-only, which would read any group's budget.
	if err := env.Update(t, b, func() { b.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](6_000_000) }); err != nil {
		t.Errorf("a tenant's change of its own budget's limit was refused: %v", err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		env.Get(t, b)
		b.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
		return env.Kube.Update(t.Context(), b, client.DryRunAll)
	})
	if err == nil || !strings.Contains(err.Error(), refusedReadOnly) {
		t.Errorf("a tenant's budget narrowed to read-only: %v, want refused with %q", errText(err), refusedReadOnly)
	}
}

// memberOf is the one member budgetGroup gave group g.
func memberOf(t *testing.T, g uuid.UUID) uuid.UUID {
	t.Helper()
	for _, row := range env.Coder.Groups() {
		if row.ID == g && len(row.Members) == 1 {
			return row.Members[0]
		}
	}
	t.Fatalf("group %s has not the one member budgetGroup added", g)
	return uuid.Nil
}

func errText(err error) string {
	if err == nil {
		return "allowed"
	}
	return err.Error()
}

// TestDocumentedRecordPolicyLeavesRecordsToTheProvider applies the
// ValidatingAdmissionPolicy of docs/how-to/deletion.md: a person can
// neither create a cleanup record nor write the status of one, while the
// provider still writes the record of the key it creates.
func TestDocumentedRecordPolicyLeavesRecordsToTheProvider(t *testing.T) {
	ns := env.Namespace(t)
	person := abandonedKeyRecord("aigatewaykey-person-"+ns, ns, "0b0c2f51-8c1a-4d8e-9f0e-5a6b7c8d9e0f", "by-hand", "7d4e1f2a-3b5c-4d6e-8f9a-0b1c2d3e4f5a")
	// Not t.Context(): the cleanup uses it too, after the context ends.
	creating := func() error { return env.Kube.Create(context.Background(), person.DeepCopy(), client.DryRunAll) }
	policy := docPolicy(t, "deletion.md", "### Only the provider writes cleanup records")
	for _, u := range policy {
		env.Create(t, u)
	}
	t.Cleanup(func() {
		for _, u := range policy {
			env.Delete(t, u)
		}
		// The scenarios after this one write records by hand.
		testenv.Eventually(t, testenv.WaitLong, "the policy to be lifted", func() (bool, string) {
			err := creating()
			return err == nil, errText(err)
		})
	})
	const refused = "only the provider writes cleanup records"
	testenv.Eventually(t, testenv.WaitLong, "the policy to refuse a person's record", func() (bool, string) {
		err := creating()
		return err != nil && strings.Contains(err.Error(), refused), errText(err)
	})

	env.ProviderConfig(t, ns)
	k := newKey(ns, "own")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	rec := recordOf(t, "AIGatewayKey", k.UID)
	if rec == nil || rec.Status.ExternalID != meta.GetExternalName(k) {
		t.Fatalf("the provider's record of its key = %+v, want the key's id in its status", rec)
	}
	rec.Status.ExternalID = "7d4e1f2a-3b5c-4d6e-8f9a-0b1c2d3e4f5a"
	if err := env.Kube.Status().Update(t.Context(), rec, client.DryRunAll); err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("a person's edit of a record's status: %v, want refused", errText(err))
	}
}
