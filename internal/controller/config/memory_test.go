package config

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

func TestMemory(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	a := providerconfig.Ref{GroupKind: schema.GroupKind{Group: "coder.m.crossplane.io", Kind: "ProviderConfig"}, Namespace: "team-a", Name: "a"}
	b := a
	b.Name = "b"
	m := &memory{m: map[providerconfig.Ref]*remembered{}}
	key := checkKey{generation: 1, client: "x"}

	if _, ok := m.check(a, key, t0, time.Minute); ok {
		t.Error("a check before any was made")
	}
	m.putCheck(a, check{key: key, at: t0, version: "v2.36.0"})
	if c, ok := m.check(a, key, t0.Add(59*time.Second), time.Minute); !ok || c.version != "v2.36.0" {
		t.Errorf("check within the poll interval: got %+v, %v", c, ok)
	}
	if _, ok := m.check(a, key, t0.Add(time.Minute), time.Minute); ok {
		t.Error("a check as old as the poll interval was reused")
	}
	if _, ok := m.check(a, checkKey{generation: 2, client: "x"}, t0, time.Minute); ok {
		t.Error("a check of an older generation was reused")
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
	m.setHolding(a, true)
	m.setHolding(b, true)
	m.setHolding(b, true)
	if g := gauge(); !strings.Contains(g, "value:2") {
		t.Errorf("holding gauge with two holding: %s", g)
	}
	// A ProviderConfig that vanished while holding no longer counts.
	m.forget(a)
	if g := gauge(); !strings.Contains(g, "value:1") {
		t.Errorf("holding gauge after one was forgotten: %s", g)
	}
}
