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
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func key(name string, deleting bool) Dependent {
	return Dependent{Kind: "AIGatewayKey", Namespace: "team-a", Name: name, Deleting: deleting}
}

func prov(name string, deleting bool) Dependent {
	return Dependent{Kind: "AIProvider", Namespace: "team-a", Name: name, Deleting: deleting}
}

func TestHoldPhasesFollowDependentsAndBounds(t *testing.T) {
	b := DefaultBounds()
	cases := map[string]struct {
		reason string
		in     Input
		want   Decision
	}{
		"NoDependentsReleases": {
			reason: "nothing uses the ProviderConfig: it goes at once",
			in:     Input{Now: t0, DeletedAt: t0, Bounds: b},
			want:   Decision{Phase: PhaseReleased, Why: WhyNoDependents},
		},
		"DeletingDependentsHold": {
			reason: "a deleting dependent holds until dependentTimeout, re-checked every 10s",
			in:     Input{Now: t0.Add(time.Minute), DeletedAt: t0, Dependents: []Dependent{key("k", true), prov("p", false)}, Bounds: b},
			want: Decision{Phase: PhaseHolding, Why: WhyDeletingDependents, Until: t0.Add(10 * time.Minute),
				RequeueAfter: Recheck, Waiting: []Dependent{key("k", true)}},
		},
		"LiveDependentsHoldBriefly": {
			reason: "live dependents alone hold for liveDependentTimeout (one kubectl delete -f in any order)",
			in:     Input{Now: t0.Add(25 * time.Second), DeletedAt: t0, Dependents: []Dependent{key("k", false)}, Bounds: b},
			want: Decision{Phase: PhaseHolding, Why: WhyLiveDependents, Until: t0.Add(30 * time.Second),
				RequeueAfter: 5 * time.Second, Waiting: []Dependent{key("k", false)}},
		},
		"LiveDependentsReleaseAfterTheirTimeout": {
			reason: "after liveDependentTimeout live dependents no longer hold",
			in:     Input{Now: t0.Add(30 * time.Second), DeletedAt: t0, Dependents: []Dependent{key("k", false)}, Bounds: b},
			want:   Decision{Phase: PhaseReleased, Why: WhyLiveDependentTimeout},
		},
		"GraceAfterDependentTimeout": {
			reason: "after dependentTimeout: 30s + 10s x 2 keys (the larger kind) of grace",
			in: Input{Now: t0.Add(10*time.Minute + time.Second), DeletedAt: t0, Bounds: b,
				Dependents: []Dependent{key("a", true), key("b", true), prov("p", true)}},
			want: Decision{Phase: PhaseGrace, Why: WhyGrace, Until: t0.Add(10*time.Minute + 50*time.Second),
				RequeueAfter: Recheck, Waiting: []Dependent{key("a", true), key("b", true), prov("p", true)}},
		},
		"GraceDoesNotShrinkOnceEntered": {
			reason: "the recorded end of grace stands even when fewer dependents remain",
			in: Input{Now: t0.Add(10*time.Minute + 45*time.Second), DeletedAt: t0, Bounds: b,
				GraceUntil: t0.Add(10*time.Minute + 50*time.Second), Dependents: []Dependent{key("a", true)}},
			want: Decision{Phase: PhaseGrace, Why: WhyGrace, Until: t0.Add(10*time.Minute + 50*time.Second),
				RequeueAfter: 5 * time.Second, Waiting: []Dependent{key("a", true)}},
		},
		"RecordedGraceEndBoundedByMax": {
			reason: "a grace end recorded under a larger grace.max never outlasts today's bound (found by FuzzDecideIsBounded)",
			in: Input{Now: t0.Add(10*time.Minute + time.Second), DeletedAt: t0, Bounds: b,
				GraceUntil: t0.Add(100 * time.Minute), Dependents: []Dependent{key("a", true)}},
			want: Decision{Phase: PhaseGrace, Why: WhyGrace, Until: t0.Add(15 * time.Minute),
				RequeueAfter: Recheck, Waiting: []Dependent{key("a", true)}},
		},
		"ReleasedAfterGrace": {
			reason: "every wait is bounded: after the grace period it is released",
			in: Input{Now: t0.Add(10*time.Minute + 40*time.Second), DeletedAt: t0, Bounds: b,
				Dependents: []Dependent{key("a", true)}},
			want: Decision{Phase: PhaseReleased, Why: WhyDependentTimeout},
		},
		"NamespaceDeletionHoldsWhileCoderAnswers": {
			reason: "during a namespace deletion the hold lasts while Coder answers",
			in: Input{Now: t0.Add(time.Minute), DeletedAt: t0, NamespaceDeleting: true, Bounds: b,
				Dependents: []Dependent{key("a", true)}},
			want: Decision{Phase: PhaseHolding, Why: WhyDeletingDependents, Until: t0.Add(10 * time.Minute),
				RequeueAfter: Recheck, Waiting: []Dependent{key("a", true)}},
		},
		"NamespaceDeletionReleasesWhenCoderIsGone": {
			reason: "Coder silent for unreachableTimeout during a namespace deletion: release early",
			in: Input{Now: t0.Add(time.Minute), DeletedAt: t0, NamespaceDeleting: true, Bounds: b,
				UnreachableSince: t0.Add(30 * time.Second), Dependents: []Dependent{key("a", true)}},
			want: Decision{Phase: PhaseReleased, Why: WhyCoderUnreachable},
		},
		"NamespaceDeletionRechecksWhenSilenceWouldRelease": {
			reason: "Coder silent for 1s of 30s: decide again when the 30s are up, not later",
			in: Input{Now: t0.Add(time.Minute), DeletedAt: t0, NamespaceDeleting: true, Bounds: b,
				UnreachableSince: t0.Add(time.Minute - 27*time.Second), Dependents: []Dependent{key("a", true)}},
			want: Decision{Phase: PhaseHolding, Why: WhyDeletingDependents, Until: t0.Add(10 * time.Minute),
				RequeueAfter: 3 * time.Second, Waiting: []Dependent{key("a", true)}},
		},
		"NamespaceDeletionCountsItsLiveDependentsAsDeleting": {
			reason: "the namespace controller deletes the dependents in a deleting namespace too, minutes after the ProviderConfig when they are thousands: they hold as deleting ones, not for liveDependentTimeout",
			in: Input{Now: t0.Add(time.Minute), DeletedAt: t0, NamespaceDeleting: true, DeletingNamespaces: map[string]bool{"team-a": true}, Bounds: b,
				Dependents: []Dependent{key("a", false)}},
			want: Decision{Phase: PhaseHolding, Why: WhyDeletingDependents, Until: t0.Add(10 * time.Minute),
				RequeueAfter: Recheck, Waiting: []Dependent{key("a", true)}},
		},
		"NamespaceDeletionElsewhereLeavesLiveDependentsLive": {
			reason: "live dependents in a namespace that is not being deleted (a token Secret's namespace is) still hold only for liveDependentTimeout",
			in: Input{Now: t0.Add(time.Minute), DeletedAt: t0, NamespaceDeleting: true, DeletingNamespaces: map[string]bool{"platform": true}, Bounds: b,
				Dependents: []Dependent{key("a", false)}},
			want: Decision{Phase: PhaseReleased, Why: WhyLiveDependentTimeout},
		},
		"UnreachableOutsideNamespaceDeletionStillHolds": {
			reason: "outside a namespace deletion Coder may come back: hold to the bound",
			in: Input{Now: t0.Add(5 * time.Minute), DeletedAt: t0, Bounds: b,
				UnreachableSince: t0, Dependents: []Dependent{key("a", true)}},
			want: Decision{Phase: PhaseHolding, Why: WhyDeletingDependents, Until: t0.Add(10 * time.Minute),
				RequeueAfter: Recheck, Waiting: []Dependent{key("a", true)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDecide(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestGraceIsBoundedByMax(t *testing.T) {
	b := DefaultBounds()
	var many []Dependent
	for i := range 100 {
		many = append(many, key(fmt.Sprint(i), true))
	}
	if got := b.Grace(many); got != 5*time.Minute {
		t.Errorf("Grace(100 keys) = %s, want the 5m cap", got)
	}
	if got := b.Grace([]Dependent{key("a", true), prov("p", true), prov("q", true), prov("r", true)}); got != time.Minute {
		t.Errorf("Grace(1 key, 3 providers) = %s, want 30s + 3 x 10s", got)
	}
}

func TestBoundsFromSpecOverridesDefaults(t *testing.T) {
	d := func(s string) *metav1.Duration {
		v, _ := time.ParseDuration(s)
		return &metav1.Duration{Duration: v}
	}
	got := BoundsFrom(common.DeletionSpec{DependentTimeout: d("20s"), Grace: &common.GraceSpec{Max: d("1m")}})
	want := DefaultBounds()
	want.DependentTimeout = 20 * time.Second
	want.GraceMax = time.Minute
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BoundsFrom(...): -want, +got:\n%s", diff)
	}
}

func TestListCapsTheDependents(t *testing.T) {
	var ds []Dependent
	for i := range 12 {
		ds = append(ds, key(fmt.Sprintf("k%02d", i), true))
	}
	got := List(ds)
	if len(got) != 11 || got[10] != "and 2 more" || got[0] != "AIGatewayKey/team-a/k00" {
		t.Errorf("List(12 dependents) = %v, want 10 names and \"and 2 more\"", got)
	}
}

func TestDependentsTakeABoundedPassOnceTheHoldEndsOrTheirNamespaceDeletionTimesOut(t *testing.T) {
	cases := map[string]struct {
		pc   ConfigState
		want Mode
	}{
		"Live":          {pc: ConfigState{}, want: ModeNormal},
		"Holding":       {pc: ConfigState{Deleting: true, Phase: PhaseHolding}, want: ModeNormal},
		"DeletingNoYet": {pc: ConfigState{Deleting: true}, want: ModeNormal},
		"Grace":         {pc: ConfigState{Deleting: true, Phase: PhaseGrace}, want: ModeBoundedPass},
		"Released":      {pc: ConfigState{Deleting: true, Phase: PhaseReleased}, want: ModeBoundedPass},
		"Gone":          {pc: ConfigState{Gone: true}, want: ModeBoundedPass},
		"NamespaceDeletingWithinTimeout": {
			pc:   ConfigState{NamespaceDeletedAt: t0, DependentTimeout: time.Minute, Now: t0.Add(59 * time.Second)},
			want: ModeNormal,
		},
		"NamespaceDeletingPastTimeout": {
			pc:   ConfigState{NamespaceDeletedAt: t0, DependentTimeout: time.Minute, Now: t0.Add(time.Minute)},
			want: ModeBoundedPass,
		},
		"NamespaceDeletingPastTimeoutWhileConfigHolds": {
			pc:   ConfigState{Deleting: true, Phase: PhaseHolding, NamespaceDeletedAt: t0, DependentTimeout: time.Minute, Now: t0.Add(2 * time.Minute)},
			want: ModeBoundedPass,
		},
		"NamespaceLive": {pc: ConfigState{DependentTimeout: time.Minute, Now: t0}, want: ModeNormal},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := DependentMode(tc.pc); got != tc.want {
				t.Errorf("DependentMode(%+v) = %s, want %s", tc.pc, got, tc.want)
			}
		})
	}
}
