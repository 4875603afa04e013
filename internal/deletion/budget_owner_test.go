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

	"github.com/google/go-cmp/cmp"
)

func TestDecideOwnsABudgetRowOnlyByItsRecordedUpdatedAt(t *testing.T) {
	cases := map[string]struct {
		reason string
		look   Look
		want   Verdict
	}{
		"NoBudgetCreates": {
			reason: "A group without a budget is Coder's default: the resource creates one.",
			look:   Look{MayWrite: true},
			want:   Verdict{},
		},
		"OursAndUpToDate": {
			reason: "Coder shows our last PUT's updated_at and the spec's limit.",
			look:   Look{Present: true, Ours: true, Recorded: true, Named: true, Matches: true, MayWrite: true},
			want:   Verdict{Exists: true, UpToDate: true},
		},
		"LimitChangedInSpec": {
			reason: "The spec asks for another limit: Update PUTs it.",
			look:   Look{Present: true, Ours: true, Recorded: true, Named: true, MayWrite: true},
			want:   Verdict{Exists: true},
		},
		"ChangedInCoderWhileLive": {
			reason: "Someone wrote the budget since our PUT, even to the same limit: drift, put back.",
			look:   Look{Present: true, Recorded: true, Named: true, Matches: true, MayWrite: true},
			want:   Verdict{Exists: true},
		},
		"OursRemovedInCoderIsPutBack": {
			reason: "A budget our PUT wrote and someone removed in Coder: Update writes it again.",
			look:   Look{Recorded: true, Named: true, MayWrite: true},
			want:   Verdict{Exists: true},
		},
		"SomeoneElsesBudgetIsRefused": {
			reason: "A budget present at the first look, with no record of ours and no import, is not written over.",
			look:   Look{Present: true, Matches: true, MayWrite: true},
			want:   Verdict{Refuse: true},
		},
		"ImportByExternalNameAdopts": {
			reason: "An external name set to the group id is an explicit import: record the updated_at read.",
			look:   Look{Present: true, Named: true, MayWrite: true},
			want:   Verdict{Exists: true, Adopt: true},
		},
		"ImportByExternalNameAdoptsUpToDate": {
			reason: "An import whose limit matches needs no PUT.",
			look:   Look{Present: true, Named: true, Matches: true, MayWrite: true},
			want:   Verdict{Exists: true, Adopt: true, UpToDate: true},
		},
		"ObserveOnlyReadsWithoutARecord": {
			reason: "An observe-only import reads the budget and writes no record.",
			look:   Look{Present: true, ObserveOnly: true},
			want:   Verdict{Exists: true, UpToDate: true},
		},
		"ObserveOnlyWithoutBudget": {
			reason: "An observe-only import of a group without a budget observes nothing.",
			look:   Look{ObserveOnly: true},
			want:   Verdict{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Decide(tc.look)); diff != "" {
				t.Errorf("\n%s\nDecide(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
