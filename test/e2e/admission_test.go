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

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

// TestInvalidSpecsAreRejectedAtAdmission checks the CRDs' own validation:
// each bad object is refused by the API server, before the provider or Coder
// sees it, with a message that names the offending field.
func TestInvalidSpecsAreRejectedAtAdmission(t *testing.T) {
	ns := env.Namespace(t)
	pc := func(mut func(*namespacedv1alpha1.ProviderConfig)) client.Object {
		p := &namespacedv1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "pc-"},
			Spec: common.LocalProviderConfigSpec{
				URL: "https://coder.example.com",
				Credentials: common.LocalCredentials{
					Source:    common.CredentialsSourceSecret,
					SecretRef: &common.LocalSecretKeySelector{Name: "t", Key: "token"},
				},
			},
		}
		mut(p)
		return p
	}
	key := func(mut func(*aiv1alpha1.AIGatewayKey)) client.Object {
		k := newKey(ns, "")
		k.GenerateName = "key-"
		mut(k)
		return k
	}
	cases := map[string]struct {
		obj       client.Object
		wantField string
	}{
		"ProviderConfigURLWithoutScheme": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.URL = "coder.example.com" }),
			wantField: "spec.url",
		},
		"ProviderConfigURLNotHTTP": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.URL = "ftp://coder.example.com" }),
			wantField: "spec.url",
		},
		"ProviderConfigURLWithCredentials": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.URL = "https://u:p@coder.example.com" }),
			wantField: "spec.url must not carry user credentials",
		},
		"ProviderConfigURLWithQuery": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.URL = "https://coder.example.com/?token=x" }),
			wantField: "spec.url must not carry user credentials",
		},
		"ProviderConfigURLWithFragment": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.URL = "https://coder.example.com/#top" }),
			wantField: "spec.url must not carry user credentials",
		},
		"ProviderConfigUnknownCredentialsSource": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.Credentials.Source = "Env" }),
			wantField: "spec.credentials.source",
		},
		"ProviderConfigSecretSourceWithoutSecretRef": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.Credentials.SecretRef = nil }),
			wantField: "spec.credentials.secretRef",
		},
		"ProviderConfigSecretRefWithoutKey": {
			obj:       pc(func(p *namespacedv1alpha1.ProviderConfig) { p.Spec.Credentials.SecretRef.Key = "" }),
			wantField: "spec.credentials.secretRef.key",
		},
		"ClusterProviderConfigSecretWithoutNamespace": {
			obj: &clusterv1alpha1.ProviderConfig{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "pc-"},
				Spec: common.ProviderConfigSpec{
					URL: "https://coder.example.com",
					Credentials: common.Credentials{
						Source:    common.CredentialsSourceSecret,
						SecretRef: &common.SecretKeySelector{LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "t", Key: "token"}},
					},
				},
			},
			wantField: "spec.credentials.secretRef.namespace",
		},
		"KeyNamePrefixUpperCase": {
			obj:       key(func(k *aiv1alpha1.AIGatewayKey) { k.Spec.ForProvider.NamePrefix = "Gateway" }),
			wantField: "spec.forProvider.namePrefix",
		},
		"KeyNamePrefixDoubleHyphen": {
			obj:       key(func(k *aiv1alpha1.AIGatewayKey) { k.Spec.ForProvider.NamePrefix = "gw--a" }),
			wantField: "spec.forProvider.namePrefix",
		},
		"KeyNamePrefixTooLong": {
			obj:       key(func(k *aiv1alpha1.AIGatewayKey) { k.Spec.ForProvider.NamePrefix = strings.Repeat("a", 21) }),
			wantField: "spec.forProvider.namePrefix",
		},
		"KeyUnknownProviderConfigKind": {
			obj:       key(func(k *aiv1alpha1.AIGatewayKey) { k.Spec.ProviderConfigReference.Kind = "Secret" }),
			wantField: "spec.providerConfigRef",
		},
		"ProviderUnknownType": {
			obj:       aiProvider(ns, "bad-type", func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Type = "mistral" }),
			wantField: "spec.forProvider.type",
		},
		"ProviderNameNotACoderName": {
			obj:       aiProvider(ns, "bad-name", func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Name = ptr.To("My_Provider") }),
			wantField: "spec.forProvider.name",
		},
		"ProviderBaseURLNotHTTP": {
			obj:       aiProvider(ns, "bad-url", func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.BaseURL = "file:///etc/passwd" }),
			wantField: "spec.forProvider.baseURL",
		},
		"BudgetWarnAtZero": {
			obj:       warnAt(newGroupBudget(ns, "warn-zero", "team", 5), 0),
			wantField: "spec.forProvider.warnAt",
		},
		"OverrideWarnAtOver100": {
			obj:       warnAt(override(ns, "warn-over"), 101),
			wantField: "spec.forProvider.warnAt",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := env.Kube.Create(context.Background(), tc.obj)
			if err == nil {
				t.Fatalf("the API server accepted an invalid object")
			}
			if !kerrors.IsInvalid(err) {
				t.Fatalf("error is not Invalid: %v", err)
			}
			if !strings.Contains(err.Error(), tc.wantField) {
				t.Errorf("error %q does not name the field %s", err, tc.wantField)
			}
		})
	}
}

// TestImmutableFieldsCannotChange checks the CRDs' transition rules.
func TestImmutableFieldsCannotChange(t *testing.T) {
	ns := env.Namespace(t)
	k := newKey(ns, "immutable")
	k.Spec.ForProvider.NamePrefix = "gw"
	env.Create(t, k)
	err := env.Update(t, k, func() { k.Spec.ForProvider.NamePrefix = "other" })
	if !kerrors.IsInvalid(err) || !strings.Contains(err.Error(), "namePrefix") {
		t.Errorf("changing namePrefix: got %v, want Invalid naming namePrefix", err)
	}

	// Adding or removing it is a change too: the rule on the field itself
	// runs only when both sides have it.
	err = env.Update(t, k, func() { k.Spec.ForProvider.NamePrefix = "" })
	if !kerrors.IsInvalid(err) || !strings.Contains(err.Error(), "namePrefix") {
		t.Errorf("removing namePrefix: got %v, want Invalid naming namePrefix", err)
	}
	bare := newKey(ns, "bare")
	env.Create(t, bare)
	err = env.Update(t, bare, func() { bare.Spec.ForProvider.NamePrefix = "gw" })
	if !kerrors.IsInvalid(err) || !strings.Contains(err.Error(), "namePrefix") {
		t.Errorf("adding namePrefix: got %v, want Invalid naming namePrefix", err)
	}

	p := aiProvider(ns, "immutable", func(*aiv1alpha1.AIProvider) {})
	env.Create(t, p)
	err = env.Update(t, p, func() { p.Spec.ForProvider.Type = "anthropic" })
	if !kerrors.IsInvalid(err) || !strings.Contains(err.Error(), "type") {
		t.Errorf("changing type: got %v, want Invalid naming type", err)
	}
}

// aiProvider is a valid namespaced OpenAI AIProvider that mut may spoil.
func aiProvider(ns, name string, mut func(*aiv1alpha1.AIProvider)) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	p.Spec.ProviderConfigReference = testenv.PCRef()
	p.Spec.ForProvider.Type = "openai"
	p.Spec.ForProvider.BaseURL = "https://api.openai.com/v1/"
	mut(p)
	return p
}

// warnAt sets spec.forProvider.warnAt of a budget or an override.
func warnAt(o client.Object, pct int32) client.Object {
	switch b := o.(type) {
	case *aiv1alpha1.GroupAIBudget:
		b.Spec.ForProvider.WarnAt = &pct
	case *aiv1alpha1.UserAIBudgetOverride:
		b.Spec.ForProvider.WarnAt = &pct
	}
	return o
}

// override is a valid UserAIBudgetOverride of alice in the group team.
func override(ns, name string) *aiv1alpha1.UserAIBudgetOverride {
	o := &aiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	o.Spec.ProviderConfigReference = testenv.PCRef()
	o.Spec.ForProvider.User = "alice"
	o.Spec.ForProvider.GroupName = ptr.To("team")
	o.Spec.ForProvider.SpendLimitMicros = ptr.To[int64](5)
	return o
}
