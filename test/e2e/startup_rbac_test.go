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

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// The provider's lines around its wait for RBAC (internal/provider.WaitForGrant).
const (
	logWaitingForRBAC = "Waiting for RBAC to let the provider list and watch its own cleanup records"
	logGranted        = "RBAC now lets the provider list and watch its own cleanup records"
	logStarting       = "Starting provider-coder"
	logStartAll       = "may not get, list and watch CustomResourceDefinitions"
)

// TestAProviderStartedBeforeItsClusterRoleWaitsForIt recreates the start-up
// race of an install on kind: Crossplane's package manager starts the
// provider's pod, and its RBAC manager creates the ClusterRole
// crossplane:provider:<revision>:system the binding names only later. The
// provider waits for it, refused nothing, and then starts with the CRD gate
// (SafeStart), not every kind at once. The RBAC manager is stopped, the
// node cordoned while the provider's pod is replaced and the role deleted,
// so that the new pod starts without its role whatever the timing.
func TestAProviderStartedBeforeItsClusterRoleWaitsForIt(t *testing.T) {
	ha, ok := env.Cluster.(testenv.Replicated)
	if !ok {
		t.Skip("only the kind cluster runs Crossplane's RBAC manager and the provider as pods (make e2e)")
	}
	ctx := t.Context()
	pods := ha.ProviderPods(t)
	if len(pods) == 0 {
		t.Fatal("no ready provider pod")
	}
	pod := &corev1.Pod{}
	if err := env.Kube.Get(ctx, client.ObjectKey{Namespace: kind.ProviderNamespace, Name: pods[0]}, pod); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: kind.SystemRoleName(pod.Labels["pkg.crossplane.io/revision"])}}
	if !env.Get(t, role) {
		t.Fatalf("the provider's ClusterRole %s does not exist before the scenario", role.Name)
	}

	scaleRBACManager(t, 0)
	t.Cleanup(func() {
		// t.Context() is done once cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		setUnschedulable(ctx, t, false)
		if err := setRBACManagerReplicas(ctx, 1); err != nil {
			t.Errorf("cannot start Crossplane's RBAC manager again: %v", err)
		}
	})
	setUnschedulable(ctx, t, true)
	for _, p := range pods {
		ha.KillPod(t, p)
	}
	from := len(env.Cluster.ProviderLogs(t))
	env.Delete(t, role)
	env.WaitGone(t, role, testenv.WaitLong)
	setUnschedulable(ctx, t, false)
	started := time.Now()

	since := func() string { return env.Cluster.ProviderLogs(t)[from:] }
	testenv.Eventually(t, 2*time.Minute, "the new provider pod to say it waits for RBAC", func() (bool, string) {
		return strings.Contains(since(), logWaitingForRBAC), fmt.Sprintf("%d pods ready", len(ha.ProviderPods(t)))
	})
	t.Logf("the new pod waits for its ClusterRole, %s after the node took pods again", time.Since(started).Round(100*time.Millisecond))
	testenv.Never(t, 10*time.Second, "the provider refused by RBAC, or started, before its ClusterRole exists", func() (bool, string) {
		l := since()
		if d := packagerbac.LoggedDenials(l); len(d) > 0 {
			return true, fmt.Sprintf("%d denials, the first: %s", len(d), d[0])
		}
		return strings.Contains(l, logStarting), "it started"
	})

	granting := time.Now()
	scaleRBACManager(t, 1)
	testenv.Eventually(t, 2*time.Minute, "Crossplane's RBAC manager to create "+role.Name+" again", func() (bool, string) {
		return env.Get(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}}), "no role"
	})
	testenv.Eventually(t, time.Minute, "the provider to start once granted", func() (bool, string) {
		l := since()
		return strings.Contains(l, logGranted) && strings.Contains(l, logStarting), "not started"
	})
	t.Logf("the provider started %s after Crossplane's RBAC manager did", time.Since(granting).Round(100*time.Millisecond))
	l := since()
	if d := packagerbac.LoggedDenials(l); len(d) > 0 {
		t.Errorf("RBAC refused the provider %d times around its start, the first: %s", len(d), d[0])
	}
	if strings.Contains(l, logStartAll) {
		t.Errorf("the provider decided it may not read CRDs (%q) and started every kind at once: SafeStart's gate was decided before its role existed", logStartAll)
	}

	// And it works: a key through a new ProviderConfig.
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, env.Cluster.Coder(t), nil)
	k := newKey(ns, "after-the-race")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
}

const rbacManager = "crossplane-rbac-manager"

// scaleRBACManager sets the replicas of Crossplane's RBAC manager and waits
// until that many of its pods run.
func scaleRBACManager(t *testing.T, n int32) {
	t.Helper()
	if err := setRBACManagerReplicas(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 2*time.Minute, fmt.Sprintf("%d pods of %s", n, rbacManager), func() (bool, string) {
		l := &corev1.PodList{}
		if err := env.Kube.List(t.Context(), l, client.InNamespace(kind.ProviderNamespace), client.MatchingLabels{"app": rbacManager}); err != nil {
			return false, err.Error()
		}
		running := 0
		for _, p := range l.Items {
			if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
				running++
			}
		}
		return running == int(n), fmt.Sprintf("%d pods", running)
	})
}

func setRBACManagerReplicas(ctx context.Context, n int32) error {
	d := &appsv1.Deployment{}
	if err := env.Kube.Get(ctx, client.ObjectKey{Namespace: kind.ProviderNamespace, Name: rbacManager}, d); err != nil {
		return err
	}
	patch := client.MergeFrom(d.DeepCopy())
	d.Spec.Replicas = &n
	return env.Kube.Patch(ctx, d, patch)
}

// setUnschedulable cordons or uncordons every node.
func setUnschedulable(ctx context.Context, t *testing.T, on bool) {
	t.Helper()
	nodes := &corev1.NodeList{}
	if err := env.Kube.List(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		patch := client.MergeFrom(n.DeepCopy())
		n.Spec.Unschedulable = on
		if err := env.Kube.Patch(ctx, n, patch); err != nil && !kerrors.IsNotFound(err) {
			t.Errorf("cannot set node %s unschedulable=%t: %v", n.Name, on, err)
		}
	}
}
