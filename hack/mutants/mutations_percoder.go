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

// perCoderMutations break issue 49's rules: ownership is per Coder, and a
// record never changes what it names (DESIGN §9).
var perCoderMutations = []Mutation{
	{
		// A record of a tenant's server, which claims the platform's
		// deployment id, speaks of the platform's Coder.
		Name: "speaks-by-deployment-id-alone",
		File: "internal/deletion/owner.go",
		Old:  "\treturn o.SameCoder(now)\n",
		New:  "\treturn o.DeploymentID == now.DeploymentID\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^(TestARecordSpeaksOnlyOfTheCoderItWasMadeThrough|TestALiveResourceHoldsAnObjectOnlyByItsExternalNameAndARecordOfItsOwn)$",
	},
	{
		// The sweep's holders read records of every Coder: a tenant's
		// record shields the platform's key, which the sweep then counts
		// deleted.
		Name: "holders-of-every-coder",
		File: "internal/deletion/owner.go",
		Old:  "\t\tif id := recs[i].Status.ExternalID; id != \"\" && SpeaksOf(&recs[i], now) {\n",
		New:  "\t\tif id := recs[i].Status.ExternalID; id != \"\" {\n",
		Pkgs: []string{"./internal/deletion/", "./test/e2e/"},
		Run:  "^(TestALiveResourceHoldsAnObjectOnlyByItsExternalNameAndARecordOfItsOwn|TestATenantsServerAnsweringWithAPlatformKeysIDDoesNotShieldItFromTheSweep)$",
	},
	{
		// A budget's record of a tenant's server blocks the platform's
		// group.
		Name: "budget-owners-of-every-coder",
		File: "internal/deletion/kind_records.go",
		Old:  " || rec.Status.Phase != clusterv1alpha1.CleanupPhaseActive || !SpeaksOf(rec, now) {\n",
		New:  " || rec.Status.Phase != clusterv1alpha1.CleanupPhaseActive {\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestATenantsBudgetThroughItsOwnServerBlocksNoBudgetOfThePlatformsCoder$",
	},
	{
		// A budget whose external name moves rewrites its only record.
		Name: "budget-record-renames-its-row",
		File: "internal/deletion/kind_records.go",
		Old:  "\treturn BudgetRecordName(kind, mg.GetUID(), id), nil\n",
		New:  "\treturn base, nil\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestABudgetWhoseExternalNameMovesKeepsTheRecordOfItsFirstGroup$",
	},
	{
		// Any ProviderConfig of a record's Coder may find, and delete, a
		// provider by the name its tenant chose: the one rule the sweep
		// and a deleting resource both go by (ByName).
		Name: "by-name-through-any-providerconfig",
		File: "internal/deletion/owner.go",
		Old:  "func ByName(o, now Origin) bool { return o.MadeBy(now) || (o.Legacy() && o.SameCoder(now)) }",
		New:  "func ByName(o, now Origin) bool { return o.SameCoder(now) }",
		Pkgs: []string{"./internal/deletion/", "./test/e2e/"},
		Run:  "^(TestOnlyTheProviderConfigThatMadeAnObjectFindsItByName|TestSweeperForTrustsOnlyTheProviderConfigThatMadeARecordOrThePlatformsAtItsURL|TestTheSweepDeletesOnlyThroughTheProviderConfigThatMadeARecordOrThePlatformsAtItsURL)$",
	},
}

func init() { Mutations = append(Mutations, perCoderMutations...) }
