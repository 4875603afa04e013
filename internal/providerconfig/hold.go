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

// Package hold decides, as pure functions over plain data, how long a
// ProviderConfig being deleted waits for the managed resources that use it
// (its dependents), and how a dependent deletes when that wait is over. It
// owns the bounds; it must not read or write anything.
//
// The contract (DESIGN section 4): deleting dependents hold a ProviderConfig
// until dependentTimeout after its deletion timestamp; then a grace period of
// base + perDependent x (remaining dependents of the larger kind), at most
// max, lets each of them make one bounded delete pass while the credentials
// still work; then it is released. Live dependents alone hold it only for
// liveDependentTimeout. During a namespace deletion it is also released when
// Coder has not answered for unreachableTimeout. Every wait is bounded.
package providerconfig

import (
	"fmt"
	"sort"
	"time"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// Recheck is how often a holding ProviderConfig looks at its dependents
// again; the removal of a dependent re-checks it at once.
const Recheck = 10 * time.Second

// Bounds are the hold's limits, from a ProviderConfig's spec.deletion.
type Bounds struct {
	DependentTimeout     time.Duration
	LiveDependentTimeout time.Duration
	UnreachableTimeout   time.Duration
	GraceBase            time.Duration
	GracePerDependent    time.Duration
	GraceMax             time.Duration
}

// DefaultBounds are the seed's bounds: 10m, 30s, 30s, and a grace of
// 30s + 10s per dependent, at most 5m.
func DefaultBounds() Bounds {
	return Bounds{
		DependentTimeout:     10 * time.Minute,
		LiveDependentTimeout: 30 * time.Second,
		UnreachableTimeout:   30 * time.Second,
		GraceBase:            30 * time.Second,
		GracePerDependent:    10 * time.Second,
		GraceMax:             5 * time.Minute,
	}
}

// BoundsFrom applies a spec.deletion over the defaults.
func BoundsFrom(s common.DeletionSpec) Bounds {
	b := DefaultBounds()
	if s.DependentTimeout != nil {
		b.DependentTimeout = s.DependentTimeout.Duration
	}
	if s.LiveDependentTimeout != nil {
		b.LiveDependentTimeout = s.LiveDependentTimeout.Duration
	}
	if s.UnreachableTimeout != nil {
		b.UnreachableTimeout = s.UnreachableTimeout.Duration
	}
	if g := s.Grace; g != nil {
		if g.Base != nil {
			b.GraceBase = g.Base.Duration
		}
		if g.PerDependent != nil {
			b.GracePerDependent = g.PerDependent.Duration
		}
		if g.Max != nil {
			b.GraceMax = g.Max.Duration
		}
	}
	return b
}

// Grace is the grace period for the remaining deleting dependents: base plus
// perDependent for each dependent of the kind with the most, at most max.
// One bounded pass per dependent runs in turn per kind, so the larger kind
// sets the pace.
func (b Bounds) Grace(deleting []Dependent) time.Duration {
	perKind := map[string]int{}
	larger := 0
	for _, d := range deleting {
		perKind[d.Kind]++
		larger = max(larger, perKind[d.Kind])
	}
	return min(b.GraceMax, b.GraceBase+time.Duration(larger)*b.GracePerDependent)
}

// A Dependent is a managed resource that uses the ProviderConfig.
type Dependent struct {
	Kind      string
	Namespace string
	Name      string
	// Deleting: it has a deletion timestamp and still our finalizer.
	Deleting bool
}

// String is the dependent as the hold's log line and condition list it.
func (d Dependent) String() string {
	if d.Namespace == "" {
		return d.Kind + "/" + d.Name
	}
	return d.Kind + "/" + d.Namespace + "/" + d.Name
}

// Input is everything the hold decision depends on.
type Input struct {
	Now time.Time
	// DeletedAt is the ProviderConfig's deletion timestamp.
	DeletedAt time.Time
	// Dependents are every managed resource that uses the ProviderConfig.
	Dependents []Dependent
	// NamespaceDeleting: the ProviderConfig's namespace, or the namespace
	// of its credentials Secret, is being deleted.
	NamespaceDeleting bool
	// DeletingNamespaces are those of the two being deleted. A dependent
	// in one of them counts as deleting before its own deletion starts:
	// the namespace controller deletes it too, whatever order it takes
	// the kinds in (with thousands of keys, minutes after the
	// ProviderConfig), so the hold waits for it as for one being deleted.
	DeletingNamespaces map[string]bool
	// UnreachableSince is when Coder's /api/v2/buildinfo last started
	// failing without an answer since; zero while Coder answers.
	UnreachableSince time.Time
	// GraceUntil is the end of a grace period already entered (from the
	// ProviderConfig's status), so that the period does not shrink while
	// dependents finish; zero before the grace period starts.
	GraceUntil time.Time
	Bounds     Bounds
}

// Phase is where a ProviderConfig being deleted is in its hold.
type Phase string

// Phases of the hold.
const (
	// PhaseHolding: dependents hold it; they delete normally and retry.
	PhaseHolding Phase = "Holding"
	// PhaseGrace: the bound passed; each dependent makes one bounded pass.
	PhaseGrace Phase = "Grace"
	// PhaseReleased: the ProviderConfig may go.
	PhaseReleased Phase = "Released"
)

// Why a decision was taken; these are also condition reasons.
const (
	WhyDeletingDependents   = "WaitingForDependents"
	WhyLiveDependents       = "WaitingForLiveDependents"
	WhyGrace                = "GracePeriod"
	WhyNoDependents         = "NoDependents"
	WhyLiveDependentTimeout = "LiveDependentTimeout"
	WhyDependentTimeout     = "DependentTimeout"
	WhyCoderUnreachable     = "CoderUnreachable"
)

// A condition or log line lists at most maxListedDependents dependents.
const (
	maxListedDependents      = 10
	dependentsListedOverflow = "and %d more"
)

// A Decision is what a ProviderConfig being deleted does now.
type Decision struct {
	Phase Phase
	Why   string
	// Until is when the current phase ends at the latest; zero when
	// released.
	Until time.Time
	// RequeueAfter is when to decide again; zero when released.
	RequeueAfter time.Duration
	// Waiting are the dependents it waits for.
	Waiting []Dependent
}

// Decide is the hold decision for a ProviderConfig being deleted.
func Decide(in Input) Decision {
	var deleting, live []Dependent
	for _, d := range in.Dependents {
		if d.Deleting || in.DeletingNamespaces[d.Namespace] && d.Namespace != "" {
			d.Deleting = true
			deleting = append(deleting, d)
		} else {
			live = append(live, d)
		}
	}
	if len(in.Dependents) == 0 {
		return Decision{Phase: PhaseReleased, Why: WhyNoDependents}
	}
	if in.NamespaceDeleting && !in.UnreachableSince.IsZero() && !in.Now.Before(in.UnreachableSince.Add(in.Bounds.UnreachableTimeout)) {
		// Coder likely ran in the namespace and is gone with it: holding
		// would only delay the namespace. Cleanup records cover the rest.
		return Decision{Phase: PhaseReleased, Why: WhyCoderUnreachable}
	}

	// Decide again no later than when Coder's silence would release it.
	next := in.Now.Add(Recheck)
	if in.NamespaceDeleting && !in.UnreachableSince.IsZero() {
		next = minTime(next, in.UnreachableSince.Add(in.Bounds.UnreachableTimeout))
	}

	if len(deleting) == 0 {
		until := in.DeletedAt.Add(in.Bounds.LiveDependentTimeout)
		if in.Now.Before(until) {
			return holding(in.Now, next, PhaseHolding, WhyLiveDependents, until, live)
		}
		return Decision{Phase: PhaseReleased, Why: WhyLiveDependentTimeout}
	}

	holdUntil := in.DeletedAt.Add(in.Bounds.DependentTimeout)
	if in.Now.Before(holdUntil) {
		return holding(in.Now, next, PhaseHolding, WhyDeletingDependents, holdUntil, deleting)
	}
	graceUntil := in.GraceUntil
	if graceUntil.IsZero() {
		graceUntil = holdUntil.Add(in.Bounds.Grace(deleting))
	}
	// A recorded end never outlasts today's bound: grace.max or
	// dependentTimeout may have been lowered since it was recorded.
	graceUntil = minTime(graceUntil, holdUntil.Add(in.Bounds.GraceMax))
	if in.Now.Before(graceUntil) {
		return holding(in.Now, next, PhaseGrace, WhyGrace, graceUntil, deleting)
	}
	return Decision{Phase: PhaseReleased, Why: WhyDependentTimeout}
}

func holding(now, next time.Time, p Phase, why string, until time.Time, waiting []Dependent) Decision {
	sorted := append([]Dependent(nil), waiting...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].String() < sorted[j].String() })
	return Decision{
		Phase:        p,
		Why:          why,
		Until:        until,
		RequeueAfter: max(time.Second, minTime(next, until).Sub(now)),
		Waiting:      sorted,
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// List renders dependents for a condition or log line, capped so a
// ProviderConfig with thousands of dependents keeps a readable message.
func List(ds []Dependent) []string {
	out := make([]string, 0, min(len(ds), maxListedDependents)+1)
	for i, d := range ds {
		if i == maxListedDependents {
			out = append(out, fmt.Sprintf(dependentsListedOverflow, len(ds)-maxListedDependents))
			break
		}
		out = append(out, d.String())
	}
	return out
}

// Mode is how a dependent being deleted treats its external object.
type Mode string

// Modes of a dependent's delete.
const (
	// ModeNormal: delete, verify absence, retry on failure (the
	// ProviderConfig holds).
	ModeNormal Mode = "Normal"
	// ModeBoundedPass: one attempt; a failure releases without delete.
	ModeBoundedPass Mode = "BoundedPass"
)

// ConfigState is what a dependent knows of its ProviderConfig.
type ConfigState struct {
	// Gone: the ProviderConfig does not exist.
	Gone bool
	// Deleting: it has a deletion timestamp.
	Deleting bool
	// Phase is its hold phase from status, when deleting.
	Phase Phase
	// NamespaceDeletedAt is when the dependent's own namespace began
	// deleting; zero while it is not (or for a cluster-scoped dependent).
	NamespaceDeletedAt time.Time
	// DependentTimeout is the ProviderConfig's dependentTimeout.
	DependentTimeout time.Duration
	Now              time.Time
}

// DependentMode decides how a deleting dependent deletes: normally while its
// ProviderConfig exists and holds for it, in one bounded pass when the
// ProviderConfig is gone, released or in its grace period.
//
// A namespace deletion bounds the wait as well: a dependent whose namespace
// has been deleting for its ProviderConfig's dependentTimeout takes its
// bounded pass even though the ProviderConfig stands (a
// ClusterProviderConfig, which the namespace deletion does not touch, whose
// Coder is down or whose token Secret is missing). Otherwise the namespace
// would wait on someone mending a ProviderConfig it does not own; the
// record and the sweep cover what the pass could not delete.
func DependentMode(pc ConfigState) Mode {
	switch {
	case pc.Gone:
		return ModeBoundedPass
	case pc.Deleting && (pc.Phase == PhaseGrace || pc.Phase == PhaseReleased):
		return ModeBoundedPass
	case !pc.NamespaceDeletedAt.IsZero() && !pc.Now.Before(pc.NamespaceBound()):
		return ModeBoundedPass
	default:
		return ModeNormal
	}
}

// NamespaceBound is when the deletion of a dependent's namespace alone turns
// its delete into the bounded pass: dependentTimeout after the namespace
// began deleting. Zero while the namespace is not being deleted; every
// other change of mode is a change of the ProviderConfig.
func (pc ConfigState) NamespaceBound() time.Time {
	if pc.NamespaceDeletedAt.IsZero() {
		return time.Time{}
	}
	return pc.NamespaceDeletedAt.Add(pc.DependentTimeout)
}
