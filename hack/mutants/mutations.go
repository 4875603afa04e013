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
		Old:  "\t\tcontrollerutil.AddFinalizer(sec, providerconfig.CredentialsFinalizer)\n",
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
			"released without a verified delete in Coder (%s): the object may still exist in Coder", why)))
	}
`,
		New: `	if why, ok := f.releases.take(obj.GetUID()); ok {
		metrics.ReleasedWithoutDelete(f.kind)
		f.record.Event(obj, event.Warning(ReasonReleasedWithoutDelete, errors.Errorf(
			"released without a verified delete in Coder (%s): the object may still exist in Coder", why)))
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
		Old:  "\tcase !pc.NamespaceDeletedAt.IsZero() && !pc.Now.Before(pc.NamespaceDeletedAt.Add(pc.DependentTimeout)):\n",
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
	{
		// Issue 26, item 13: the sweep takes a key delete's answer (204, or
		// 404 for "not there") for absence, and removes the record of a
		// key Coder still lists.
		Name: "sweep-keys-trusts-the-delete",
		File: "internal/coderobj/keys.go",
		Old:  "\t\tif errs[i] == nil && len(OwnedKeys(list, c, m)) > 0 {\n",
		New:  "\t\tif errs[i] == nil && len(OwnedKeys(list, c, m)) > 0 && false {\n",
		Pkgs: []string{"./internal/coderobj/", "./test/e2e/"},
		Run:  "^(TestSweepCountsAKeyGoneOnlyWhenTheListAfterItsDeleteLacksIt|TestSweepKeepsARecordWhileCoderStillListsItsObjectAfterTheDelete)$",
	},
	{
		// Issue 26, item 13: the same for a provider: no read after the
		// delete.
		Name: "sweep-provider-trusts-the-delete",
		File: "internal/coderobj/providers.go",
		Old:  "\t\tif err == nil {\n\t\t\treturn errStillPresent()\n",
		New:  "\t\tif err == nil && false {\n\t\t\treturn errStillPresent()\n",
		Pkgs: []string{"./internal/coderobj/", "./test/e2e/"},
		Run:  "^(TestSweepCountsAProviderGoneOnlyWhenAReadAfterItsDeleteLacksIt|TestSweepKeepsARecordWhileCoderStillListsItsObjectAfterTheDelete)$",
	},
	{
		// Issue 26, item 13: a deleting key whose last delete Coder
		// accepted counts as gone without a list: its finalizer and record
		// go while Coder keeps the key.
		Name: "key-delete-trusts-the-answer",
		File: "internal/controller/aigatewaykey/aigatewaykey.go",
		Old:  "\tif meta.WasDeleted(k) {\n\t\treturn e.observeDeleting(k, keys, id), nil\n",
		New: "\tif meta.WasDeleted(k) && k.GetCondition(xpv2.TypeSynced).Reason == xpv2.ReasonReconcileSuccess && k.GetCondition(xpv2.TypeReady).Reason == xpv2.ReasonDeleting {\n\t\treturn managed.ExternalObservation{}, nil\n\t}\n" +
			"\tif meta.WasDeleted(k) {\n\t\treturn e.observeDeleting(k, keys, id), nil\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestDeleteKeepsTheFinalizerWhileCoderStillListsTheObject$",
	},
	{
		// Issue 26, item 13: the same for a provider: no read after the
		// accepted delete.
		Name: "provider-delete-trusts-the-answer",
		File: "internal/controller/aiprovider/aiprovider.go",
		Old:  "\tgot, err := e.coder.GetProvider(ctx, id)\n\tif coder.IsNotFound(err) {\n",
		New:  "\tgot, err := e.coder.GetProvider(ctx, id)\n\tif coder.IsNotFound(err) || meta.WasDeleted(p) && p.GetCondition(xpv2.TypeSynced).Reason == xpv2.ReasonReconcileSuccess && p.GetCondition(xpv2.TypeReady).Reason == xpv2.ReasonDeleting {\n",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestDeleteKeepsTheFinalizerWhileCoderStillListsTheObject$",
	},
	{
		// Issue 26, item 13: the bounded pass takes the delete's answer for
		// absence: a release it cannot verify is neither counted nor
		// evented, and the record goes instead of staying Abandoned.
		Name: "bounded-pass-trusts-the-delete",
		File: "internal/cleanup/pass.go",
		Old:  "\tr.AfterErr, r.StillThere = err, after.ResourceExists\n",
		New:  "\tr.AfterErr, r.StillThere = err, after.ResourceExists && false\n",
		Pkgs: []string{"./internal/cleanup/", "./test/e2e/"},
		Run:  "^(TestBoundedPassWhoseDeleteCoderAnsweredButStillShowsReleasesWithoutDelete|TestBoundedPassCountsADeleteCoderDidNotCarryOutAsAReleaseWithoutDelete)$",
	},
	{
		// Issue 26, item 14: one reconcile rate for every namespace, so one
		// namespace's backlog delays every other's new resources.
		Name: "one-tenant-for-every-request",
		File: "internal/fairlimit/fairlimit.go",
		Old:  "r.limit.When(req.Namespace, ",
		New:  "r.limit.When(\"\", ",
		Pkgs: []string{"./test/e2e/"},
		Run:  "^TestANoisyNamespacesBacklogLeavesAnotherNamespacesNewKeyReadyInSeconds$",
	},
}
