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
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// providerPod is a provider pod as Crossplane labels it; restarts > 0 means
// its container ran before.
func providerPod(name string, created time.Time, restarts int32, running bool) *corev1.Pod {
	st := corev1.ContainerStatus{Name: "package-runtime", RestartCount: restarts}
	if running {
		st.State.Running = &corev1.ContainerStateRunning{}
	} else {
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ProviderNamespace, Name: name, UID: types.UID(name + "-uid"),
			Labels:            map[string]string{"pkg.crossplane.io/provider": ProviderName},
			CreationTimestamp: metav1.NewTime(created),
		},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{st}},
	}
}

// TestProviderLogsKeepWhatReplacedPodsLogged follows a run in which a
// scenario restarts the provider and the new pod's container restarts too:
// the denials of the deleted pod and of the container before its restart
// must still be in All.
func TestProviderLogsKeepWhatReplacedPodsLogged(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	first := providerPod("provider-a", t0, 0, true)
	cs := fake.NewClientset(first)
	read := func(_ context.Context, pod *corev1.Pod, container string, previous bool) (string, error) {
		if container != "package-runtime" {
			return "", fmt.Errorf("no container %s", container)
		}
		if previous {
			return pod.Name + " before its restart: forbidden\n", nil
		}
		return pod.Name + " now\n", nil
	}
	logs := NewProviderLogs(cs, read)

	before, err := logs.All(ctx)
	if err != nil || before != "provider-a now\n" {
		t.Fatalf("All() = %q, %v; want the one pod's log", before, err)
	}
	// RestartProvider: retire, delete, and Crossplane's replacement comes up
	// (its container already restarted once), with one more still starting.
	if err := logs.Retire(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := logs.Retire(ctx, first); err != nil { // retiring twice keeps one copy
		t.Fatal(err)
	}
	if err := cs.CoreV1().Pods(ProviderNamespace).Delete(ctx, first.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*corev1.Pod{providerPod("provider-c", t0.Add(2*time.Minute), 0, false), providerPod("provider-b", t0.Add(time.Minute), 1, true)} {
		if _, err := cs.CoreV1().Pods(ProviderNamespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	got, err := logs.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := "provider-a now\nprovider-b before its restart: forbidden\nprovider-b now\n"
	if got != want {
		t.Errorf("All() = %q, want %q", got, want)
	}
	if !strings.HasPrefix(got, before) {
		t.Errorf("All() = %q no longer starts with the earlier %q: an offset into it would be wrong", got, before)
	}
}
