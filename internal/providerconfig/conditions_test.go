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

package providerconfig

import (
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
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

func TestAIGatewayConditionSaysWhatAnOperatorDoes(t *testing.T) {
	cases := map[string]struct {
		reason  string
		feature codersdk.Feature
		status  corev1.ConditionStatus
		want    xpv2.ConditionReason
		message string // a substring
	}{
		"Unlicensed": {
			reason:  "Coder as it ships: no licence grants AI Gateway, and Coder disables it.",
			feature: codersdk.Feature{Entitlement: codersdk.EntitlementNotEntitled},
			status:  corev1.ConditionFalse, want: ReasonAIGatewayNotEntitled, message: "AI Governance add-on",
		},
		"LicensedNotEnabled": {
			reason:  "The licence grants it; CODER_AI_GATEWAY_ENABLED is off.",
			feature: codersdk.Feature{Entitlement: codersdk.EntitlementEntitled},
			status:  corev1.ConditionFalse, want: ReasonAIGatewayNotEnabled, message: "CODER_AI_GATEWAY_ENABLED=true",
		},
		"Enabled": {
			reason:  "Licensed and enabled: keys work.",
			feature: codersdk.Feature{Entitlement: codersdk.EntitlementEntitled, Enabled: true},
			status:  corev1.ConditionTrue, want: ReasonAIGatewayEnabled, message: "can be created",
		},
		"GracePeriod": {
			reason:  "An expired licence in its grace period still serves keys; renew it.",
			feature: codersdk.Feature{Entitlement: codersdk.EntitlementGracePeriod, Enabled: true},
			status:  corev1.ConditionTrue, want: ReasonAIGatewayEnabled, message: "renew",
		},
		"GracePeriodNotEnabled": {
			reason:  "In its grace period but disabled: enable it.",
			feature: codersdk.Feature{Entitlement: codersdk.EntitlementGracePeriod},
			status:  corev1.ConditionFalse, want: ReasonAIGatewayNotEnabled, message: "CODER_AI_GATEWAY_ENABLED",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := AIGatewayCondition(tc.feature)
			if c.Type != TypeAIGateway || c.Status != tc.status || c.Reason != tc.want || !strings.Contains(c.Message, tc.message) {
				t.Errorf("%s\nAIGatewayCondition(%+v) = %s/%s/%s %q; want %s/%s/%s containing %q",
					tc.reason, tc.feature, c.Type, c.Status, c.Reason, c.Message, TypeAIGateway, tc.status, tc.want, tc.message)
			}
		})
	}
}
