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
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aiprovider"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// An import that names a provider made by hand by its Coder name, and
// says nothing else about it: no type, no base URL. It shows what Coder
// has, its external name settles to the provider's id, its connection
// Secret gives the base URL an Anthropic client sets, and deleting it
// leaves the provider in Coder.
func TestAIProviderImportedByNameWithoutPlaceholdersPublishesItsGatewayURL(t *testing.T) {
	ns := env.Namespace(t)
	pc := env.ProviderConfig(t, ns)
	const key = "sk-ant-by-name-k3y9Qm2Xv7Lp"
	made, err := env.CoderClient(t).CreateAIProvider(context.Background(), codersdk.CreateAIProviderRequest{
		Type: "anthropic", Name: testenv.UniqueProviderName("by-name"), Enabled: true,
		BaseURL: "https://api.anthropic.com/", APIKeys: []string{key},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imported"}}
	p.Spec.ProviderConfigReference = testenv.PCRef()
	p.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	p.Spec.WriteConnectionSecretToReference = &xpv2.LocalSecretReference{Name: "imported-gateway"}
	meta.SetExternalName(p, made.Name)
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

	testenv.Eventually(t, testenv.WaitLong, "the external name settles to the provider's id", func() (bool, string) {
		env.Get(t, p)
		return meta.GetExternalName(p) == made.ID.String(), "external name " + meta.GetExternalName(p)
	})
	if at := p.Status.AtProvider; at.ID != made.ID.String() || at.Type != "anthropic" || at.BaseURL != made.BaseURL {
		t.Errorf("status.atProvider = id %q, type %q, baseURL %q; want Coder's %s, anthropic, %s", at.ID, at.Type, at.BaseURL, made.ID, made.BaseURL)
	}

	secret := &corev1.Secret{}
	testenv.Eventually(t, testenv.WaitLong, "the connection Secret", func() (bool, string) {
		err := env.Kube.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "imported-gateway"}, secret)
		return err == nil, "cannot get it"
	})
	want := map[string]string{
		aiprovider.ConnectionGatewayBaseURL: aiprovider.GatewayBaseURL(pc.Spec.URL, "anthropic", made.Name),
		aiprovider.ConnectionGatewayURL:     aiprovider.GatewayURL(pc.Spec.URL, made.Name),
		aiprovider.ConnectionName:           made.Name,
		aiprovider.ConnectionType:           "anthropic",
		aiprovider.ConnectionID:             made.ID.String(),
	}
	for k, v := range want {
		if got := string(secret.Data[k]); got != v {
			t.Errorf("connection Secret %s = %q, want %q", k, got, v)
		}
	}
	for k, v := range secret.Data {
		if strings.Contains(string(v), key) {
			t.Errorf("connection Secret key %s holds the provider's API key", k)
		}
	}

	env.Delete(t, p)
	env.WaitGone(t, p, testenv.WaitLong)
	if row, ok := env.ProviderRowByID(made.ID.String()); !ok || row.Deleted {
		t.Errorf("the provider imported by name was deleted in Coder by an observe-only resource")
	}
}
