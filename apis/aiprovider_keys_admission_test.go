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

package apis_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/apis"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

const aiProvidersCRD = "aiproviders.ai.coder.m.crossplane.io"

// keyRefs is n API key references.
func keyRefs(n int) []common.LocalSecretKeySelector {
	out := make([]common.LocalSecretKeySelector, 0, n)
	for i := range n {
		out = append(out, common.LocalSecretKeySelector{Name: "keys", Key: fmt.Sprintf("k%d", i)})
	}
	return out
}

func providerWithKeys(name string, n int) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	p.Spec.ForProvider.Type = "openai"
	p.Spec.ForProvider.BaseURL = "https://api.openai.com/v1"
	p.Spec.ForProvider.APIKeySecretRefs = keyRefs(n)
	return p
}

// setMaxKeys sets the namespaced AIProvider CRD's limit of API key
// references, as the CRD of an earlier release (16) or this one (5), and
// waits until the API server applies it.
func setMaxKeys(ctx context.Context, t *testing.T, kube client.Client, limit int64) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := kube.Get(ctx, client.ObjectKey{Name: aiProvidersCRD}, crd); err != nil {
		t.Fatal(err)
	}
	for i := range crd.Spec.Versions {
		fp := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"].Properties["forProvider"]
		refs := fp.Properties["apiKeySecretRefs"]
		refs.MaxItems = ptr.To(limit)
		fp.Properties["apiKeySecretRefs"] = refs
		crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"].Properties["forProvider"] = fp
	}
	if err := kube.Update(ctx, crd); err != nil {
		t.Fatal(err)
	}
	probe := providerWithKeys("probe", int(limit))
	// The API server applies a CRD's new schema a moment after the update.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		fits := kube.Create(ctx, probe, client.DryRunAll) == nil
		probe.Spec.ForProvider.APIKeySecretRefs = keyRefs(int(limit) + 1)
		over := kube.Create(ctx, probe, client.DryRunAll) != nil
		probe.Spec.ForProvider.APIKeySecretRefs = keyRefs(int(limit))
		return fits && over, nil
	}); err != nil {
		t.Fatalf("the API server did not apply the limit of %d API keys", limit)
	}
}

// TestAnAIProviderTakesAtMostFiveKeysAndKeepsMoreItHadWhileUnchanged checks
// the limit of 5 API keys (Coder's documented maximum) on a real API
// server, and what it means for an object stored under the earlier limit
// of 16: CRD validation ratcheting admits its updates while the list stays
// as it was; an edit of the list must bring it to 5.
func TestAnAIProviderTakesAtMostFiveKeysAndKeepsMoreItHadWhileUnchanged(t *testing.T) {
	cp := controlplane.StartOrSkip(t, controlplane.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := crds.Install(ctx, cp.Config); err != nil {
		t.Fatal(err)
	}
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.Create(ctx, providerWithKeys("five", 5), client.DryRunAll); err != nil {
		t.Errorf("five API keys: %v, want admitted", err)
	}
	err = kube.Create(ctx, providerWithKeys("six", 6), client.DryRunAll)
	if !kerrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.forProvider.apiKeySecretRefs: Too many: 6: must have at most 5 items") {
		t.Errorf("six API keys: %v, want refused for having more than 5", err)
	}

	setMaxKeys(ctx, t, kube, 16)
	old := providerWithKeys("stored-with-six", 6)
	if err := kube.Create(ctx, old); err != nil {
		t.Fatal(err)
	}
	setMaxKeys(ctx, t, kube, 5)

	old.Spec.ForProvider.DisplayName = ptr.To("edited")
	if err := kube.Update(ctx, old); err != nil {
		t.Errorf("editing the display name of an object stored with six keys: %v, want admitted while its keys are unchanged", err)
	}
	old.Spec.ForProvider.APIKeySecretRefs[5].Key = "other"
	if err := kube.Update(ctx, old, client.DryRunAll); !kerrors.IsInvalid(err) {
		t.Errorf("changing one of its six keys: %v, want refused", err)
	}
	old.Spec.ForProvider.APIKeySecretRefs = keyRefs(5)
	if err := kube.Update(ctx, old); err != nil {
		t.Errorf("bringing it to five keys: %v, want admitted", err)
	}
}
