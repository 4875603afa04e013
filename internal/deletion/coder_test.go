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

package deletion

import (
	"testing"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// The Coders of these tests: the platform's, and a tenant's own server
// that claims the platform's deployment id.
const (
	platformURL  = "https://coder.platform.example"
	tenantURL    = "https://coder.tenant.example"
	platformDepl = "deployment-platform"
)

func originAt(url, deployment, ns string) Origin {
	kind := "ClusterProviderConfig"
	if ns != "" {
		kind = "ProviderConfig"
	}
	return Origin{DeploymentID: deployment, ProviderConfig: clusterv1alpha1.RecordedProviderConfig{
		Group: "coder.m.crossplane.io", Kind: kind, Namespace: ns, Name: "coder", URL: url,
	}}
}

func TestARecordSpeaksOnlyOfTheCoderItWasMadeThrough(t *testing.T) {
	platform := originAt(platformURL, platformDepl, "")
	cases := map[string]struct {
		reason string
		made   Origin
		now    Origin
		want   bool
	}{
		"SameCoder": {
			reason: "a record made through the platform's Coder speaks of it",
			made:   platform, now: platform, want: true,
		},
		"AnotherProviderConfigOfTheSameCoder": {
			reason: "the Coder is its URL and deployment, whichever ProviderConfig reached it",
			made:   originAt(platformURL, platformDepl, "team-a"), now: platform, want: true,
		},
		"TenantServerClaimingThePlatformsDeployment": {
			reason: "a tenant's server may report any deployment id: its records speak only of its own URL",
			made:   originAt(tenantURL, platformDepl, "team-b"), now: platform,
		},
		"SameURLAnotherDeployment": {
			reason: "a URL that now reaches another deployment (restored, replaced) is another Coder",
			made:   originAt(platformURL, "deployment-old", ""), now: platform,
		},
		"LegacyRecordOfTheDeployment": {
			reason: "a record written before records named a ProviderConfig speaks by deployment",
			made:   Origin{DeploymentID: platformDepl}, now: platform, want: true,
		},
		"LegacyRecordOfAnotherDeployment": {
			reason: "a legacy record of another deployment does not speak",
			made:   Origin{DeploymentID: "deployment-other"}, now: platform,
		},
		"UnknownDeploymentSameURL": {
			reason: "before the Coder acted on reported its deployment, the URL decides: counting one record too many refuses, missing one adopts",
			made:   platform, now: originAt(platformURL, "", ""), want: true,
		},
		"UnknownDeploymentOtherURL": {
			reason: "an unknown deployment does not make another URL speak",
			made:   originAt(tenantURL, platformDepl, "team-b"), now: originAt(platformURL, "", ""),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Speaks(tc.made, tc.now); got != tc.want {
				t.Errorf("%s: Speaks(%s, %s) = %t, want %t", tc.reason, tc.made, tc.now, got, tc.want)
			}
		})
	}
}
