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

// Package e2e holds the scenario tests: the real provider, running the same
// code as the binary, against a real Kubernetes control plane (etcd,
// kube-apiserver, kube-controller-manager) and a fake Coder that behaves like
// the real server, or the real server itself; test/framework/testenv starts
// them.
package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/changelog"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
)

// env is the cluster every scenario in this package shares; each scenario
// works in namespaces of its own.
var env *testenv.Env

// changes is the change-log service the local provider sends its entries
// to; nil where the provider runs elsewhere (kind, Crossplane).
var changes *changelog.Receiver

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipping scenario tests in -short mode")
		os.Exit(0)
	}
	if kc := os.Getenv(kind.EnvKubeconfig); kc != "" {
		os.Exit(runOnKind(m, kc))
	}
	if xpkg := os.Getenv(crossplane.EnvPackage); xpkg != "" {
		os.Exit(runOnCrossplane(m, xpkg))
	}
	if _, err := controlplane.BinDir(); err != nil {
		if os.Getenv(controlplane.EnvRequire) != "" {
			fmt.Fprintf(os.Stderr, "%s is set but the control plane is unavailable: %v\n", controlplane.EnvRequire, err)
			os.Exit(1)
		}
		fmt.Printf("skipping scenario tests: %v\n", err)
		os.Exit(0)
	}
	// The provider's defaults, sweep interval, sync period and REST client
	// included: the sweep must be prompt through its triggers, not a short
	// interval. Three knobs are compressed, each for a reason of its own.
	o := provider.DefaultOptions()
	o.Debug = true
	// Drift and a Coder that stopped answering are noticed at the next
	// poll; the scenarios that wait for one would wait a minute each.
	o.PollInterval = 3 * time.Second
	// The fake Coder's timeout faults hang a request until it times out;
	// 30s each would dominate the scenarios that inject them.
	o.CoderTimeout = 2 * time.Second
	// Scenarios that change keys behind the provider's back wait for the
	// next list; the TTL must stay below the poll interval, as 5s is below 1m.
	o.KeyListTTL = 2 * time.Second

	// Change logs on, as a team that audits its credentials runs the
	// provider: every scenario's creates, updates, deletes and releases
	// reach a change-log service, which the secret scan reads too.
	var err error
	if changes, err = changelog.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "cannot start the change-log service: %v\n", err)
		os.Exit(1)
	}
	o.EnableChangelogs, o.ChangelogsSocket = true, changes.Socket

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	start := time.Now()
	e, err := testenv.StartLocal(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot start the scenario environment: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("scenario environment up in %s\n", time.Since(start).Round(time.Millisecond))
	env = e
	code := checkSecrets(e, checkRBAC(e, m.Run()))
	if code != 0 || os.Getenv("PROVIDER_CODER_TEST_LOGS") != "" {
		// A shard of make test (hack/shard) writes a log of its own.
		name := "provider.log"
		if s := os.Getenv("PROVIDER_CODER_SHARD"); s != "" {
			name = "provider-shard-" + strings.ReplaceAll(s, "/", "-of-") + ".log"
		}
		_ = os.WriteFile(name, []byte(e.Logs.String()), 0o600)
		fmt.Printf("provider logs written to test/e2e/%s\n", name)
	}
	e.Stop()
	changes.Stop()
	testenv.StopRealCoder()
	os.Exit(code)
}

// runOnKind runs the hold and records scenarios against the cluster test/framework/kind
// set up; without -run, only those (kind.Scenarios), since the others drive
// an in-process fake Coder.
func runOnKind(m *testing.M, kubeconfig string) int {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
		_ = f.Value.Set(kind.ScenarioPattern())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	e, err := testenv.StartKind(ctx, kubeconfig)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot use the kind cluster of %s: %v\n", kubeconfig, err)
		return 1
	}
	fmt.Printf("scenarios run against the cluster of %s (%s)\n", kubeconfig, kind.EnvKubeconfig)
	env = e
	return checkRBAC(e, m.Run())
}

// checkRBAC fails the run when the provider's RBAC refused anything: it runs
// with exactly what its package gets, so a missing rule must not hide behind
// a retry that happens to succeed some other way. A denial whose binding
// names a ClusterRole that did not exist yet is told apart: the provider ran
// before Crossplane's RBAC manager created its role, a start-up race the
// provider waits out (internal/provider.WaitForGrant), not a missing rule.
func checkRBAC(e *testenv.Env, code int) int {
	denied := e.RBACFailures()
	if len(denied) == 0 {
		return code
	}
	var race, rules []string
	roles := map[string]int{}
	for _, d := range denied {
		if role, ok := packagerbac.MissingRole(d); ok {
			race = append(race, d)
			roles[role]++
			continue
		}
		rules = append(rules, d)
	}
	if len(race) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: RBAC refused the provider %d times because the ClusterRole its binding names did not exist (%v): "+
			"it ran before Crossplane's RBAC manager created the role, a start-up race it should have waited out:\n", len(race), roles)
		printDenials(race)
	}
	if len(rules) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: RBAC refused the provider %d times; examples/install/rbac.yaml lacks a rule:\n", len(rules))
		printDenials(rules)
	}
	return 1
}

func printDenials(denied []string) {
	for i, d := range denied {
		if i == 20 {
			fmt.Fprintf(os.Stderr, "  ... and %d more\n", len(denied)-i)
			break
		}
		fmt.Fprintf(os.Stderr, "  %s\n", d)
	}
}

// runOnCrossplane runs the hold and records scenarios (kind.Scenarios,
// unless -run says otherwise) against StartCrossplane's cluster.
func runOnCrossplane(m *testing.M, xpkg string) int {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
		_ = f.Value.Set(kind.ScenarioPattern())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	e, err := testenv.StartCrossplane(ctx, xpkg)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot install the provider through Crossplane: %v\n", err)
		return 1
	}
	env = e
	defer e.Stop()
	fmt.Printf("scenarios run against the provider Crossplane installed from %s\n", xpkg)
	code := checkRBAC(e, m.Run())
	return testenv.CrossplaneRan(e, code)
}
