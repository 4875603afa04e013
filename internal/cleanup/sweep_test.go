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

package cleanup

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

func TestSweeperForPicksOnlyAnEntitledProviderConfig(t *testing.T) {
	tenantA := SweepConfig{DeploymentID: "dep", Namespace: "tenant-a"}
	tenantB := SweepConfig{DeploymentID: "dep", Namespace: "tenant-b"}
	cluster := SweepConfig{DeploymentID: "dep"}
	otherDep := SweepConfig{DeploymentID: "other"}
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
			configs: []SweepConfig{{DeploymentID: "dep", Unusable: true}, tenantA}, id: "dep", ns: "tenant-a", want: 1, wantOK: true,
		},
		"OnlyUnusable": {
			reason:  "No usable ProviderConfig: the record waits.",
			configs: []SweepConfig{{DeploymentID: "dep", Unusable: true}}, id: "dep", ns: "tenant-a",
		},
		"OtherDeployment": {
			reason:  "A ProviderConfig of another deployment never sweeps.",
			configs: []SweepConfig{otherDep}, id: "dep", ns: "tenant-a",
		},
		"RecordWithoutDeployment": {
			reason:  "A record that names no deployment is swept by nobody.",
			configs: []SweepConfig{{Namespace: "tenant-a"}, {}}, id: "", ns: "tenant-a",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := SweeperFor(tc.configs, tc.id, tc.ns)
			if ok != tc.wantOK || (ok && got != tc.want) {
				t.Errorf("%s\nSweeperFor(...) = %d, %v; want %d, %v", tc.reason, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestARecordClaimsNothingCoderMadeBeforeIt(t *testing.T) {
	written := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rec := func(coderName string) *clusterv1alpha1.CleanupRecord {
		r := &clusterv1alpha1.CleanupRecord{}
		r.CreationTimestamp = metav1.NewTime(written)
		r.Status.CoderName, r.Status.ExternalID = coderName, "id"
		return r
	}
	if got, want := keyClaim(rec("gw-ns-name-5f0c7b1e")).NotBefore, written.Add(-RecordClockSkew); !got.Equal(want) {
		t.Errorf("a create's key record claims keys from %s, want %s (its creation less the skew)", got, want)
	}
	if got, want := providerClaim(rec("team-openai")).NotBefore, written.Add(-RecordClockSkew); !got.Equal(want) {
		t.Errorf("a create's provider record claims providers from %s, want %s", got, want)
	}
	if got := keyClaim(rec("")).NotBefore; !got.IsZero() {
		t.Errorf("an import's record claims keys from %s, want no bound: its key existed before it", got)
	}
}
