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

package testenv

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
)

// Replicated is a cluster whose provider can run as the install guide runs
// it, two replicas of which one leads: only kind runs the provider as pods.
type Replicated interface {
	// RunAsInstalled runs the provider with the install guide's
	// DeploymentRuntimeConfig (kind.InstallGuideRuntimeConfig) until t
	// ends, then as before; it returns once both replicas are ready and
	// one holds the lease.
	RunAsInstalled(t *testing.T)
	// ProviderPods are the ready provider pods' names.
	ProviderPods(t *testing.T) []string
	// Leader is the name of the pod that holds the provider's lease.
	Leader(t *testing.T) string
	// Lease is the provider's lease as its holder last wrote it.
	Lease(t *testing.T) LeaseTimes
	// PodMetrics gathers one provider pod's metrics.
	PodMetrics(ctx context.Context, pod string) ([]*dto.MetricFamily, error)
	// KillPod deletes a provider pod without a grace period, as a crash or
	// a node loss would, its logs kept first.
	KillPod(t *testing.T, pod string)
	// KillContainer kills the provider's process in pod's container with
	// SIGKILL (kill -9), as a crash or the OOM killer would: the pod
	// stays, kubelet restarts the container, whose log before is the
	// pod's previous log. It returns once the process is dead.
	KillContainer(t *testing.T, pod string)
	// PodMemory is the memory of pod's running container as its cgroup
	// counts it: the peak since it started and the usage now, in bytes.
	PodMemory(ctx context.Context, pod string) (peak, now int64, err error)
	// PodRestarts is how often pod's container restarted and why it last
	// ended (OOMKilled, Error), "" if never.
	PodRestarts(t *testing.T, pod string) (int32, string)
}

// EnvMemoryLimit, when set, replaces the install guide's memory limit in
// RunAsInstalled: to watch the memory scenario fail below what the provider
// needs.
const EnvMemoryLimit = "PROVIDER_CODER_E2E_MEMORY_LIMIT"

var drcGVK = unstructured.Unstructured{Object: map[string]any{"apiVersion": "pkg.crossplane.io/v1beta1", "kind": "DeploymentRuntimeConfig"}}

func (c *kindCluster) RunAsInstalled(t *testing.T) {
	t.Helper()
	guide, err := kind.InstallGuideRuntimeConfig(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	if limit := os.Getenv(EnvMemoryLimit); limit != "" {
		if err := kind.SetMemoryLimit(guide, limit); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s=%s replaces the install guide's memory limit", EnvMemoryLimit, limit)
	}
	drc := drcGVK.DeepCopy()
	if err := c.kube.Get(t.Context(), client.ObjectKey{Name: guide.GetName()}, drc); err != nil {
		t.Fatalf("cannot read the DeploymentRuntimeConfig %s make e2e applied: %v", guide.GetName(), err)
	}
	before := drc.Object["spec"]
	setSpec := func(ctx context.Context, spec any) error {
		d := drcGVK.DeepCopy()
		if err := c.kube.Get(ctx, client.ObjectKey{Name: guide.GetName()}, d); err != nil {
			return err
		}
		d.Object["spec"] = spec
		return c.kube.Update(ctx, d)
	}
	if err := setSpec(t.Context(), guide.Object["spec"]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := setSpec(ctx, before); err != nil {
			t.Errorf("cannot put the DeploymentRuntimeConfig back: %v", err)
			return
		}
		// t.Context() is done once cleanups run.
		c.waitPods(ctx, t, "one provider pod as make e2e runs it", func(pods []corev1.Pod) bool {
			return len(pods) == 1 && !leaderElected(pods[0])
		})
	})
	c.waitPods(t.Context(), t, "two ready provider pods with --leader-election", func(pods []corev1.Pod) bool {
		return len(pods) == 2 && leaderElected(pods[0]) && leaderElected(pods[1])
	})
	Eventually(t, 2*time.Minute, "one of them to hold the lease", func() (bool, string) {
		l, err := c.leader(t.Context())
		return err == nil && slices.Contains(c.ProviderPods(t), l), fmt.Sprintf("holder %q (%v)", l, err)
	})
}

func leaderElected(p corev1.Pod) bool {
	return len(p.Spec.Containers) > 0 && slices.Contains(p.Spec.Containers[0].Args, "--leader-election")
}

// waitPods waits until the provider's pods, all of them, are ready and
// satisfy ok: none is terminating or starting.
func (c *kindCluster) waitPods(ctx context.Context, t *testing.T, what string, ok func([]corev1.Pod) bool) {
	t.Helper()
	Eventually(t, 3*time.Minute, what, func() (bool, string) {
		l, err := c.cs.CoreV1().Pods(kind.ProviderNamespace).List(ctx, metav1.ListOptions{LabelSelector: kind.ProviderPodSelector})
		if err != nil {
			return false, err.Error()
		}
		var states []string
		for i := range l.Items {
			p := &l.Items[i]
			if p.DeletionTimestamp != nil || !kind.PodReady(p) {
				return false, "pod " + p.Name + " is not ready or terminating"
			}
			states = append(states, fmt.Sprintf("%s %q", p.Name, p.Spec.Containers[0].Args))
		}
		return ok(l.Items), strings.Join(states, "; ")
	})
}

func (c *kindCluster) ProviderPods(t *testing.T) []string {
	t.Helper()
	l, err := c.cs.CoreV1().Pods(kind.ProviderNamespace).List(t.Context(), metav1.ListOptions{LabelSelector: kind.ProviderPodSelector})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range l.Items {
		if p := &l.Items[i]; p.DeletionTimestamp == nil && kind.PodReady(p) {
			names = append(names, p.Name)
		}
	}
	return names
}

func (c *kindCluster) Leader(t *testing.T) string {
	t.Helper()
	l, err := c.leader(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// leader reads the lease's holder: controller-runtime names it
// <pod name>_<uuid>.
func (c *kindCluster) leader(ctx context.Context) (string, error) {
	l, err := c.lease(ctx)
	return l.Holder, err
}

// LeaseTimes are what a lease's holder wrote, by its clock (the host's, on
// kind).
type LeaseTimes struct {
	Holder string // the pod's name
	// Identity is the holder's whole identity, <pod name>_<uuid>: a new
	// one for each process, so a container restarted in the same pod
	// holds the lease under another.
	Identity          string
	Duration          time.Duration
	Acquired, Renewed time.Time
}

func (c *kindCluster) Lease(t *testing.T) LeaseTimes {
	t.Helper()
	l, err := c.lease(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (c *kindCluster) lease(ctx context.Context) (LeaseTimes, error) {
	l, err := c.cs.CoordinationV1().Leases(kind.ProviderNamespace).Get(ctx, kind.LeaderLease, metav1.GetOptions{})
	if err != nil {
		return LeaseTimes{}, err
	}
	var out LeaseTimes
	if l.Spec.HolderIdentity != nil {
		out.Identity = *l.Spec.HolderIdentity
		out.Holder, _, _ = strings.Cut(*l.Spec.HolderIdentity, "_")
	}
	if l.Spec.LeaseDurationSeconds != nil {
		out.Duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	if l.Spec.AcquireTime != nil {
		out.Acquired = l.Spec.AcquireTime.Time
	}
	if l.Spec.RenewTime != nil {
		out.Renewed = l.Spec.RenewTime.Time
	}
	return out, nil
}

func (c *kindCluster) PodMetrics(ctx context.Context, pod string) ([]*dto.MetricFamily, error) {
	b, err := c.cs.CoreV1().Pods(kind.ProviderNamespace).ProxyGet("http", pod, fmt.Sprint(kind.MetricsPort), "metrics", nil).DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	return parseMetrics(b)
}

func (c *kindCluster) KillPod(t *testing.T, name string) {
	t.Helper()
	p, err := c.cs.CoreV1().Pods(kind.ProviderNamespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.logs.Retire(t.Context(), p); err != nil {
		t.Fatalf("cannot keep the logs of the provider pod before deleting it: %v", err)
	}
	if err := c.cs.CoreV1().Pods(p.Namespace).Delete(t.Context(), p.Name, *metav1.NewDeleteOptions(0)); err != nil {
		t.Fatal(err)
	}
}

// runningContainer is the containerd id of pod's running container.
func (c *kindCluster) runningContainer(ctx context.Context, name string) (string, error) {
	p, err := c.cs.CoreV1().Pods(kind.ProviderNamespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Running == nil {
		return "", fmt.Errorf("provider pod %s has no running container", name)
	}
	return kind.ContainerID(p.Status.ContainerStatuses[0].ContainerID)
}

func (c *kindCluster) KillContainer(t *testing.T, name string) {
	t.Helper()
	id, err := c.runningContainer(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := kind.OnNode(t.Context(), kind.KillScript(id))
	if err != nil {
		t.Fatalf("cannot kill -9 the provider in pod %s: %v", name, err)
	}
	t.Logf("kill -9 %s: the process of pod %s's container %.12s", pids, name, id)
}

func (c *kindCluster) PodMemory(ctx context.Context, name string) (peak, now int64, err error) {
	id, err := c.runningContainer(ctx, name)
	if err != nil {
		return 0, 0, err
	}
	out, err := kind.OnNode(ctx, kind.MemoryScript(id))
	if err != nil {
		return 0, 0, err
	}
	return kind.ParseMemory(out)
}

func (c *kindCluster) PodRestarts(t *testing.T, name string) (int32, string) {
	t.Helper()
	p, err := c.cs.CoreV1().Pods(kind.ProviderNamespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Status.ContainerStatuses) == 0 {
		return 0, ""
	}
	st := p.Status.ContainerStatuses[0]
	why := ""
	if st.LastTerminationState.Terminated != nil {
		why = st.LastTerminationState.Terminated.Reason
	}
	return st.RestartCount, why
}
