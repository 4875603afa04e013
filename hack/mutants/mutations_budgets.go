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

package main

// budgetMutations break the rules of issue 34's budgets and overrides: a
// row in Coder is the resource's only while Coder shows the updated_at of
// its own last write (docs/explanation/budgets-design.md).
var budgetMutations = []Mutation{
	{
		// The sweep, or a deleting resource (one rule since issue 50),
		// deletes a budget someone wrote since the provider did.
		Name: "budget-sweep-ignores-updated-at",
		File: "internal/deletion/budgets.go",
		Old:  "\tcase !ours:\n\t\treturn found{superseded: true}\n",
		New:  "\tcase false && !ours:\n\t\treturn found{superseded: true}\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^(TestSweepGroupBudgetDeletesOnlyWhileUpdatedAtMatches|TestADeletingBudgetsRecordsFindItsBudgetOnlyWhileItIsTheirs)$",
	},
	{
		// A budget someone else set is adopted and written over without an
		// explicit import.
		Name: "budget-written-over-without-import",
		File: "internal/deletion/budgets.go",
		Old:  "\tcase l.Named && l.MayWrite:\n",
		New:  "\tcase l.MayWrite:\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestDecideOwnsABudgetRowOnlyByItsRecordedUpdatedAt$",
	},
	{
		// A deleting resource whose external name was stripped is gone
		// while the budget its record names is still in Coder.
		Name: "budget-records-look-skipped",
		File: "internal/deletion/kinds.go",
		Old:  "\t\t\tfor _, id := range f.ids {\n",
		New:  "\t\t\tfor _, id := range f.ids[:0] {\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestADeletingBudgetsRecordsFindItsBudgetOnlyWhileItIsTheirs$",
	},
	{
		// A cache behind the record of the last PUT makes that PUT look
		// like someone else's change, put back on every poll.
		Name: "budget-stale-cache-taken-for-drift",
		File: "internal/controller/aibudget/external.go",
		Old:  "l.Recorded, l.Ours, err = e.ours(ctx, r, got, present, e.records.Past)",
		New:  "l.Recorded, l.Ours, err = e.ours(ctx, r, got, present, e.records.Of)",
		Pkgs: []string{"./internal/controller/aibudget/"},
		Run:  "^TestObserveTakesItsOwnLastPutForNoChangeWhenTheCacheLags$",
	},
	{
		// Two resources of one group both write its budget.
		Name: "budget-racers-both-write",
		File: "internal/deletion/kind_records.go",
		Old:  "return !c.Record || c.UID == self",
		New:  "return true || !c.Record || c.UID == self",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestBudgetOwnerLetsOnlyAnUncontestedRecordWrite$",
	},
	{
		// An override record is swept as a group budget: its override stays.
		Name: "override-swept-as-group-budget",
		File: "internal/deletion/kinds.go",
		Old:  "{KindUserOverride, objectKind{find: findBudgets, remove: each((*coder.Client).DeleteUserAIBudgetOverride)}},",
		New:  "{KindUserOverride, objectKind{find: findBudgets, remove: each((*coder.Client).DeleteGroupAIBudget)}},",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestASweepDeletesABudgetOrOverrideOnlyWhileItsUpdatedAtIsTheRecords$",
	},
	{
		// A user outside the group is retried silently.
		Name: "override-not-member-unreported",
		File: "internal/controller/aibudget/override.go",
		Old:  "\tif coder.IsNotGroupMember(err) {\n",
		New:  "\tif false && coder.IsNotGroupMember(err) {\n",
		Pkgs: []string{"./internal/controller/aibudget/"},
		Run:  "^TestAnOverrideOfAUserOutsideTheGroupSaysSo$",
	},
	{
		// Issue 49 finding 4: a budget's 404 is taken for gone though its
		// group's 404 may mean the token may not read it (DESIGN.md §9).
		Name: "budget-unseen-404-taken-for-gone",
		File: "internal/deletion/budgets.go",
		Old:  "\tcase sightErr == nil:\n",
		New:  "\tcase sightErr == nil || coder.IsNotFound(sightErr):\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestABudget(sNotFoundCountsOnlyWhileTheTokenSeesItsGroupOrUser|WhoseGroupOrUserTheTokenCannotSeeIsNotGone)$",
	},
	{
		// The group is not read after the budget's 404, so nothing shows
		// the token can see it and the 404 counts as gone.
		Name: "budget-404-without-sight-read",
		File: "internal/deletion/budgets.go",
		Old:  "\tif coder.IsNotFound(err) {\n\t\tseen = sight()\n",
		New:  "\tif false && coder.IsNotFound(err) {\n\t\tseen = sight()\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestABudgetWhoseGroupOrUserTheTokenCannotSeeIsNotGone$",
	},
	{
		// Issue 49, finding 3: the documented policy leaves budgets open, so
		// a tenant imports the platform's budget through its
		// ClusterProviderConfig, raises it and deletes it.
		Name: "import-policy-leaves-budgets-open",
		File: "docs/how-to/importing.md",
		Old:  `resources: ["aigatewaykeys", "aiproviders", "groupaibudgets", "useraibudgetoverrides", "mcpservers"]`,
		New:  `resources: ["aigatewaykeys", "aiproviders", "mcpservers"]`,
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestDocumentedImportPolicyKeepsTenantsFromImporting$",
	},
}

func init() { Mutations = append(Mutations, budgetMutations...) }
