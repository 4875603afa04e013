package aigatewaykey

import (
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

func TestMayDelete(t *testing.T) {
	cases := map[string]struct {
		policies xpv2.ManagementPolicies
		want     bool
	}{
		"Default":             {policies: nil, want: true},
		"All":                 {policies: xpv2.ManagementPolicies{xpv2.ManagementActionAll}, want: true},
		"ObserveOnly":         {policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve}, want: false},
		"ObserveDelete":       {policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionDelete}, want: true},
		"EverythingButDelete": {policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate}, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := &aiv1alpha1.AIGatewayKey{}
			k.SetManagementPolicies(tc.policies)
			if got := mayDelete(k); got != tc.want {
				t.Errorf("mayDelete(%v) = %t, want %t", tc.policies, got, tc.want)
			}
		})
	}
}
