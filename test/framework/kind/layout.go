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

// Package kind sets up the kind cluster of `make e2e`: a kind cluster with
// Crossplane, provider-coder installed from its .xpkg as a Crossplane
// package, and fake Coders; then runs the hold and records scenarios of
// test/e2e against it. Layout names the pieces both sides agree on.
//
// It needs Docker whose engine runs privileged containers, or rootful
// Podman, and says why neither will do before doing anything else.
package kind

import (
	"fmt"
	"strings"
)

// EnvKubeconfig points test/e2e at a cluster this package set up instead of
// a local control plane.
const EnvKubeconfig = "PROVIDER_CODER_E2E_KUBECONFIG"

// Where things run in the cluster.
const (
	ClusterName       = "provider-coder-e2e"
	ProviderName      = "provider-coder"
	ProviderNamespace = "crossplane-system"
	// ProviderPodSelector selects the provider's pods; Crossplane labels
	// them with the Provider's name.
	ProviderPodSelector = "pkg.crossplane.io/provider=" + ProviderName
	MetricsPort         = 8080

	CoderNamespace = "fakecoder"
	// CoderName is the fake Coder every scenario shares.
	CoderName = "fakecoder"
	CoderPort = 3000
	AdminPort = 3001
)

// SpareCoders is how many more fake Coders run, each for one scenario that
// needs a deployment of its own: as many as the Scenarios take together.
func SpareCoders() int {
	n := 0
	for _, s := range Scenarios {
		n += s.Spares
	}
	return n
}

// SpareCoderName names the i-th spare fake Coder, from 1.
func SpareCoderName(i int) string { return fmt.Sprintf("%s-spare-%d", CoderName, i) }

// CoderNames are every fake Coder's name.
func CoderNames() []string {
	out := []string{CoderName}
	for i := 1; i <= SpareCoders(); i++ {
		out = append(out, SpareCoderName(i))
	}
	return out
}

// CoderURL is where the provider reaches the named fake Coder.
func CoderURL(name string) string {
	return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d", name, CoderNamespace, CoderPort)
}

// ProviderArgs compress the provider's time as test/e2e's TestMain does for
// the in-process provider, and for the same reasons; the sweep keeps its
// defaults.
func ProviderArgs() []string {
	return []string{
		"--debug",
		"--poll=3s",
		"--coder-timeout=2s",
		"--key-list-ttl=2s",
	}
}

// Scenario is a test/e2e scenario that runs on kind, and how many spare
// fake Coders it takes: the env.Cluster.SpareCoder calls it makes, which
// TestScenariosTakeTheSpareCodersTheyDeclare counts in its source.
type Scenario struct {
	Test   string
	Spares int
}

// Scenarios are the test/e2e scenarios that run on kind: the hold and
// records scenarios. Each is named whole, so a new test is not selected by
// a prefix without the spare fake Coders it takes.
var Scenarios = []Scenario{
	{Test: "TestClusterProviderConfigSecretHeldWhileItsNamespaceIsDeleted"},
	{Test: "TestCredentialsFinalizerLeavesARemovedCASecret"},
	{Test: "TestCredentialsFinalizerLeavesARepointedTokenSecret"},
	{Test: "TestCredentialsFinalizerLeavesSharedSecretsWhenNamespacesAreDeleted"},
	{Test: "TestCredentialsFinalizerLeavesWhenTheHoldIsStrippedByHand"},
	{Test: "TestCredentialsFinalizerLeavesWithTheLastProviderConfig"},
	{Test: "TestCredentialsFinalizerSharedByClusterAndLegacyProviderConfigs"},
	{Test: "TestFailedSweepIsRetriedWithinSeconds"},
	{Test: "TestHoldCountsOnlyTheDependentsOfItsOwnProviderConfig"},
	{Test: "TestHoldIsBoundedWhenDeletesKeepFailing"},
	{Test: "TestHoldKeepsTheFinalizerWhileCoderFailsThenDeletes"},
	{Test: "TestHoldKeepsTheProviderFinalizerWhileCoderFailsThenDeletes"},
	{Test: "TestHoldLetsAForegroundDeletionDeleteEverythingInCoder"},
	{Test: "TestHoldLetsDependentsDeleteWhenEverythingIsDeletedAtOnce"},
	{Test: "TestHoldReleasesAfterLiveDependentTimeout"},
	{Test: "TestHoldResumesAfterProviderRestart"},
	{Test: "TestHoldWhenEverythingIsDeletedAtOnceOnBothCoders"},
	{Test: "TestNamespaceDeletionIsBoundedWhileItsClusterProviderConfigCannotDelete"},
	{Test: "TestNamespaceDeletionWithCoderDownReleasesEarly"},
	{Test: "TestNamespaceDeletionWithCoderDownReleasesWithinUnreachableTimeout"},
	{Test: "TestNamespaceDeletionWithCoderStoppedIsSweptAfterRestartOnBothCoders"},
	{Test: "TestNamespaceDeletionWithCoderUpDeletesEverything"},
	{Test: "TestNamespaceDeletionWithCoderUpLeavesNoRowsOnBothCoders"},
	{Test: "TestOrphanLeavesNoRecord"},
	{Test: "TestProviderConfigWithSweepOffLeavesRecords", Spares: 1},
	{Test: "TestProviderKilledMidCreateLeavesOneKeyAndOneRecord"},
	{Test: "TestStrippedFinalizersLeaveRecordsThatAreSwept"},
	{Test: "TestSweepClears500AbandonedRecordsAndTheirKeysInBound"},
	{Test: "TestSweepDeletesTheLiveKeyWhenTheRecordedIDIsStale", Spares: 1},
	{Test: "TestSweepKeepsARecordWhileCoderStillListsItsObjectAfterTheDelete", Spares: 2},
	{Test: "TestSweepLeavesAProviderSomeoneElseCreatedLater", Spares: 1},
	{Test: "TestSweepNeverTouchesAnotherDeploymentsRecords", Spares: 1},
	{Test: "TestSweepRunsWhenAProviderConfigOfTheDeploymentTurnsReady", Spares: 1},
}

// ScenarioPattern is the go test -run pattern that selects Scenarios and
// nothing else.
func ScenarioPattern() string { return pattern(Scenarios) }

func pattern(scenarios []Scenario) string {
	names := make([]string, len(scenarios))
	for i, s := range scenarios {
		names[i] = s.Test
	}
	return "^(" + strings.Join(names, "|") + ")$"
}
