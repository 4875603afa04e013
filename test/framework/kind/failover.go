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

package kind

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"
)

// The provider as the install guide runs it: two replicas, one leader.
const (
	// InstallGuide is the page whose DeploymentRuntimeConfig the failover
	// scenarios run.
	InstallGuide = "docs/how-to/install.md"
	// LeaderLease is the provider's leader election Lease in
	// ProviderNamespace (internal/provider: LeaderElectionID).
	LeaderLease = "crossplane-leader-election-provider-coder"
	// LeaseDuration and RetryPeriod are controller-runtime's defaults, which
	// the provider keeps: a replica takes a lease it saw go this long
	// without renewal, looking every RetryPeriod jittered by up to
	// RetryJitter times it (client-go's leaderelection.JitterFactor, 1.2:
	// wait.Jitter waits RetryPeriod plus up to 1.2 times it, 2 s to 4.4 s,
	// counted after each try returned).
	LeaseDuration = 15 * time.Second
	RetryPeriod   = 2 * time.Second
	RetryJitter   = 1.2
	// takeoverSlack is for the two tries' own round trips to the API
	// server (a GET and an UPDATE of the Lease each), which the sliding
	// jitter adds to the wait, on a node whose 2 CPUs are shared.
	takeoverSlack = time.Second
)

// MaxRetry is the longest a candidate waits between two tries for the lease.
func MaxRetry() time.Duration { return RetryPeriod + time.Duration(RetryJitter*float64(RetryPeriod)) }

// TakeoverBound is the latest another replica takes a crashed leader's
// lease after its last renewal, by the Lease's own times: a candidate
// counts LeaseDuration from when it saw the last renewal, which is at most
// one try after it was written, and takes the lease at its first try after
// that, at most one more try later. A crashed leader's lease cannot pass
// sooner than LeaseDuration.
func TakeoverBound() time.Duration { return LeaseDuration + 2*MaxRetry() + takeoverSlack }

// InstallGuideRuntimeConfig is the DeploymentRuntimeConfig of InstallGuide
// as written.
func InstallGuideRuntimeConfig(root string) (*unstructured.Unstructured, error) {
	page, err := os.ReadFile(filepath.Join(root, InstallGuide))
	if err != nil {
		return nil, err
	}
	blocks, err := docblocks.Blocks(page)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", InstallGuide, err)
	}
	for _, b := range blocks {
		if !b.YAML() {
			continue
		}
		for _, doc := range bytes.Split([]byte(b.Text), []byte("\n---\n")) {
			u := &unstructured.Unstructured{}
			// The guide also gives the runtime configuration named default,
			// for functions and packages that name none.
			if err := yaml.Unmarshal(doc, &u.Object); err != nil || u.GetKind() != "DeploymentRuntimeConfig" || u.GetName() != ProviderName {
				continue
			}
			return forFailover(u)
		}
	}
	return nil, fmt.Errorf("%s has no DeploymentRuntimeConfig named %s", InstallGuide, ProviderName)
}

// runtimeContainers is where a DeploymentRuntimeConfig lists its containers.
var runtimeContainers = []string{"spec", "deploymentTemplate", "spec", "template", "spec", "containers"}

// editRuntimeContainer hands edit the one container of the runtime
// configuration u, the package runtime, and writes back what edit left.
func editRuntimeContainer(u *unstructured.Unstructured, edit func(c map[string]any) error) error {
	containers, _, err := unstructured.NestedSlice(u.Object, runtimeContainers...)
	if err != nil {
		return fmt.Errorf("the DeploymentRuntimeConfig %s's containers: %w", u.GetName(), err)
	}
	var c map[string]any
	if len(containers) == 1 {
		c, _ = containers[0].(map[string]any)
	}
	if c == nil || c["name"] != "package-runtime" {
		return fmt.Errorf("the DeploymentRuntimeConfig %s has containers %v, want the package runtime alone", u.GetName(), containers)
	}
	if err := edit(c); err != nil {
		return err
	}
	return unstructured.SetNestedSlice(u.Object, []any{c}, runtimeContainers...)
}

// SetMemoryLimit replaces the memory limit of the runtime configuration's
// container.
func SetMemoryLimit(u *unstructured.Unstructured, limit string) error {
	l, err := resource.ParseQuantity(limit)
	if err != nil {
		return err
	}
	return editRuntimeContainer(u, func(c map[string]any) error {
		if err := unstructured.SetNestedField(c, limit, "resources", "limits", "memory"); err != nil {
			return err
		}
		// A request above the limit is refused: it goes down with it.
		if req, ok, _ := unstructured.NestedString(c, "resources", "requests", "memory"); ok {
			if r, err := resource.ParseQuantity(req); err == nil && r.Cmp(l) > 0 {
				return unstructured.SetNestedField(c, limit, "resources", "requests", "memory")
			}
		}
		return nil
	})
}

// forFailover checks the guide's runtime configuration is the one the failover
// scenarios need: the package runtime alone, with leader election.
func forFailover(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	err := editRuntimeContainer(u, func(c map[string]any) error {
		args, _, _ := unstructured.NestedStringSlice(c, "args")
		if !strings.Contains(strings.Join(args, " "), "--leader-election") {
			return fmt.Errorf("the DeploymentRuntimeConfig runs without --leader-election (args %q)", args)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", InstallGuide, err)
	}
	return u, nil
}

// FailoverScenarios run after Scenarios, in a go test of their own: they
// run the provider as the install guide does, two pods, which the others'
// one-pod helpers do not expect, or stop Crossplane's RBAC manager, and only
// kind runs pods. A second process
// starts its spare fake Coders from the first again (each is emptied when
// taken), so they take no more than Scenarios' SpareCoders.
var FailoverScenarios = []Scenario{
	{Test: "TestAProviderStartedBeforeItsClusterRoleWaitsForIt"},
	{Test: "TestLeaderFailoverDuringANamespaceDeletionDeletesEachObjectOnce", Spares: 1},
	{Test: "TestLeaderKilledInItsContainerDuringARotationsSettleWindowRotatesEachKeyOnce", Spares: 1},
	{Test: "TestLeaderKilledInItsContainerDuringTheSweepSweepsEachRecordOnce", Spares: 1},
}

// FailoverPattern is the go test -run pattern that selects FailoverScenarios.
func FailoverPattern() string { return pattern(FailoverScenarios) }

// MemoryScenarios run only when E2E_RUN selects them (E2E_RUN=MemoryPattern()
// make e2e): 5,000 keys created, held two polls and deleted take 12 min 25 s
// on the shared 2-core sandbox, more than the rest of make e2e's scenarios
// together. Their spare fake Coders count as the failover scenarios' do.
var MemoryScenarios = []Scenario{
	{Test: "TestTheProviderAtTheInstallGuidesLimitHolds5000KeysWithoutAnOOMKill", Spares: 1},
}

// MemoryPattern is the go test -run pattern that selects MemoryScenarios.
func MemoryPattern() string { return pattern(MemoryScenarios) }
