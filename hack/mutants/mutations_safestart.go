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

// safeStartRun are the tests that guard SafeStart: the activation's table
// tests and the package installed under a partial activation policy.
const safeStartRun = "^(TestExistingKeepsOnlyServedKindsInOrder|TestCreateRefusedWhileCleanupRecordIsInactive|TestAKindStartsWhenItsCRDIsServedAndNotBefore|TestSafeStartRunsOnlyTheKindsAPolicyActivates)$"

// safeStartMutations break issue 51's SafeStart: each kind starts when
// Crossplane activates it, creates wait for the CleanupRecord kind, and the
// hold counts only kinds that exist.
var safeStartMutations = []Mutation{
	{
		// Every kind's controller started at once, whatever the policy
		// activated.
		Name: "safestart-controller-started-regardless-of-activation",
		File: "internal/activation/activation.go",
		Old:  "\tif k.all {\n\t\treturn start()\n\t}\n",
		New:  "\tif true {\n\t\treturn start()\n\t}\n",
		Pkgs: []string{"./internal/activation/", "./test/crossplane/"},
		Run:  safeStartRun,
	},
	{
		// A create while the CleanupRecord kind is inactive: its record
		// cannot be written, and the resource does not say why.
		Name: "safestart-create-without-cleanup-record-kind",
		File: "internal/activation/activation.go",
		Old:  "\tcase !recordsExist:\n\t\treturn MsgRecordsInactive\n",
		New:  "\tcase false && !recordsExist:\n\t\treturn MsgRecordsInactive\n",
		Pkgs: []string{"./internal/activation/", "./test/crossplane/"},
		Run:  safeStartRun,
	},
	{
		// The hold lists every managed kind, those without a CRD too.
		Name: "safestart-hold-counts-inactive-kinds",
		File: "internal/controller/config/reconciler.go",
		Old:  "\tif r.kinds == nil {\n\t\treturn apis.ManagedKinds(), nil\n\t}\n\treturn r.kinds(ctx)\n",
		New:  "\treturn apis.ManagedKinds(), nil\n",
		Pkgs: []string{"./test/crossplane/"},
		Run:  "^TestSafeStartRunsOnlyTheKindsAPolicyActivates$",
	},
	{
		// The hold counts while a served kind has not started (the
		// provider is starting): a deleting ProviderConfig sees none of
		// that kind's dependents and lets go of them.
		Name: "safestart-hold-counts-before-served-kinds-start",
		File: "internal/activation/activation.go",
		Old:  "\tif p := Pending(apis.ManagedKinds(), served, k.Exists); len(p) > 0 {\n",
		New:  "\tif p := Pending(apis.ManagedKinds(), served, k.Exists); false && len(p) > 0 {\n",
		Pkgs: []string{"./internal/activation/"},
		Run:  "^TestCountingWaitsForAServedKindToStart$",
	},
	{
		// A managed kind listed without its GroupVersionKind (the merge of
		// the MCPServer kind did this): the CRD gate never starts it, and
		// every lookup by its indexes fails.
		Name: "safestart-managed-kind-without-gvk",
		File: "apis/managed.go",
		Old:  "\t\tmanagedKind(namespacedaiv1alpha1.MCPServerGroupVersionKind,\n",
		New:  "\t\tmanagedKind(schema.GroupVersionKind{Kind: namespacedaiv1alpha1.MCPServerKind},\n",
		Pkgs: []string{"./apis/"},
		Run:  "^TestEveryManagedKindNamesTheKindItsCRDServes$",
	},
	{
		// A kind gated on a GroupVersionKind no CRD serves is taken
		// silently: it never starts and nothing says so.
		Name: "safestart-kind-without-gvk-gated-silently",
		File: "internal/activation/activation.go",
		Old:  "\tif gvk.Group == \"\" || gvk.Version == \"\" || gvk.Kind == \"\" {\n",
		New:  "\tif false {\n",
		Pkgs: []string{"./internal/activation/"},
		Run:  "^TestAKindWithoutItsGroupVersionKindIsRefused$",
	},
}

func init() { Mutations = append(Mutations, safeStartMutations...) }
