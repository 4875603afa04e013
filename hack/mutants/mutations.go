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

// A Mutation breaks one rule of the deletion contract with the smallest
// change to one file, and names the tests that must then fail.
type Mutation struct {
	// Name is what `-only` selects and the report prints.
	Name string
	// File is relative to the module root.
	File string
	// Old must occur exactly once in File; New replaces it.
	Old, New string
	// Pkgs are the packages whose tests run, Run their -run regexp.
	Pkgs []string
	Run  string
}

// Mutations is the list of issue 13 ("Mutations the suite must kill"). The
// unit test checks every Old still occurs exactly once, so a change to the
// code cannot silently turn a mutation into a no-op.
var Mutations = []Mutation{
	{
		// Issue 26, item 7: a Secret being deleted is kept for as long as
		// a ProviderConfig that stands reads it, so the namespace of a
		// ClusterProviderConfig's Secret stays Terminating for good.
		Name: "secret-held-while-its-providerconfig-stands",
		File: "internal/controller/credentials/needed.go",
		Old:  "\t\tif c.Deleting || s.DeletedAt.IsZero() {\n",
		New:  "\t\tif true {\n",
		Pkgs: []string{"./internal/controller/credentials/", "./test/e2e/"},
		Run:  "^(TestASecretBeingDeletedIsKeptForTheBoundsOfTheProviderConfigsThatStandAndReadIt|TestASecretBeingDeletedIsReleasedOnceTheStandingClusterProviderConfigThatReadsItPassedItsBounds|TestSecretsOfAStandingClusterProviderConfigDoNotHoldTheirNamespace)$",
	},
	{
		// Issue 26, item 7: a standing ProviderConfig's Secret being
		// deleted goes at once, under its dependents' deletes.
		Name: "secret-released-under-deleting-dependents",
		File: "internal/controller/credentials/needed.go",
		Old:  "\t\tif h.Phase != hold.PhaseReleased {\n",
		New:  "\t\tif false {\n",
		Pkgs: []string{"./internal/controller/credentials/", "./test/e2e/"},
		Run:  "^(TestASecretBeingDeletedIsKeptForTheBoundsOfTheProviderConfigsThatStandAndReadIt|TestAStandingClusterProviderConfigsSecretServesDeletingDependentsWithinItsBounds)$",
	},
	{
		// Issue 26, item 7: a ProviderConfig whose Secret is being deleted
		// stays Ready, and creates through credentials about to go.
		Name: "ready-while-the-secret-is-deleted",
		File: "internal/controller/providerconfig/hold.go",
		Old:  "\tcase sec.DeletionTimestamp != nil && protected:\n\t\treturn errors.Errorf(\"%s: %s\", errSecretDeleting, nn)\n",
		New:  "\tcase sec.DeletionTimestamp != nil && protected:\n\t\treturn nil\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestAStandingClusterProviderConfigsSecretServesDeletingDependentsWithinItsBounds$",
	},
	{
		// Issue 26, item 7: a standing ProviderConfig loses its Secret
		// without an event.
		Name: "secret-let-go-without-an-event",
		File: "internal/controller/credentials/credentials.go",
		Old:  "\tr.letGo(ctx, log, req.NamespacedName, d)\n",
		New:  "",
		Pkgs: []string{"./internal/controller/credentials/", "./test/e2e/"},
		Run:  "^(TestASecretBeingDeletedIsReleasedOnceTheStandingClusterProviderConfigThatReadsItPassedItsBounds|TestSecretsOfAStandingClusterProviderConfigDoNotHoldTheirNamespace)$",
	},
	{
		// Issue 26, item 8: a record delete RBAC forbids keeps its resource
		// (and its namespace) for good.
		Name: "forbidden-record-delete-holds",
		File: "internal/cleanup/finalizer.go",
		Old:  "\tif !kerrors.IsForbidden(err) || !MayDelete(mg) {\n",
		New:  "\tif true {\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestARecordDeleteTheProviderMayNotMakeDoesNotHoldAResource|TestAResourceWhoseRecordDeleteIsForbiddenIsReleasedAndItsRecordSwept)$",
	},
	{
		// Issue 26, item 8: the crossplane.io/paused annotation is not
		// seen, so a paused deleting resource waits for a reconcile that
		// never acts.
		Name: "paused-annotation-not-seen",
		File: "internal/cleanup/decide.go",
		Old:  "\tcase meta.IsPaused(mg) || p.IsPaused():\n",
		New:  "\tcase false && meta.IsPaused(mg) || p.IsPaused():\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestTheManagedReconcilerLeavesPausedAndUnsupportedResourcesAlone|TestPausedResourcesDoNotKeepTheirNamespaceTerminating)$",
	},
	{
		// Issue 26, item 8: managementPolicies: [] is not seen as a pause.
		Name: "empty-policies-not-seen",
		File: "internal/cleanup/decide.go",
		Old:  "\tcase meta.IsPaused(mg) || p.IsPaused():\n",
		New:  "\tcase meta.IsPaused(mg):\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestTheManagedReconcilerLeavesPausedAndUnsupportedResourcesAlone|TestPausedResourcesDoNotKeepTheirNamespaceTerminating)$",
	},
	{
		// Issue 26, item 8: unsupported management policies are not seen.
		Name: "unsupported-policies-not-seen",
		File: "internal/cleanup/decide.go",
		Old:  "\tcase p.Validate() != nil:\n",
		New:  "\tcase false:\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestTheManagedReconcilerLeavesPausedAndUnsupportedResourcesAlone|TestAResourceWithUnsupportedPoliciesIsReleasedWhenItsHoldEnds)$",
	},
	{
		// Issue 26, item 8: a stalled resource released at its bound is
		// taken for a normal release: nothing counted, evented or left for
		// the sweep, although nothing was deleted.
		Name: "stalled-release-not-counted",
		File: "internal/cleanup/decide.go",
		Old:  "\t\tif !r.MayHaveCreated {\n\t\t\treturn PassOutcome{}\n\t\t}\n\t\treturn PassOutcome{WithoutDelete: true, Reason: r.Stalled}\n",
		New:  "\t\treturn PassOutcome{}\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestBoundedPassReleasesWithoutDeleteUnlessAbsenceIsVerified|TestAStalledResourceIsReleasedWithoutAskingCoder|TestPausedResourcesDoNotKeepTheirNamespaceTerminating)$",
	},
	{
		// Issue 26, item 8: a stalled resource is never released, whatever
		// its bounds say.
		Name: "stalled-never-released",
		File: "internal/controller/managedkind/stalled.go",
		Old:  "\tif mode == hold.ModeBoundedPass {\n",
		New:  "\tif mode == hold.ModeBoundedPass && false {\n",
		Pkgs: []string{"./internal/controller/managedkind/", "./test/e2e/"},
		Run:  "^(TestADeletingResourceTheManagedReconcilerLeavesAloneIsReleasedAtItsBounds|TestPausedResourcesDoNotKeepTheirNamespaceTerminating|TestAResourceWithUnsupportedPoliciesIsReleasedWhenItsHoldEnds)$",
	},
	{
		// Issue 26, item 8: a stalled resource is not looked at again at
		// its namespace bound; the managed reconciler never requeues it.
		Name: "stalled-not-requeued-at-the-namespace-bound",
		File: "internal/controller/managedkind/stalled.go",
		Old:  "\t\tres.RequeueAfter = max(wait, stalledRecheck)\n",
		New:  "",
		Pkgs: []string{"./internal/controller/managedkind/", "./test/e2e/"},
		Run:  "^(TestADeletingResourceTheManagedReconcilerLeavesAloneIsReleasedAtItsBounds|TestPausedResourcesDoNotKeepTheirNamespaceTerminating)$",
	},
	{
		// Issue 26, item 1: any deployment's answer counts as gone, so a
		// ProviderConfig repointed to another Coder "verifies" a delete
		// there and forgets the object the first Coder keeps.
		Name: "absence-from-any-deployment",
		File: "internal/cleanup/pass.go",
		Old:  "\t\tif d != now {\n",
		New:  "\t\tif d != now && false {\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestAbsenceCountsOnlyInTheDeploymentThatMadeTheObject|TestRepointedProviderConfigDeletesNothingItCannotVerifyAndTheSweepFinishesInTheDeploymentThatMadeIt)$",
	},
	{
		// Issue 25: a deleting key whose create was never sent still
		// waits for a Coder that refuses every call (no licence).
		Name: "never-created-asks-coder",
		File: "internal/cleanup/pass.go",
		Old:  "\treturn !begun, err\n",
		New:  "\treturn false && !begun, err\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestDeletingResourceThatNeverCreatedGoesWithoutAskingCoder|TestDeletingAKeyWhoseCreateWasNeverSentNeedsNoAnswerFromCoder)$",
	},
	{
		// The hold never learns that its namespace is being deleted, so it
		// holds a Coder-down namespace for dependentTimeout instead of
		// releasing it after unreachableTimeout.
		Name: "no-namespace-check-in-the-hold",
		File: "internal/controller/providerconfig/hold.go",
		Old:  "if in.NamespaceDeleting = nsDeleting; nsDeleting {",
		New:  "if in.NamespaceDeleting = nsDeleting && false; in.NamespaceDeleting {",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestNamespaceDeletionWithCoderDownReleasesWithinUnreachableTimeout$",
	},
	{
		// Every managed resource in the cluster counts as a dependent of
		// every ProviderConfig.
		Name: "dependents-not-filtered-by-providerconfigref",
		File: "internal/controller/providerconfig/dependents.go",
		Old:  "r.List(ctx, l, client.MatchingFields{index.ManagedProviderConfig: ref.IndexValue()})",
		New:  "r.List(ctx, l)",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestHoldCountsOnlyTheDependentsOfItsOwnProviderConfig$",
	},
	{
		// A ProviderConfig being deleted releases at once, whatever uses it.
		Name: "no-hold-at-all",
		File: "internal/controller/providerconfig/hold.go",
		Old:  "d := hold.Decide(in)",
		New:  "d := hold.Decision{Phase: hold.PhaseReleased, Why: hold.WhyNoDependents}",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^(TestHoldIsBoundedWhenDeletesKeepFailing|TestHoldReleasesAfterLiveDependentTimeout)$",
	},
	{
		// A deleting key makes its one bounded pass although its
		// ProviderConfig still holds for it, and gives up on a failure.
		Name: "key-bounded-pass-under-the-hold",
		File: "internal/controller/managedkind/managedkind.go",
		Old:  "\tpass := cleanup.Pass{\n",
		New:  "\tif c.Kind == \"AIGatewayKey\" && mg.GetDeletionTimestamp() != nil {\n\t\ts.Mode = \"BoundedPass\"\n\t}\n\tpass := cleanup.Pass{\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestHoldKeepsTheFinalizerWhileCoderFailsThenDeletes$",
	},
	{
		// The same for AIProviders.
		Name: "provider-bounded-pass-under-the-hold",
		File: "internal/controller/managedkind/managedkind.go",
		Old:  "\tpass := cleanup.Pass{\n",
		New:  "\tif c.Kind == \"AIProvider\" && mg.GetDeletionTimestamp() != nil {\n\t\ts.Mode = \"BoundedPass\"\n\t}\n\tpass := cleanup.Pass{\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestHoldKeepsTheProviderFinalizerWhileCoderFailsThenDeletes$",
	},
	{
		// The token Secret is never protected: a namespace deletion can
		// take the credentials before the dependents have deleted.
		Name: "credentials-finalizer-never-placed",
		File: "internal/controller/providerconfig/hold.go",
		Old:  "\tcontrollerutil.AddFinalizer(sec, providerconfig.CredentialsFinalizer)\n",
		New:  "",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^(TestClusterProviderConfigSecretHeldWhileItsNamespaceIsDeleted|TestCredentialsFinalizerLeavesWithTheLastProviderConfig)$",
	},
	{
		// A release without delete is counted (and evented) before the
		// finalizer's removal is persisted: a refused removal counts, and
		// each retry counts again.
		Name: "metric-counted-before-the-finalizer-removal",
		File: "internal/cleanup/finalizer.go",
		Old: `	if removed, err := f.remove(ctx, obj); err != nil || !removed {
		return err
	}
	if ts := obj.GetDeletionTimestamp(); ts != nil {
		metrics.ObserveDeletion(f.kind, time.Since(ts.Time))
	}
	if why, ok := f.releases.take(obj.GetUID()); ok {
		metrics.ReleasedWithoutDelete(f.kind)
		f.record.Event(obj, event.Warning(ReasonReleasedWithoutDelete, errors.Errorf(
			"released without a verified delete in Coder (%s): %s", why, releasedWhy(why))))
	}
`,
		New: `	if why, ok := f.releases.take(obj.GetUID()); ok {
		metrics.ReleasedWithoutDelete(f.kind)
		f.record.Event(obj, event.Warning(ReasonReleasedWithoutDelete, errors.Errorf(
			"released without a verified delete in Coder (%s): %s", why, releasedWhy(why))))
	}
	if removed, err := f.remove(ctx, obj); err != nil || !removed {
		return err
	}
	if ts := obj.GetDeletionTimestamp(); ts != nil {
		metrics.ObserveDeletion(f.kind, time.Since(ts.Time))
	}
`,
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestReleaseIsCountedOnlyOnceItsFinalizerRemovalIsPersisted$",
	},
	{
		// The sweep deletes an Abandoned record's object through a Ready
		// ProviderConfig of whatever deployment it finds.
		Name: "sweep-through-another-deployment",
		File: "internal/cleanup/sweep.go",
		Old:  "\t\tcase id == \"\" || c.DeploymentID != id || c.Unusable:\n",
		New:  "\t\tcase id == \"\" || c.Unusable:\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestSweepNeverTouchesAnotherDeploymentsRecords$",
	},
	{
		// A namespace deletion never bounds the wait of resources whose
		// ProviderConfig stands outside it (a ClusterProviderConfig that
		// cannot delete keeps the namespace Terminating).
		Name: "no-namespace-bound-for-dependents",
		File: "internal/hold/hold.go",
		Old:  "\tcase !pc.NamespaceDeletedAt.IsZero() && !pc.Now.Before(pc.NamespaceBound()):\n",
		New:  "\tcase false:\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestNamespaceDeletionIsBoundedWhileItsClusterProviderConfigCannotDelete$",
	},
	{
		// The cleanup record is written after the create: what a crash or
		// a namespace deletion interrupts in between is in Coder with no
		// record anywhere.
		Name: "record-written-after-the-create",
		File: "internal/cleanup/pass.go",
		Old: `	if err := n.pass.Records.Ensure(ctx, mg, n.pass.Kind, n.pass.DeploymentID, n.pass.CoderName(mg), attemptOf(mg)); err != nil {
		return managed.ExternalCreation{}, n.refuse(mg, err)
	}
	c, err := n.inner.Create(ctx, mg)
`,
		New: `	c, err := n.inner.Create(ctx, mg)
	if err := n.pass.Records.Ensure(ctx, mg, n.pass.Kind, n.pass.DeploymentID, n.pass.CoderName(mg), attemptOf(mg)); err != nil {
		return managed.ExternalCreation{}, n.refuse(mg, err)
	}
`,
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestProviderKilledMidCreateLeavesOneKeyAndOneRecord$",
	},
}
