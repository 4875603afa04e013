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
	"strings"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// The messages of the rules that require type and base URL.
const (
	msgTypeRequired    = `spec.forProvider.type is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as ["Observe"]`
	msgBaseURLRequired = `spec.forProvider.baseURL is required: set it, or import with spec.managementPolicies that allow neither Create nor Update, such as ["Observe"]`
)

// An import that only observes reads type and base URL from Coder, so it
// need not invent them; anything that may create or update a provider must
// say what it is. Checked on a real API server with the generated CRDs.
func TestAIProviderNeedsTypeAndBaseURLOnlyToCreateOrUpdate(t *testing.T) {
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
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}

	policies := func(ps ...xpv2.ManagementAction) xpv2.ManagementPolicies { return ps }
	observe, del, update, create, late := xpv2.ManagementActionObserve, xpv2.ManagementActionDelete,
		xpv2.ManagementActionUpdate, xpv2.ManagementActionCreate, xpv2.ManagementActionLateInitialize
	cases := map[string]struct {
		reason string
		obj    client.Object
		// want is the message the API server refuses with; empty when it
		// admits the object.
		want []string
	}{
		"ObserveOnly": {
			reason: "An observe-only import names the provider by its external name and nothing else.",
			obj:    namespaced(policies(observe), "", ""),
		},
		"ObserveAndDelete": {
			reason: "Deleting needs the id only.",
			obj:    namespaced(policies(observe, del), "", ""),
		},
		"ObserveAndLateInitialize": {
			reason: "Neither Create nor Update among the policies.",
			obj:    namespaced(policies(observe, late), "", ""),
		},
		"ObserveOnlyWithKeysButNoType": {
			reason: "The rules that read the type do not fail for its absence.",
			obj: edited(namespaced(policies(observe), "", ""), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{{Name: "keys", Key: "openai"}}
			}),
		},
		"ObserveOnlyBedrockSettingsWithoutType": {
			reason: "The rule that ties bedrock settings to a type does not fail for its absence either.",
			obj: edited(namespaced(policies(observe), "", ""), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Region: "us-east-1"}}
			}),
		},
		"ObserveOnlyBedrockWithoutBaseURL": {
			reason: "The rules that read the base URL do not fail for its absence.",
			obj: edited(namespaced(policies(observe), "bedrock", ""), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Region: "us-east-1"}}
			}),
		},
		"ObserveOnlyBedrockWithNeitherRegionNorBaseURL": {
			reason: "A rule that needs the base URL refuses with its own message, not an evaluation error, when it is absent.",
			obj: edited(namespaced(policies(observe), "bedrock", ""), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Model: "claude"}}
			}),
			want: []string{"forProvider.bedrock: type bedrock requires bedrock settings with a region (or a canonical Bedrock baseURL), a roleARN or an access key pair"},
		},
		"ObserveOnlyMantleWithNeitherRegionNorBaseURL": {
			reason: "The same for the mantle protocol's rule.",
			obj: edited(namespaced(policies(observe), "anthropic", ""), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Protocol: "mantle"}}
			}),
			want: []string{"forProvider.bedrock.region is required for the mantle protocol unless baseURL is a canonical Bedrock endpoint"},
		},
		"DefaultPoliciesWithout": {
			reason: "The default policies ([*]) create: type and base URL are required, each with its message.",
			obj:    namespaced(nil, "", ""),
			want:   []string{msgTypeRequired, msgBaseURLRequired},
		},
		"DefaultPoliciesWithoutBaseURL": {
			reason: "A type alone cannot create a provider.",
			obj:    namespaced(nil, "openai", ""),
			want:   []string{msgBaseURLRequired},
		},
		"UpdateWithoutType": {
			reason: "Update puts the spec into Coder: it needs the type.",
			obj:    namespaced(policies(observe, update), "", "https://api.openai.com/v1"),
			want:   []string{msgTypeRequired},
		},
		"CreateWithoutBaseURL": {
			reason: "Create needs both.",
			obj:    namespaced(policies(observe, create), "openai", ""),
			want:   []string{msgBaseURLRequired},
		},
		"DefaultPoliciesComplete": {
			reason: "A provider to manage, as before.",
			obj:    namespaced(nil, "openai", "https://api.openai.com/v1"),
		},
		"ClusterObserveOnly": {
			reason: "The cluster-scoped kind imports the same way.",
			obj:    cluster(policies(observe), ""),
		},
		"ClusterDefaultPoliciesWithout": {
			reason: "The cluster-scoped kind needs both to create.",
			obj:    cluster(nil, ""),
			want:   []string{msgTypeRequired, msgBaseURLRequired},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := kube.Create(ctx, tc.obj, client.DryRunAll)
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("%s\ndry-run create: %v, want admitted", tc.reason, err)
				}
				return
			}
			if !kerrors.IsInvalid(err) {
				t.Fatalf("%s\ndry-run create: %v, want Invalid", tc.reason, err)
			}
			if strings.Contains(err.Error(), "evaluating rule") {
				// A rule that reads an absent field fails to evaluate; its
				// message then comes second to CEL's "no such key".
				t.Errorf("%s\na rule failed to evaluate: %v", tc.reason, err)
			}
			for _, msg := range tc.want {
				if !strings.Contains(err.Error(), msg) {
					t.Errorf("%s\ndry-run create refused with %q, want it to say %q", tc.reason, err, msg)
				}
			}
		})
	}
}

// namespaced is an AIProvider import of the given policies (the default
// when nil), type and base URL (unset when empty).
func namespaced(ps xpv2.ManagementPolicies, typ, baseURL string) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "openai"}}
	meta.SetExternalName(p, "openai")
	p.Spec.ManagementPolicies = ps
	p.Spec.ForProvider.Type = common.AIProviderType(typ)
	p.Spec.ForProvider.BaseURL = baseURL
	return p
}

// cluster is the cluster-scoped twin of namespaced, without a type.
func cluster(ps xpv2.ManagementPolicies, baseURL string) *clusteraiv1alpha1.AIProvider {
	p := &clusteraiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Name: "openai"}}
	meta.SetExternalName(p, "openai")
	p.Spec.ManagementPolicies = ps
	p.Spec.ForProvider.BaseURL = baseURL
	return p
}

func edited(p *aiv1alpha1.AIProvider, edit func(*aiv1alpha1.AIProvider)) *aiv1alpha1.AIProvider {
	edit(p)
	return p
}
