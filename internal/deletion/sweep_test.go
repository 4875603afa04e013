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
	"time"

	"github.com/google/go-cmp/cmp"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

func TestNextSweepRetriesUndoneWorkWithBackoff(t *testing.T) {
	type want struct {
		wait    time.Duration
		retries int
	}
	cases := map[string]struct {
		reason   string
		interval time.Duration
		retries  int
		undone   bool
		jitter   float64
		want     want
	}{
		"DoneWaitsTheInterval": {
			reason:   "A sweep that left nothing undone waits the whole interval.",
			interval: time.Hour,
			want:     want{wait: time.Hour},
		},
		"DoneShiftsByJitter": {
			reason:   "The interval is shifted by the jitter fraction.",
			interval: time.Hour,
			jitter:   0.1,
			want:     want{wait: 66 * time.Minute},
		},
		"DoneResetsTheBackoff": {
			reason:   "A complete sweep after failures starts the backoff over.",
			interval: time.Hour,
			retries:  5,
			jitter:   -0.1,
			want:     want{wait: 54 * time.Minute},
		},
		"FirstUndoneRetriesInSeconds": {
			reason:   "The first undone sweep is retried after 2s, not after the interval.",
			interval: time.Hour,
			undone:   true,
			jitter:   0.1,
			want:     want{wait: 2 * time.Second, retries: 1},
		},
		"UndoneDoubles": {
			reason:   "Each undone sweep in a row doubles the wait.",
			interval: time.Hour,
			retries:  3,
			undone:   true,
			want:     want{wait: 16 * time.Second, retries: 4},
		},
		"UndoneCappedAtFiveMinutes": {
			reason:   "The backoff never exceeds 5m.",
			interval: time.Hour,
			retries:  8,
			undone:   true,
			want:     want{wait: 5 * time.Minute, retries: 9},
		},
		"UndoneNeverOverflows": {
			reason:   "However many failures in a row, the wait stays at the cap.",
			interval: time.Hour,
			retries:  1000,
			undone:   true,
			want:     want{wait: 5 * time.Minute, retries: 1001},
		},
		"UndoneNeverLaterThanTheInterval": {
			reason:   "A retry never waits longer than a complete sweep would.",
			interval: 3 * time.Second,
			retries:  1,
			undone:   true,
			want:     want{wait: 3 * time.Second, retries: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wait, retries := NextSweep(tc.interval, tc.retries, tc.undone, tc.jitter)
			if diff := cmp.Diff(tc.want, want{wait: wait, retries: retries}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nNextSweep(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// legacyConfig is a Ready ProviderConfig as SweeperFor sees it, for the
// records that name no ProviderConfig.
func legacyConfig(dep, ns string) SweepConfig {
	return SweepConfig{Origin: Origin{DeploymentID: dep, ProviderConfig: clusterv1alpha1.RecordedProviderConfig{Namespace: ns, Name: "pc", Kind: "ProviderConfig", URL: "https://x"}}}
}

func TestSweeperForPicksOnlyAnEntitledProviderConfigForARecordWithoutOne(t *testing.T) {
	tenantA := legacyConfig("dep", "tenant-a")
	tenantB := legacyConfig("dep", "tenant-b")
	cluster := legacyConfig("dep", "")
	otherDep := legacyConfig("other", "tenant-a")
	unusable := legacyConfig("dep", "")
	unusable.Unusable = true
	cases := map[string]struct {
		reason  string
		configs []SweepConfig
		id, ns  string
		want    int
		wantOK  bool
	}{
		"AnotherTenantsConfig": {
			reason:  "A tenant's ProviderConfig reporting the same deployment never sweeps another tenant's record.",
			configs: []SweepConfig{tenantB}, id: "dep", ns: "tenant-a",
		},
		"OwnNamespace": {
			reason:  "The record's own namespace's ProviderConfig may sweep it.",
			configs: []SweepConfig{tenantB, tenantA}, id: "dep", ns: "tenant-a", want: 1, wantOK: true,
		},
		"ClusterScopedFirst": {
			reason:  "A cluster-scoped ProviderConfig, the platform team's, is preferred.",
			configs: []SweepConfig{tenantA, cluster}, id: "dep", ns: "tenant-a", want: 1, wantOK: true,
		},
		"ClusterScopedResource": {
			reason:  "A cluster-scoped resource's record is swept only through a cluster-scoped ProviderConfig.",
			configs: []SweepConfig{tenantA}, id: "dep", ns: "",
		},
		"ClusterScopedResourceClusterConfig": {
			reason:  "A cluster-scoped ProviderConfig sweeps a cluster-scoped resource's record.",
			configs: []SweepConfig{tenantA, cluster}, id: "dep", ns: "", want: 1, wantOK: true,
		},
		"UnusableClusterConfig": {
			reason:  "A cluster-scoped ProviderConfig whose client could not be built is passed over for the own namespace's.",
			configs: []SweepConfig{unusable, tenantA}, id: "dep", ns: "tenant-a", want: 1, wantOK: true,
		},
		"OnlyUnusable": {
			reason:  "No usable ProviderConfig: the record waits.",
			configs: []SweepConfig{unusable}, id: "dep", ns: "tenant-a",
		},
		"OtherDeployment": {
			reason:  "A ProviderConfig of another deployment never sweeps.",
			configs: []SweepConfig{otherDep}, id: "dep", ns: "tenant-a",
		},
		"RecordWithoutDeployment": {
			reason:  "A record that names no deployment is swept by nobody.",
			configs: []SweepConfig{legacyConfig("", "tenant-a"), legacyConfig("", "")}, id: "", ns: "tenant-a",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := SweeperFor(tc.configs, Origin{DeploymentID: tc.id}, tc.ns)
			if ok != tc.wantOK || (ok && (got != tc.want || !ByName(Origin{DeploymentID: tc.id}, tc.configs[got].Origin))) {
				t.Errorf("%s\nSweeperFor(...) = %+v, %v; want index %d by name, %v", tc.reason, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// pick is the ProviderConfig SweeperFor picks, and whether it may find
// by name there (ByName).
type pick struct {
	Index  int
	ByName bool
}

func TestSweeperForTrustsOnlyTheProviderConfigThatMadeARecordOrThePlatformsAtItsURL(t *testing.T) {
	const platform, tenant = "https://coder.platform.example", "https://coder.tenant.example"
	made := origin("prod", "ProviderConfig", "tenant-a", "coder", tenant)
	config := func(o Origin) SweepConfig { return SweepConfig{Origin: o} }
	creator := config(made)
	cases := map[string]struct {
		reason  string
		rec     Origin
		configs []SweepConfig
		want    pick
		wantOK  bool
	}{
		"Creator": {
			reason:  "The ProviderConfig that made the object sweeps it, by name too.",
			rec:     made,
			configs: []SweepConfig{config(origin("prod", "ClusterProviderConfig", "", "platform", tenant)), creator},
			want:    pick{Index: 1, ByName: true}, wantOK: true,
		},
		"CreatorRepointed": {
			reason:  "The creator now at another URL reaches another Coder, whatever deployment id it reports.",
			rec:     made,
			configs: []SweepConfig{config(origin("prod", "ProviderConfig", "tenant-a", "coder", platform))},
		},
		"CreatorOtherDeployment": {
			reason:  "The creator at the same URL reporting another deployment (Coder reinstalled) sweeps nothing.",
			rec:     made,
			configs: []SweepConfig{config(origin("staging", "ProviderConfig", "tenant-a", "coder", tenant))},
		},
		"PlatformAtTheRecordsURL": {
			reason:  "A cluster-scoped ProviderConfig of the same URL and deployment sweeps by recorded id and UID-derived name only.",
			rec:     made,
			configs: []SweepConfig{config(origin("prod", "ClusterProviderConfig", "", "platform", tenant))},
			want:    pick{Index: 0, ByName: false}, wantOK: true,
		},
		"PlatformElsewhereSameDeploymentID": {
			reason:  "A tenant's server claiming the platform's deployment id never gets the platform's ProviderConfig to sweep its records.",
			rec:     made,
			configs: []SweepConfig{config(origin("prod", "ClusterProviderConfig", "", "platform", platform))},
		},
		"TenantAtThePlatformsURL": {
			reason:  "Another ProviderConfig in the namespace, at the same URL, is not the creator and not the platform's.",
			rec:     origin("prod", "ClusterProviderConfig", "", "platform", platform),
			configs: []SweepConfig{config(origin("prod", "ProviderConfig", "tenant-a", "other", platform))},
		},
		"SameNameOtherNamespace": {
			reason:  "A ProviderConfig of the same name in another namespace is not the creator.",
			rec:     made,
			configs: []SweepConfig{config(origin("prod", "ProviderConfig", "tenant-b", "coder", tenant))},
		},
		"UnusableCreatorThenPlatform": {
			reason:  "A creator whose client cannot be built is passed over for the platform's at the same URL.",
			rec:     made,
			configs: []SweepConfig{{Origin: made, Unusable: true}, config(origin("prod", "ClusterProviderConfig", "", "platform", tenant))},
			want:    pick{Index: 1}, wantOK: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := SweeperFor(tc.configs, tc.rec, "tenant-a")
			if ok != tc.wantOK || (ok && (pick{got, ByName(tc.rec, tc.configs[got].Origin)} != tc.want)) {
				t.Errorf("%s\nSweeperFor(...) = %+v, %v; want %+v, %v", tc.reason, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
