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

package config

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

func TestMemoryReusesFreshChecksKeepsTheUnreachableClockAndCountsHolds(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	a := providerconfig.Ref{GroupKind: schema.GroupKind{Group: "coder.m.crossplane.io", Kind: "ProviderConfig"}, Namespace: "team-a", Name: "a"}
	b := a
	b.Name = "b"
	m := &configStates{m: map[providerconfig.Ref]*configState{}}
	key := coderCheckKey{generation: 1, client: "x"}

	if _, ok := m.lastCheck(a, key, t0, time.Minute); ok {
		t.Error("a check before any was made")
	}
	m.putCheck(a, coderCheck{key: key, at: t0, version: "v2.36.0", condition: xpv2.Available()})
	if c, ok := m.lastCheck(a, key, t0.Add(59*time.Second), time.Minute); !ok || c.version != "v2.36.0" {
		t.Errorf("check within the poll interval: got %+v, %v", c, ok)
	}
	if _, ok := m.lastCheck(a, key, t0.Add(time.Minute), time.Minute); ok {
		t.Error("a check as old as the poll interval was reused")
	}
	if _, ok := m.lastCheck(a, coderCheckKey{generation: 2, client: "x"}, t0, time.Minute); ok {
		t.Error("a check of an older generation was reused")
	}
	// A failed check is reused only as long as the requeue of a
	// ProviderConfig that is not Ready: Coder may answer again.
	m.putCheck(b, coderCheck{key: key, at: t0, condition: xpv2.Unavailable()})
	if _, ok := m.lastCheck(b, key, t0.Add(9*time.Second), time.Minute); !ok {
		t.Error("a failed check was not reused within the requeue of a ProviderConfig that is not Ready")
	}
	if _, ok := m.lastCheck(b, key, t0.Add(unreadyRecheck), time.Minute); ok {
		t.Errorf("a failed check was reused for longer than %s", unreadyRecheck)
	}

	if got := m.unreachableSince(a, t0); !got.Equal(t0) {
		t.Errorf("unreachable clock started at %s, want %s", got, t0)
	}
	if got := m.unreachableSince(a, t0.Add(10*time.Second)); !got.Equal(t0) {
		t.Errorf("unreachable clock restarted: %s, want %s", got, t0)
	}
	m.reachable(a)
	if got := m.unreachableSince(a, t0.Add(20*time.Second)); !got.Equal(t0.Add(20 * time.Second)) {
		t.Errorf("unreachable clock after an answer: %s", got)
	}

	gauge := func() string {
		t.Helper()
		mfs, err := metrics.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "provider_coder_hold_providerconfigs" {
				return mf.GetMetric()[0].GetGauge().String()
			}
		}
		return "missing"
	}
	m.setHolding(a, true, false)
	m.setHolding(b, true, false)
	m.setHolding(b, true, false)
	if g := gauge(); !strings.Contains(g, "value:2") {
		t.Errorf("holding gauge with two holding: %s", g)
	}
	// A ProviderConfig that vanished while holding no longer counts.
	m.forget(a)
	if g := gauge(); !strings.Contains(g, "value:1") {
		t.Errorf("holding gauge after one was forgotten: %s", g)
	}
	// A hold in its grace is near its bound; a released one is not.
	m.setHolding(b, true, true)
	if g := testutil.ToFloat64(holdingInGrace()); g != 1 {
		t.Errorf("grace gauge with one hold in its grace: %v, want 1", g)
	}
	m.setHolding(b, false, true)
	if g := testutil.ToFloat64(holdingInGrace()); g != 0 {
		t.Errorf("grace gauge after the release: %v, want 0", g)
	}
}

// holdingInGrace reads provider_coder_hold_grace_providerconfigs.
func holdingInGrace() prometheus.Collector {
	return gaugeFunc(func() float64 {
		mfs, _ := metrics.Registry.Gather()
		for _, mf := range mfs {
			if mf.GetName() == "provider_coder_hold_grace_providerconfigs" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return -1
	})
}

func gaugeFunc(f func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "read"}, f)
}

func TestMemoryTellsWhenAProviderConfigCanSweepANewDeployment(t *testing.T) {
	ref := providerconfig.Ref{GroupKind: schema.GroupKind{Group: "coder.m.crossplane.io", Kind: "ProviderConfig"}, Namespace: "team-a", Name: "a"}
	cases := map[string]struct {
		reason string
		before []string
		now    string
		want   bool
	}{
		"FirstReady": {
			reason: "The first Ready after the provider starts can sweep what waited for it.",
			now:    "dep-a",
			want:   true,
		},
		"StillReady": {
			reason: "Staying Ready for the same deployment triggers nothing.",
			before: []string{"dep-a"},
			now:    "dep-a",
		},
		"ReadyAgain": {
			reason: "Ready again after Coder stopped answering.",
			before: []string{"dep-a", ""},
			now:    "dep-a",
			want:   true,
		},
		"OtherDeployment": {
			reason: "A change of deployment id can sweep the new deployment's records.",
			before: []string{"dep-a"},
			now:    "dep-b",
			want:   true,
		},
		"NotReady": {
			reason: "Turning not Ready triggers nothing.",
			before: []string{"dep-a"},
			now:    "",
		},
		"NeverReady": {
			reason: "Never Ready triggers nothing.",
			now:    "",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &configStates{m: map[providerconfig.Ref]*configState{}}
			for _, d := range tc.before {
				m.readyFor(ref, d)
			}
			if got := m.readyFor(ref, tc.now); got != tc.want {
				t.Errorf("%s\nreadyFor(%q) after %q = %v, want %v", tc.reason, tc.now, tc.before, got, tc.want)
			}
		})
	}
}

func TestSweepsForIsTheDeploymentOfAReadyProviderConfigThatSweeps(t *testing.T) {
	ready := coderCheck{condition: xpv2.Available(), deploymentID: "dep-a"}
	cases := map[string]struct {
		reason string
		sweep  *bool
		c      coderCheck
		want   string
	}{
		"Ready":        {reason: "A Ready ProviderConfig sweeps its deployment.", c: ready, want: "dep-a"},
		"SweepOff":     {reason: "spec.sweep false sweeps nothing.", sweep: ptr.To(false), c: ready},
		"NotReady":     {reason: "A ProviderConfig that is not Ready sweeps nothing.", c: coderCheck{condition: xpv2.Unavailable(), deploymentID: "dep-a"}},
		"SweepDefault": {reason: "spec.sweep true is the default.", sweep: ptr.To(true), c: ready, want: "dep-a"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pc := &namespacedv1alpha1.ProviderConfig{}
			pc.Spec.Sweep = tc.sweep
			if got := sweepsFor(pc, tc.c); got != tc.want {
				t.Errorf("%s\nsweepsFor(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
