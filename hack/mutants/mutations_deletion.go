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

// deletionMutations break issue 50's rules: one memory of sent deletes,
// shared by the pass and a kind's own client, and one step for the normal
// path and the bounded pass.
var deletionMutations = []Mutation{
	{
		// A rotation's delete is taken for the pass's: the bounded pass
		// would verify a delete it never sent.
		Name: "kinds-delete-taken-for-the-pass",
		File: "internal/deletion/finalizer.go",
		Old:  "\treturn d, ok && d.pass\n",
		New:  "\treturn d, ok\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestADeleteIsVerifiedOnlyOnAListSentAfterCoderAnsweredIt$",
	},
	{
		// The pass's note of its delete keeps an earlier delete's ids: a
		// later Delete would take a key deleted long ago for one Coder
		// accepted in its last delete.
		Name: "pass-note-keeps-an-earlier-delete",
		File: "internal/deletion/finalizer.go",
		Old:  "\tif d.at.Before(start) {\n",
		New:  "\tif false {\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestThePassNotesWhatItsKindDeletedWithinItsDelete$",
	},
	{
		// The normal path takes a failed look for a verified absence: the
		// finalizer goes while Coder still holds the object.
		Name: "normal-failed-look-taken-for-gone",
		File: "internal/deletion/pass.go",
		Old:  "\t\tcase failed:\n\t\t\treturn StepRetry\n",
		New:  "\t\tcase failed && false:\n\t\t\treturn StepRetry\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^(TestNextIsOneStepForTheNormalPathAndTheBoundedPass|TestAbsenceCountsOnlyInTheDeploymentThatMadeTheObject)$",
	},
	{
		// The bounded pass deletes again after its one delete, and its
		// bound no longer bounds.
		Name: "bounded-pass-deletes-twice",
		File: "internal/deletion/pass.go",
		Old:  "\tif r.Deleted || r.NoClient || failed || !r.Existed {\n",
		New:  "\tif r.NoClient || failed || !r.Existed {\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^(TestNextIsOneStepForTheNormalPathAndTheBoundedPass|TestBoundedPassWhoseDeleteCoderAnsweredButStillShowsReleasesWithoutDelete)$",
	},
	{
		// A deleting resource believes the cache's records: a key whose
		// record the cache does not show yet is left in Coder while its
		// resource goes.
		Name: "deleting-look-believes-the-cache",
		File: "internal/deletion/records.go",
		Old:  "\trecs, err := list(ctx, r.reader, mg)\n",
		New:  "\trecs, err := list(ctx, r.kube, mg)\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^TestADeletingKeyRevokesEveryKeyItsRecordsNameAndOnlyThen$",
	},
	{
		// An import deleted before a live look recorded it is let go
		// without its object's delete.
		Name: "deleting-import-not-adopted",
		File: "internal/deletion/pass.go",
		Old:  "\treturn p.Records.EnsureAdopted(ctx, mg, p.Kind, p.Origin, id)\n",
		New:  "\treturn nil\n",
		Pkgs: []string{"./internal/deletion/"},
		Run:  "^(TestADeletingKeyRevokesEveryKeyItsRecordsNameAndOnlyThen|TestDeletingResourceThatNeverCreatedGoesWithoutAskingCoder)$",
	},
	{
		// Soak seed 777365623978: a create refused unsent after one whose
		// answer was lost is taken for the last word, so the resource does
		// not look for what the lost one wrote; it creates again, meets
		// Coder's 409, its record forgets the lost create, and the
		// provider outlives the resource unrecorded.
		Name: "lost-create-forgotten-after-a-refusal",
		File: "internal/controller/aiprovider/uncertain.go",
		Old:  "\tif err != nil || attempt.IsZero() {\n",
		New:  "\tif a := p.GetAnnotations(); err != nil || attempt.IsZero() || a[\"coder.crossplane.io/refused-create\"] == a[meta.AnnotationKeyExternalCreatePending] {\n",
		Pkgs: []string{"./internal/controller/aiprovider/", "./test/e2e/"},
		Run:  "^(TestALostCreateIsAdoptedThoughALaterCreateWasRefusedUnsent|TestALostCreateFollowedByACreateRefusedUnsentIsStillAdoptedAndDeleted)$",
	},
	{
		// Soak seeds 540571992116 and 849976942575: a live resource whose
		// records were made through another Coder reads the one its
		// ProviderConfig reaches now by its external name, takes a key of
		// that id there for its own and stays Ready.
		Name: "live-resource-reads-another-coder",
		File: "internal/deletion/live.go",
		Old:  "\tif err := n.otherCoder(ctx, mg); err != nil {\n",
		New:  "\tif err := n.otherCoder(ctx, mg); false && err != nil {\n",
		Pkgs: []string{"./internal/deletion/", "./test/e2e/"},
		Run:  "^(TestALiveResourceActsOnlyInTheCoderItsRecordsWereMadeThrough|TestAKeyRepointedToAServerAnsweringWithAnotherKeysIDTakesNothingBack)$",
	},
}

func init() { Mutations = append(Mutations, deletionMutations...) }
