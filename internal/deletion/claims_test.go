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

func TestOnlyTheProviderConfigThatMadeAnObjectFindsItByName(t *testing.T) {
	const url = "https://coder.example"
	made := origin("A", "ProviderConfig", "ns", "coder", url)
	cases := map[string]struct {
		reason string
		o, now Origin
		want   bool
	}{
		"Creator":         {reason: "the ProviderConfig that made it", o: made, now: made, want: true},
		"Sibling":         {reason: "another ProviderConfig of the same Coder: ids and UID-derived names only", o: made, now: origin("A", "ProviderConfig", "ns", "other", url)},
		"Repointed":       {reason: "the same ProviderConfig, now at another Coder", o: made, now: origin("B", "ProviderConfig", "ns", "coder", url)},
		"Legacy":          {reason: "a record of an earlier release names no ProviderConfig: one of its deployment looks by name", o: Origin{DeploymentID: "A"}, now: made, want: true},
		"LegacyElsewhere": {reason: "nor another deployment's", o: Origin{DeploymentID: "A"}, now: origin("B", "ProviderConfig", "ns", "coder", url)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ByName(tc.o, tc.now); got != tc.want {
				t.Errorf("%s: ByName = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

func TestAProviderKnownByNameOnlyCannotBeVerifiedGoneThroughAnother(t *testing.T) {
	rec := &clusterv1alpha1.CleanupRecord{}
	rec.Status.CoderName = "openai"
	rec.Status.CreateAttemptedAt = &metav1.Time{Time: time.Now()}
	if _, err := providerClaimOf(rec, false); err == nil || !strings.Contains(err.Error(), "only the ProviderConfig that made it") {
		t.Errorf("providerClaimOf by another ProviderConfig: %v, want an error saying only its creator may find it", err)
	}
}

func TestAProviderRecordClaimsByNameOnlyThroughItsCreator(t *testing.T) {
	rec := &clusterv1alpha1.CleanupRecord{}
	rec.Status.CoderName, rec.Status.ExternalID = "team-openai", "id"
	rec.Status.CreateAttemptedAt = &metav1.Time{Time: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	claim := func(byName bool) providerClaim {
		c, err := providerClaimOf(rec, byName)
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
	if got, want := keyClaimOf(rec("gw-ns-name-5f0c7b1e")).NotBefore, written.Add(-clockSkew); !got.Equal(want) {
		t.Errorf("a create's key record claims keys from %s, want %s (its creation less the skew)", got, want)
	}
	pc, err := providerClaimOf(rec("team-openai"), true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pc.NotBefore, written.Add(-clockSkew); !got.Equal(want) {
		t.Errorf("a create's provider record claims providers from %s, want %s", got, want)
	}
	if got := keyClaimOf(rec("")).NotBefore; !got.IsZero() {
		t.Errorf("an import's record claims keys from %s, want no bound: its key existed before it", got)
	}
}

func TestAnObjectFoundByNameIsAdoptedOnlyWhenTheRecordedLostCreateMadeIt(t *testing.T) {
	attempt := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		reason      string
		attempt     time.Time
		found, ours bool
		want        Adoption
	}{
		"NothingFound": {
			reason:  "Nothing of the name is in Coder: the create follows.",
			attempt: attempt,
			want:    AdoptNone,
		},
		"LostCreateProvenByRecord": {
			reason:  "The record holds an attempt whose answer was lost, and Coder made the object within its window.",
			attempt: attempt, found: true, ours: true,
			want: AdoptFound,
		},
		"MadeOutsideTheAttemptsWindow": {
			reason:  "Coder made the object before or long after the recorded attempt: someone else's.",
			attempt: attempt, found: true,
			want: RefuseTaken,
		},
		"NoRecordedAttempt": {
			reason: "Without a recorded attempt nothing of the resource's can be there, whatever its annotations say.",
			found:  true, ours: true,
			want: RefuseTaken,
		},
		"SomeoneElsesWithoutAttempt": {
			reason: "An object of the name, and no attempt: someone else's.",
			found:  true,
			want:   RefuseTaken,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := AdoptByName(tc.attempt, tc.found, tc.ours); got != tc.want {
				t.Errorf("%s\nAdoptByName(%v, %t, %t) = %d, want %d", tc.reason, tc.attempt, tc.found, tc.ours, got, tc.want)
			}
		})
	}
}
