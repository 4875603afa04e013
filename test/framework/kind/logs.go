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
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// LogReader reads the log of one container of pod: the running one, or with
// previous the one before its last restart.
type LogReader func(ctx context.Context, pod *corev1.Pod, container string, previous bool) (string, error)

// APILogReader reads logs through the pods/log API.
func APILogReader(cs kubernetes.Interface) LogReader {
	return func(ctx context.Context, pod *corev1.Pod, container string, previous bool) (string, error) {
		b, err := cs.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: container, Previous: previous}).DoRaw(ctx)
		return string(b), err
	}
}

// ContainerLog is one container's log.
type ContainerLog struct {
	Pod, Container string
	// Previous is the log of the container before its last restart.
	Previous bool
	Log      string
}

// PodLogs reads every container's log of pod that has one: the previous
// container's first where it restarted, then the current one's. A container
// that never started has none and is left out.
func PodLogs(ctx context.Context, read LogReader, pod *corev1.Pod) ([]ContainerLog, error) {
	var out []ContainerLog
	for _, st := range pod.Status.ContainerStatuses {
		for _, previous := range []bool{true, false} {
			if previous && st.RestartCount == 0 || !previous && st.State.Running == nil && st.State.Terminated == nil {
				continue
			}
			l, err := read(ctx, pod, st.Name, previous)
			if err != nil {
				return out, fmt.Errorf("cannot read the log of %s/%s container %s (previous: %t): %w", pod.Namespace, pod.Name, st.Name, previous, err)
			}
			out = append(out, ContainerLog{Pod: pod.Name, Container: st.Name, Previous: previous, Log: l})
		}
	}
	return out, nil
}

// ProviderLogs keeps the logs of every provider pod of a run. A deleted pod
// takes its logs with it, so whoever deletes one (a scenario restarting the
// provider) hands it to Retire first; All then reads the retired pods' logs
// and every current pod's, so that an RBAC denial logged by a pod replaced
// during the run is still found. A pod that goes without Retire (one
// Crossplane replaces on its own) takes its logs with it.
type ProviderLogs struct {
	cs   kubernetes.Interface
	read LogReader

	mu      sync.Mutex
	retired []string
	gone    map[types.UID]bool
}

// NewProviderLogs reads the logs of the provider pods of cs with read.
func NewProviderLogs(cs kubernetes.Interface, read LogReader) *ProviderLogs {
	return &ProviderLogs{cs: cs, read: read, gone: map[types.UID]bool{}}
}

// Retire keeps pod's logs, read now, for All; the caller deletes it next.
func (l *ProviderLogs) Retire(ctx context.Context, pod *corev1.Pod) error {
	logs, err := PodLogs(ctx, l.read, pod)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gone[pod.UID] {
		return err
	}
	l.gone[pod.UID] = true
	l.retired = append(l.retired, joinLogs(logs))
	return err
}

// All is the logs of every provider pod of the run so far: the retired
// pods' in the order they were retired, then the current pods' from the
// oldest. It only grows, so an offset into it stays valid across restarts.
func (l *ProviderLogs) All(ctx context.Context) (string, error) {
	pods, err := l.cs.CoreV1().Pods(ProviderNamespace).List(ctx, metav1.ListOptions{LabelSelector: ProviderPodSelector})
	if err != nil {
		return "", err
	}
	items := pods.Items
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].CreationTimestamp.Equal(&items[j].CreationTimestamp) {
			return items[i].CreationTimestamp.Before(&items[j].CreationTimestamp)
		}
		return items[i].Name < items[j].Name
	})
	l.mu.Lock()
	var b strings.Builder
	for _, r := range l.retired {
		b.WriteString(r)
	}
	gone := make(map[types.UID]bool, len(l.gone))
	for uid := range l.gone {
		gone[uid] = true
	}
	l.mu.Unlock()
	for i := range items {
		if gone[items[i].UID] {
			continue
		}
		logs, err := PodLogs(ctx, l.read, &items[i])
		if err != nil {
			return b.String(), err
		}
		b.WriteString(joinLogs(logs))
	}
	return b.String(), nil
}

func joinLogs(logs []ContainerLog) string {
	var b strings.Builder
	for _, l := range logs {
		b.WriteString(l.Log)
		if l.Log != "" && !strings.HasSuffix(l.Log, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
