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

package policy

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

func TestOnlyPoliciesWithDeleteDeleteInCoder(t *testing.T) {
	cases := map[string]struct {
		policies xpv2.ManagementPolicies
		legacy   bool
		orphan   bool
		want     bool
	}{
		"Default":             {policies: nil, want: true},
		"All":                 {policies: xpv2.ManagementPolicies{xpv2.ManagementActionAll}, want: true},
		"ObserveOnly":         {policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve}, want: false},
		"ObserveDelete":       {policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionDelete}, want: true},
		"LegacyOrphan":        {legacy: true, orphan: true, want: false},
		"LegacyDelete":        {legacy: true, want: true},
		"EverythingButDelete": {policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate}, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var k resource.Managed = &aiv1alpha1.AIGatewayKey{}
			if tc.legacy {
				l := &clusteraiv1alpha1.AIGatewayKey{}
				if tc.orphan {
					l.SetDeletionPolicy(xpv2.DeletionOrphan)
				} else {
					l.SetDeletionPolicy(xpv2.DeletionDelete)
				}
				k = l
			}
			k.SetManagementPolicies(tc.policies)
			if got := MayDelete(k); got != tc.want {
				t.Errorf("MayDelete(%v) = %t, want %t", tc.policies, got, tc.want)
			}
		})
	}
}

func TestOnlyPoliciesWithUpdateOrAllUpdateInCoder(t *testing.T) {
	cases := map[string]struct {
		reason   string
		policies xpv2.ManagementPolicies
		cluster  bool
		want     bool
	}{
		"Default":        {reason: "empty policies are the API server's default, *", want: true},
		"All":            {reason: "* includes Update", policies: xpv2.ManagementPolicies{xpv2.ManagementActionAll}, want: true},
		"ObserveOnly":    {reason: "an observe-only import changes nothing", policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve}},
		"ObserveUpdate":  {reason: "Update is listed", policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionUpdate}, want: true},
		"NoUpdate":       {reason: "everything but Update", policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionDelete, xpv2.ManagementActionLateInitialize}},
		"ClusterDefault": {reason: "a legacy resource's default policies update too", cluster: true, want: true},
		"ClusterObserve": {reason: "a legacy resource's observe-only import changes nothing", cluster: true, policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p resource.Managed = &aiv1alpha1.AIProvider{}
			if tc.cluster {
				l := &clusteraiv1alpha1.AIProvider{}
				l.SetDeletionPolicy(xpv2.DeletionOrphan)
				p = l
			}
			p.SetManagementPolicies(tc.policies)
			if got := Of(p).ShouldUpdate(); got != tc.want {
				t.Errorf("\n%s\nOf(%v).ShouldUpdate() = %t, want %t", tc.reason, tc.policies, got, tc.want)
			}
		})
	}
}

func TestTheManagedReconcilerLeavesPausedAndUnsupportedResourcesAlone(t *testing.T) {
	key := func(mutate func(*aiv1alpha1.AIGatewayKey)) *aiv1alpha1.AIGatewayKey {
		k := &aiv1alpha1.AIGatewayKey{}
		k.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionAll}
		if mutate != nil {
			mutate(k)
		}
		return k
	}
	policies := func(ps ...xpv2.ManagementAction) func(*aiv1alpha1.AIGatewayKey) {
		return func(k *aiv1alpha1.AIGatewayKey) { k.Spec.ManagementPolicies = ps }
	}
	cases := map[string]struct {
		reason   string
		mg       resource.Managed
		disabled bool
		want     string
	}{
		"Default": {
			reason: "the default policies are acted on",
			mg:     key(nil),
		},
		"ObserveOnly": {
			reason: "a supported combination is acted on",
			mg:     key(policies(xpv2.ManagementActionObserve)),
		},
		"PausedByAnnotation": {
			reason: "crossplane.io/paused: true pauses it",
			mg: key(func(k *aiv1alpha1.AIGatewayKey) {
				meta.AddAnnotations(k, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
			}),
			want: ReasonPaused,
		},
		"PausedAnnotationOtherValue": {
			reason: "only the value true pauses",
			mg: key(func(k *aiv1alpha1.AIGatewayKey) {
				meta.AddAnnotations(k, map[string]string{meta.AnnotationKeyReconciliationPaused: "false"})
			}),
		},
		"EmptyPolicies": {
			reason: "managementPolicies: [] pauses it",
			mg:     key(policies()),
			want:   ReasonPaused,
		},
		"Unsupported": {
			reason: "a combination the reconciler does not support stops it",
			mg:     key(policies(xpv2.ManagementActionCreate, xpv2.ManagementActionDelete)),
			want:   ReasonUnsupportedPolicies,
		},
		"NonDefaultWhileDisabled": {
			reason:   "with management policies disabled, anything but the default stops it",
			mg:       key(policies(xpv2.ManagementActionObserve)),
			disabled: true,
			want:     ReasonUnsupportedPolicies,
		},
		"LegacyPaused": {
			reason: "a cluster-scoped resource pauses the same way",
			mg: func() resource.Managed {
				k := &clusteraiv1alpha1.AIGatewayKey{}
				k.Spec.ManagementPolicies = xpv2.ManagementPolicies{}
				return k
			}(),
			want: ReasonPaused,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Stalled(tc.mg, !tc.disabled); got != tc.want {
				t.Errorf("%s\nStalled(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
