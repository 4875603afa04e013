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
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// origin is where a create through a ProviderConfig goes.
func origin(dep, kind, ns, name, url string) Origin {
	return Origin{DeploymentID: dep, ProviderConfig: fixture.RecordedProviderConfig(kind, ns, name, url)}
}

func TestClaimsOfADeletingResourceAreWhatItsRecordsName(t *testing.T) {
	const url = "https://coder.example"
	made := origin("A", "ProviderConfig", "ns", "coder", url)
	sibling := origin("A", "ProviderConfig", "ns", "other", url)
	attempt := metav1.Now()
	rec := func(kind, name, id, coderName string, o Origin, phase string, at *metav1.Time) clusterv1alpha1.CleanupRecord {
		return clusterv1alpha1.CleanupRecord{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       clusterv1alpha1.CleanupRecordSpec{Kind: kind, DeploymentID: o.DeploymentID, ProviderConfig: o.Spec()},
			Status:     clusterv1alpha1.CleanupRecordStatus{Phase: phase, ExternalID: id, CoderName: coderName, CreateAttemptedAt: at},
		}
	}
	active := clusterv1alpha1.CleanupPhaseActive
	cases := map[string]struct {
		reason string
		recs   []clusterv1alpha1.CleanupRecord
		now    Origin
		// keys and providers name the records each claim comes from.
		keys, providers []string
		// byName: the provider claims may find by name (their attempt).
		byName  bool
		wantErr string
	}{
		"KeyAndItsRotation": {
			reason: "every key record names its key, by id and UID-derived name, through any ProviderConfig of its Coder",
			recs:   []clusterv1alpha1.CleanupRecord{rec(KindKey, "k", "id-1", "gw-1", made, active, nil), rec(KindKey, "k-r1", "", "gw-2", made, active, nil)},
			now:    sibling, keys: []string{"k", "k-r1"},
		},
		"UnwrittenRecord": {
			reason: "a record the provider never wrote a status to names nothing",
			recs:   []clusterv1alpha1.CleanupRecord{rec(KindKey, "k", "", "gw-1", made, "", nil)},
			now:    made,
		},
		"ProviderThroughItsCreator": {
			reason: "the ProviderConfig that made a provider may find it by the name its last attempt wrote",
			recs:   []clusterv1alpha1.CleanupRecord{rec(KindProvider, "p", "", "openai", made, active, &attempt)},
			now:    made, providers: []string{"p"}, byName: true,
		},
		"ProviderWithIDThroughAnother": {
			reason: "another ProviderConfig of the same Coder finds a provider by its recorded id only",
			recs:   []clusterv1alpha1.CleanupRecord{rec(KindProvider, "p", "id-p", "openai", made, active, &attempt)},
			now:    sibling, providers: []string{"p"},
		},
		"ProviderByNameOnlyThroughAnother": {
			reason: "a provider known by its name only cannot be verified gone through credentials that did not make it",
			recs:   []clusterv1alpha1.CleanupRecord{rec(KindProvider, "p", "", "openai", made, active, &attempt)},
			now:    sibling, wantErr: "only the ProviderConfig that made it",
		},
		"LegacyProvider": {
			reason: "a record of an earlier release names no ProviderConfig: its resource's own, at the same deployment, looks by name",
			recs:   []clusterv1alpha1.CleanupRecord{rec(KindProvider, "p", "", "openai", Origin{DeploymentID: "A"}, active, &attempt)},
			now:    made, providers: []string{"p"}, byName: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := claimsOf(tc.recs, tc.now)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: error %v, want one saying %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if !slices.Equal(c.KeyOf, tc.keys) || !slices.Equal(c.ProviderOf, tc.providers) {
				t.Errorf("%s: claims from keys %v, providers %v; want %v, %v", tc.reason, c.KeyOf, c.ProviderOf, tc.keys, tc.providers)
			}
			for i, pc := range c.Providers {
				if got := !pc.Attempt.IsZero(); got != tc.byName {
					t.Errorf("%s: provider claim %d looks by name: %t, want %t", tc.reason, i, got, tc.byName)
				}
			}
			for i, kc := range c.Keys {
				r := tc.recs[i]
				if !kc.Name(r.Status.CoderName) || (r.Status.ExternalID != "" && !slices.Contains(kc.IDs, r.Status.ExternalID)) {
					t.Errorf("%s: key claim %d does not name %q / %q", tc.reason, i, r.Status.CoderName, r.Status.ExternalID)
				}
			}
		})
	}
}

func TestAProviderRecordClaimsByNameOnlyThroughItsCreator(t *testing.T) {
	rec := &clusterv1alpha1.CleanupRecord{}
	rec.Status.CoderName, rec.Status.ExternalID = "team-openai", "id"
	rec.Status.CreateAttemptedAt = &metav1.Time{Time: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	claim := func(byName bool) ProviderClaim {
		c, err := ProviderClaimOf(rec, byName)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := claim(true); c.Attempt.IsZero() || c.ID != "id" {
		t.Errorf("through its creator a provider record claims %+v, want its id and its create attempt", c)
	}
	if c := claim(false); !c.Attempt.IsZero() || c.ID != "id" {
		t.Errorf("through another ProviderConfig a provider record claims %+v, want its id only: a name found there may be anyone's", c)
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
	if got, want := KeyClaimOf(rec("gw-ns-name-5f0c7b1e")).NotBefore, written.Add(-ClockSkew); !got.Equal(want) {
		t.Errorf("a create's key record claims keys from %s, want %s (its creation less the skew)", got, want)
	}
	pc, err := ProviderClaimOf(rec("team-openai"), true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pc.NotBefore, written.Add(-ClockSkew); !got.Equal(want) {
		t.Errorf("a create's provider record claims providers from %s, want %s", got, want)
	}
	if got := KeyClaimOf(rec("")).NotBefore; !got.IsZero() {
		t.Errorf("an import's record claims keys from %s, want no bound: its key existed before it", got)
	}
}
