package providerconfig

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

func TestCreatesAreRefusedThroughAProviderConfigThatCannotAccountForThem(t *testing.T) {
	now := metav1.Now()
	notReady := func(r xpv2.ConditionReason) *xpv2.Condition {
		c := xpv2.Unavailable().WithMessage("m")
		c.Reason = r
		return &c
	}
	cases := map[string]struct {
		reason   string
		deleting bool
		ready    *xpv2.Condition
		want     string // a substring; empty: creates go ahead
	}{
		"Ready":              {reason: "A Ready ProviderConfig takes creates.", ready: ptr.To(xpv2.Available()), want: ""},
		"NotCheckedYet":      {reason: "No Ready condition yet: the deployment id gate waits for the first check.", want: ""},
		"Deleting":           {reason: "A ProviderConfig being deleted takes no new objects.", deleting: true, ready: ptr.To(xpv2.Available()), want: "being deleted"},
		"MissingPermissions": {reason: "Without its RBAC the provider could not record or sweep what it creates.", ready: notReady(ReasonMissingPermissions), want: "(MissingPermissions): m"},
		"Unprotected":        {reason: "Credentials a namespace deletion could take away strand what is created.", ready: notReady(ReasonCredentialsUnavailable), want: "(CredentialsUnavailable)"},
		"CoderUnreachable":   {reason: "A Coder that is down fails the create itself.", ready: notReady(ReasonCoderUnreachable), want: ""},
		"Unauthorized":       {reason: "A refused token fails the create itself.", ready: notReady(ReasonUnauthorized), want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pc := &namespacedv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "coder"}}
			if tc.deleting {
				pc.DeletionTimestamp = &now
			}
			if tc.ready != nil {
				pc.SetConditions(*tc.ready)
			}
			got := CreateRefused(pc)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("%s\nCreateRefused() = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
