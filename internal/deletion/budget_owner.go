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

// A Look is what one Observe gathered about a budget row (a group's budget
// or a user's override): what Coder holds, what this resource's cleanup
// record says it wrote, and whether the row is what the resource asks for.
type Look struct {
	// Named: the resource's external name names the row's key, the group
	// or the user (set by its create, or by a user importing the row).
	Named bool
	// Present: Coder holds the row.
	Present bool
	// Ours: a record of this resource names the row, and Coder shows the
	// updated_at of its last PUT (or, for a PUT whose answer was lost, a
	// change within its window).
	Ours bool
	// Recorded: a record of this resource names the row with the
	// updated_at of a PUT Coder answered (or of an import).
	Recorded bool
	// Matches: the row Coder holds is what the spec asks for (its limit,
	// and an override's group).
	Matches bool
	// MayWrite: the management policies allow Update or Delete, so an
	// import becomes the budget's owner (and writes a record).
	MayWrite bool
	// ObserveOnly: the policies allow neither Create, Update nor Delete.
	ObserveOnly bool
}

// A Verdict is what Observe reports, and what it does first.
type Verdict struct {
	Exists   bool
	UpToDate bool
	// Refuse: the budget in Coder is someone else's, and the resource does
	// not write over it (ReasonBudgetExists).
	Refuse bool
	// Adopt: an import by external name that may write: record the
	// updated_at Coder shows, which makes the budget this resource's.
	Adopt bool
}

// Decide is the whole of a budget's or an override's ownership. A row is a
// singleton nobody names, so ownership is this resource's record, compared
// on Coder's clock: the budget is ours exactly while Coder shows the
// updated_at of our last PUT. A budget present at the first look with no
// record of ours is refused, unless the resource imports it (external name
// set, or observe only). A deleting resource goes by its records
// (findBudgets), which delete only a budget that is still ours.
func Decide(l Look) Verdict {
	switch {
	case !l.Present && l.Recorded && !l.ObserveOnly:
		// Ours, removed in Coder since (by someone, or by Coder: an
		// override whose user left its group). Update puts it back, and
		// a refusal shows in the resource's conditions, which a failed
		// create's bookkeeping would overwrite.
		return Verdict{Exists: true}
	case !l.Present:
		// Coder's default: create it.
		return Verdict{}
	case l.ObserveOnly:
		return Verdict{Exists: true, UpToDate: true}
	case l.Ours || l.Recorded:
		// Ours, or ours until someone wrote it in Coder since (drift,
		// put back by Update).
		return Verdict{Exists: true, UpToDate: l.Ours && l.Matches}
	case l.Named && l.MayWrite:
		return Verdict{Exists: true, Adopt: true, UpToDate: l.Matches}
	case l.Named:
		return Verdict{Exists: true, UpToDate: true}
	}
	return Verdict{Refuse: true}
}
