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
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// crossplanePods selects Crossplane's own pods (core and RBAC manager).
const crossplanePods = "release=crossplane"

// logTail is how many lines of each container's log a failed run prints;
// the whole logs go to _output/kind/logs.
const logTail = 60

// diagnose prints what a failed run needs to be understood once the cluster
// is gone: the Provider's and its revisions' conditions, the events of
// crossplane-system and of Crossplane's package objects, and the tail of
// Crossplane's and the provider's logs. It reports what it cannot read and
// goes on.
func (r *runner) diagnose(ctx context.Context) {
	w := r.o.Out
	fmt.Fprintln(w, "==> the run failed; what the cluster says:")
	section := func(title string) { fmt.Fprintf(w, "--- %s\n", title) }

	section("Provider and ProviderRevision conditions")
	for _, kind := range []string{"Provider", "ProviderRevision"} {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("pkg.crossplane.io/v1")
		l.SetKind(kind + "List")
		if err := r.kube.List(ctx, l); err != nil {
			fmt.Fprintf(w, "cannot list %ss: %v\n", kind, err)
			continue
		}
		if len(l.Items) == 0 {
			fmt.Fprintf(w, "no %s\n", kind)
		}
		for i := range l.Items {
			fmt.Fprintf(w, "%s %s:\n", kind, l.Items[i].GetName())
			for _, line := range conditionLines(&l.Items[i]) {
				fmt.Fprintf(w, "  %s\n", line)
			}
		}
	}

	section("events of " + ProviderNamespace + " and of Crossplane's package objects")
	var events []corev1.Event
	for _, ns := range []string{ProviderNamespace, metav1.NamespaceDefault} {
		l := &corev1.EventList{}
		if err := r.kube.List(ctx, l, client.InNamespace(ns)); err != nil {
			fmt.Fprintf(w, "cannot list the events of %s: %v\n", ns, err)
			continue
		}
		events = append(events, l.Items...)
	}
	for _, line := range eventLines(events) {
		fmt.Fprintln(w, line)
	}

	dir := r.path("logs")
	section(fmt.Sprintf("Crossplane's and the provider's logs (last %d lines each; all of them in %s)", logTail, dir))
	if err := os.MkdirAll(dir, 0o750); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	for _, sel := range []string{crossplanePods, ProviderPodSelector} {
		pods, err := r.cs.CoreV1().Pods(ProviderNamespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			fmt.Fprintf(w, "cannot list the pods %s: %v\n", sel, err)
			continue
		}
		if len(pods.Items) == 0 {
			fmt.Fprintf(w, "no pod %s in %s\n", sel, ProviderNamespace)
		}
		for i := range pods.Items {
			logs, err := PodLogs(ctx, APILogReader(r.cs), &pods.Items[i])
			if err != nil {
				fmt.Fprintln(w, err)
			}
			for _, l := range logs {
				r.printLog(w, dir, l)
			}
		}
	}
}

func (r *runner) printLog(w io.Writer, dir string, l ContainerLog) {
	name := l.Pod + "_" + l.Container
	if l.Previous {
		name += "_previous"
	}
	file := filepath.Join(dir, name+".log")
	if err := os.WriteFile(file, []byte(l.Log), 0o600); err != nil {
		fmt.Fprintln(w, err)
	}
	fmt.Fprintf(w, "-- %s (%s):\n%s\n", name, file, tail(l.Log, logTail))
}

// conditionLines are the conditions of an object of Crossplane's, one a
// line: type, status, reason and message.
func conditionLines(u *unstructured.Unstructured) []string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	if len(conds) == 0 {
		return []string{"no conditions"}
	}
	out := make([]string, 0, len(conds))
	for _, c := range conds {
		m, _ := c.(map[string]any)
		line := fmt.Sprintf("%v=%v", m["type"], m["status"])
		if r, _ := m["reason"].(string); r != "" {
			line += " " + r
		}
		if msg, _ := m["message"].(string); msg != "" {
			line += ": " + msg
		}
		out = append(out, line)
	}
	return out
}

// eventLines are the events of crossplane-system and those of Crossplane's
// cluster-scoped package objects (which land in "default"), oldest first.
func eventLines(events []corev1.Event) []string {
	var keep []corev1.Event
	for _, e := range events {
		if e.Namespace == ProviderNamespace || strings.HasPrefix(e.InvolvedObject.APIVersion, "pkg.crossplane.io/") {
			keep = append(keep, e)
		}
	}
	sort.SliceStable(keep, func(i, j int) bool { return eventTime(keep[i]).Before(eventTime(keep[j])) })
	if len(keep) == 0 {
		return []string{"no events"}
	}
	out := make([]string, 0, len(keep))
	for _, e := range keep {
		line := fmt.Sprintf("%s %s %s %s/%s: %s", eventTime(e).UTC().Format(time.TimeOnly), e.Type, e.Reason,
			e.InvolvedObject.Kind, e.InvolvedObject.Name, strings.TrimSpace(e.Message))
		if e.Count > 1 {
			line += fmt.Sprintf(" (x%d)", e.Count)
		}
		out = append(out, line)
	}
	return out
}

func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return fmt.Sprintf("[%d lines before]\n%s", len(lines)-n, strings.Join(lines[len(lines)-n:], "\n"))
}
