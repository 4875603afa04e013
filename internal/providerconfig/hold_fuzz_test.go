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
)

// holdInput builds an Input from the fuzzer's plain values: times are
// seconds from t0 (a zero offset for UnreachableSince and GraceUntil means
// unset, as in status), bounds are seconds, and each byte of deps is one
// dependent (bit 0: deleting; bit 1: kind; the rest: its name).
func holdInput(now, deletedAt, unreachable, graceUntil int32, nsDeleting bool, dep, live, unr, base, per, gmax uint32, deps []byte) Input {
	at := func(s int32) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	// Bounds are metav1.Durations the CRD keeps non-negative; a year is
	// far beyond any sane one and keeps time arithmetic exact.
	d := func(s uint32) time.Duration { return time.Duration(s%(366*24*3600)) * time.Second }
	in := Input{
		Now: at(now), DeletedAt: at(deletedAt), NamespaceDeleting: nsDeleting,
		Bounds: Bounds{DependentTimeout: d(dep), LiveDependentTimeout: d(live), UnreachableTimeout: d(unr),
			GraceBase: d(base), GracePerDependent: d(per), GraceMax: d(gmax)},
	}
	if unreachable != 0 {
		in.UnreachableSince = at(unreachable)
	}
	if graceUntil != 0 {
		in.GraceUntil = at(graceUntil)
	}
	for i, b := range deps {
		kind := "AIGatewayKey"
		if b&2 != 0 {
			kind = "AIProvider"
		}
		in.Dependents = append(in.Dependents, Dependent{Kind: kind, Namespace: "team-a", Name: fmt.Sprintf("d%d-%d", b>>2, i), Deleting: b&1 != 0})
	}
	return in
}

// FuzzDecideIsBounded checks the hold's contract for any input: a decision
// that holds has an end no later than dependentTimeout + grace max after the
// deletion timestamp (live dependents alone: liveDependentTimeout), decides
// again before that end, and lists only the dependents it waits for; and a
// deleting dependent is never abandoned before dependentTimeout unless the
// namespace is going and Coder has been silent for unreachableTimeout.
func FuzzDecideIsBounded(f *testing.F) {
	const m = 60
	// The table cases of TestHoldPhasesFollowDependentsAndBounds, in seconds
	// from t0 with DefaultBounds.
	for _, s := range []struct {
		now, del, unr, grace int32
		ns                   bool
		deps                 []byte
	}{
		{now: 0, del: 0},                                    // NoDependentsReleases
		{now: m, del: 0, deps: []byte{1, 2}},                // DeletingDependentsHold
		{now: 25, del: 0, deps: []byte{0}},                  // LiveDependentsHoldBriefly
		{now: 30, del: 0, deps: []byte{0}},                  // LiveDependentsReleaseAfterTheirTimeout
		{now: 10*m + 1, del: 0, deps: []byte{1, 5, 3}},      // GraceAfterDependentTimeout
		{now: 10*m + 45, grace: 10*m + 50, deps: []byte{1}}, // GraceDoesNotShrinkOnceEntered
		{now: 10*m + 40, deps: []byte{1}},                   // ReleasedAfterGrace
		{now: m, ns: true, deps: []byte{1}},                 // NamespaceDeletionHoldsWhileCoderAnswers
		{now: m, ns: true, unr: 30, deps: []byte{1}},        // NamespaceDeletionReleasesWhenCoderIsGone
		{now: m, ns: true, unr: m - 27, deps: []byte{1}},    // NamespaceDeletionRechecksWhenSilenceWouldRelease
		{now: 5 * m, unr: -1, deps: []byte{1}},              // UnreachableOutsideNamespaceDeletionStillHolds
		{now: 10*m + 1, grace: 100 * m, deps: []byte{1}},    // a recorded grace end beyond today's max
		{now: -m, del: 0, deps: []byte{1, 0}},               // a clock behind the deletion timestamp
	} {
		b := DefaultBounds()
		sec := func(d time.Duration) uint32 { return uint32(d / time.Second) }
		f.Add(s.now, s.del, s.unr, s.grace, s.ns, sec(b.DependentTimeout), sec(b.LiveDependentTimeout), sec(b.UnreachableTimeout),
			sec(b.GraceBase), sec(b.GracePerDependent), sec(b.GraceMax), s.deps)
	}
	f.Fuzz(func(t *testing.T, now, deletedAt, unreachable, graceUntil int32, nsDeleting bool, dep, live, unr, base, per, gmax uint32, deps []byte) {
		in := holdInput(now, deletedAt, unreachable, graceUntil, nsDeleting, dep, live, unr, base, per, gmax, deps)
		got := Decide(in)
		checkDecision(t, in, got)
	})
}

func checkDecision(t *testing.T, in Input, got Decision) {
	t.Helper()
	var deleting []Dependent
	for _, d := range in.Dependents {
		if d.Deleting {
			deleting = append(deleting, d)
		}
	}
	b := in.Bounds
	silent := in.NamespaceDeleting && !in.UnreachableSince.IsZero() && !in.Now.Before(in.UnreachableSince.Add(b.UnreachableTimeout))
	switch got.Phase {
	case PhaseReleased:
		if !got.Until.IsZero() || got.RequeueAfter != 0 || len(got.Waiting) != 0 {
			t.Fatalf("released with a wait: %+v", got)
		}
		if len(deleting) > 0 && in.Now.Before(in.DeletedAt.Add(b.DependentTimeout)) && !silent {
			t.Fatalf("released (%s) while %d dependents delete, before dependentTimeout, Coder not silent in a deleting namespace: %+v", got.Why, len(deleting), in)
		}
	case PhaseHolding, PhaseGrace:
		limit := in.DeletedAt.Add(b.DependentTimeout + b.GraceMax)
		if len(deleting) == 0 {
			limit = in.DeletedAt.Add(b.LiveDependentTimeout)
		}
		if got.Until.After(limit) {
			t.Fatalf("%s until %s, after the documented maximum %s: %+v", got.Phase, got.Until, limit, in)
		}
		if !got.Until.After(in.Now) {
			t.Fatalf("%s until %s, not after now %s", got.Phase, got.Until, in.Now)
		}
		if got.RequeueAfter <= 0 || got.RequeueAfter > Recheck {
			t.Fatalf("%s requeues after %s, want in (0, %s]", got.Phase, got.RequeueAfter, Recheck)
		}
		if in.Now.Add(got.RequeueAfter).After(got.Until) && got.RequeueAfter > time.Second {
			t.Fatalf("%s requeues after %s, past its end %s", got.Phase, got.RequeueAfter, got.Until)
		}
		if len(got.Waiting) == 0 || (len(deleting) > 0 && len(got.Waiting) != len(deleting)) {
			t.Fatalf("%s waits for %d dependents, %d delete: %+v", got.Phase, len(got.Waiting), len(deleting), got)
		}
		if silent {
			t.Fatalf("holds although Coder is silent in a deleting namespace: %+v", got)
		}
	default:
		t.Fatalf("unknown phase %q", got.Phase)
	}
	if len(in.Dependents) == 0 && got.Phase != PhaseReleased {
		t.Fatalf("no dependents but %s", got.Phase)
	}
}
