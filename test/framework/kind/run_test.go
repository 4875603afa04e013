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
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestKeepSaysWhenTheClusterStays(t *testing.T) {
	cases := map[string]struct {
		keep                     string
		afterSuccess, afterFails bool
		wantErr                  bool
	}{
		"Unset":     {keep: ""},
		"Zero":      {keep: "0"},
		"One":       {keep: "1", afterSuccess: true, afterFails: true},
		"OnFailure": {keep: "on-failure", afterFails: true},
		"Typo":      {keep: "on-fail", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k, err := ParseKeep(tc.keep)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseKeep(%q) = %v, want an error: %t", tc.keep, err, tc.wantErr)
			}
			if got := k.keeps(false); got != tc.afterSuccess {
				t.Errorf("KEEP=%s keeps the cluster after a passing run: %t, want %t", tc.keep, got, tc.afterSuccess)
			}
			if got := k.keeps(true); got != tc.afterFails {
				t.Errorf("KEEP=%s keeps the cluster after a failed run: %t, want %t", tc.keep, got, tc.afterFails)
			}
		})
	}
}

func TestWaitSaysWhyItTimedOut(t *testing.T) {
	cases := map[string]struct {
		err  error
		want string
	}{
		"NoErrorYet": {want: "(no error: the condition was just not met yet)"},
		"LastState":  {err: errors.New("Provider provider-coder: Healthy not True"), want: "(last: Provider provider-coder: Healthy not True)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := wait(context.Background(), 0, "the provider", func(context.Context) (bool, error) { return false, tc.err })
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "%!") {
				t.Fatalf("wait() = %v, want %q", err, tc.want)
			}
		})
	}
}

func provider(conds ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{}}}
	u.SetKind("Provider")
	u.SetName(ProviderName)
	c := make([]any, len(conds))
	for i := range conds {
		c[i] = conds[i]
	}
	_ = unstructured.SetNestedSlice(u.Object, c, "status", "conditions")
	return u
}

func TestConditionsTrueNamesWhatIsNotYet(t *testing.T) {
	installed := map[string]any{"type": "Installed", "status": "True", "reason": "ActivePackageRevision"}
	unhealthy := map[string]any{"type": "Healthy", "status": "False", "reason": "UnhealthyPackageRevision", "message": "cannot pull image"}
	healthy := map[string]any{"type": "Healthy", "status": "True", "reason": "HealthyPackageRevision"}

	if ok, err := conditionsTrue(provider(installed, healthy), "Installed", "Healthy"); !ok || err != nil {
		t.Errorf("conditionsTrue(installed, healthy) = %t, %v; want true", ok, err)
	}
	ok, err := conditionsTrue(provider(installed, unhealthy), "Installed", "Healthy")
	want := "Provider provider-coder: Healthy not True; conditions: Installed=True ActivePackageRevision; Healthy=False UnhealthyPackageRevision: cannot pull image"
	if ok || err == nil || err.Error() != want {
		t.Errorf("conditionsTrue(installed, unhealthy) = %t, %v; want false, %q", ok, err, want)
	}
	if _, err := conditionsTrue(provider(), "Installed"); err == nil || !strings.Contains(err.Error(), "no conditions") {
		t.Errorf("conditionsTrue(no status) = %v, want it to say there are no conditions", err)
	}
}

func TestFailedRunPrintsCrossplaneEventsOldestFirst(t *testing.T) {
	at := func(m int) metav1.Time { return metav1.NewTime(time.Date(2026, 1, 1, 10, m, 0, 0, time.UTC)) }
	events := []corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault}, LastTimestamp: at(2), Type: "Warning", Reason: "SyncPackage",
			InvolvedObject: corev1.ObjectReference{APIVersion: "pkg.crossplane.io/v1", Kind: "ProviderRevision", Name: "provider-coder-abc"}, Message: "cannot unpack\n", Count: 3},
		{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault}, LastTimestamp: at(0), Type: "Normal", Reason: "Starting",
			InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: "kind"}, Message: "not Crossplane's"},
		{ObjectMeta: metav1.ObjectMeta{Namespace: ProviderNamespace}, LastTimestamp: at(1), Type: "Warning", Reason: "BackOff",
			InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: "provider-coder-xyz"}, Message: "Back-off restarting"},
	}
	want := []string{
		"10:01:00 Warning BackOff Pod/provider-coder-xyz: Back-off restarting",
		"10:02:00 Warning SyncPackage ProviderRevision/provider-coder-abc: cannot unpack (x3)",
	}
	got := eventLines(events)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("eventLines() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTailKeepsTheLastLines(t *testing.T) {
	if got, want := tail("a\nb\nc\nd\n", 2), "[2 lines before]\nc\nd"; got != want {
		t.Errorf("tail() = %q, want %q", got, want)
	}
	if got, want := tail("a\nb\n", 5), "a\nb"; got != want {
		t.Errorf("tail() = %q, want %q", got, want)
	}
}

func TestTheRunSaysWhetherTheProviderStartedBeforeItsRole(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 2, 5, 0, time.UTC)
	role := SystemRoleName("provider-coder-1")
	if role != "crossplane:provider:provider-coder-1:system" {
		t.Errorf("SystemRoleName = %q", role)
	}
	for _, tc := range []struct {
		created time.Time
		want    string
	}{
		{at.Add(8 * time.Second), "started 8s before Crossplane's RBAC manager created " + role},
		{at, "started the second"},
		{at.Add(-3 * time.Second), "started 3s after"},
	} {
		if got := RoleRace("p", at, role, tc.created); !strings.Contains(got, tc.want) {
			t.Errorf("RoleRace(role created %s) = %q, want it to say %q", tc.created.Sub(at), got, tc.want)
		}
	}
}
