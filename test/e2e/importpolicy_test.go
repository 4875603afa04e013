package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/test/crds"
)

// importPolicy reads the ValidatingAdmissionPolicy and its binding from the
// importing how-to, so the documented YAML is the tested one.
func importPolicy(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(crds.RepoRoot(), "docs", "how-to", "importing.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "### Restrict imports to the platform team")
	if !ok {
		t.Fatal("docs/how-to/importing.md has no section on restricting imports")
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("the section on restricting imports has no YAML")
	}
	block, _, _ = strings.Cut(block, "```")
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

// TestDocumentedImportPolicyKeepsTenantsFromImporting applies the
// ValidatingAdmissionPolicy of docs/how-to/importing.md: in a tenant
// namespace a person cannot set an external name, while the provider still
// records the id of what it creates; outside tenant namespaces imports stay
// open.
func TestDocumentedImportPolicyKeepsTenantsFromImporting(t *testing.T) {
	for _, u := range importPolicy(t) {
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

	importing := func(ns string) error {
		k := newKey(ns, "imported")
		meta.SetExternalName(k, "0b7e4a4e-0000-4000-8000-000000000001")
		return env.Kube.Create(t.Context(), k, client.DryRunAll)
	}
	// A policy takes effect a moment after it is created.
	Eventually(t, waitLong, "the policy to refuse an import in a tenant namespace", func() (bool, string) {
		err := importing(tenant)
		return err != nil && strings.Contains(err.Error(), "tenants cannot set crossplane.io/external-name"), errText(err)
	})
	if err := importing(platform); err != nil {
		t.Errorf("an import outside tenant namespaces was refused: %v", err)
	}

	// A tenant's own key: the provider, as its ServiceAccount in
	// crossplane-system, writes the id of the key it created.
	k := newKey(tenant, "own")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, waitLong)
	if meta.GetExternalName(k) == "" {
		t.Error("the provider could not record the id of the key it created in a tenant namespace")
	}
}

func errText(err error) string {
	if err == nil {
		return "allowed"
	}
	return err.Error()
}
