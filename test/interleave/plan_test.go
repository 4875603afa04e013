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

package interleave

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTheSameSeedGivesTheSamePlan(t *testing.T) {
	for _, f := range []Flavour{Fake, Real, RealUnlicensed} {
		for seed := range uint64(50) {
			if d := cmp.Diff(Generate(seed, f), Generate(seed, f)); d != "" {
				t.Fatalf("seed %d (%s): two plans differ (-first +second):\n%s", seed, f, d)
			}
		}
	}
	if cmp.Equal(Generate(1, Fake).Ops, Generate(2, Fake).Ops) {
		t.Error("seeds 1 and 2 give the same operations")
	}
}

func TestSomeFakePlansRunOnACoderClockApartFromTheClusters(t *testing.T) {
	seen := map[time.Duration]int{}
	for seed := range uint64(200) {
		seen[Generate(seed, Fake).ClockOffset]++
		for _, f := range []Flavour{Real, RealUnlicensed} {
			if d := Generate(seed, f).ClockOffset; d != 0 {
				t.Errorf("seed %d (%s): clock offset %s on the real Coder, which runs on this host's clock", seed, f, d)
			}
		}
	}
	for _, d := range clockOffsets {
		if seen[d] == 0 {
			t.Errorf("200 fake plans never run with Coder's clock %s from the cluster's", d)
		}
	}
}

func TestEveryPlanKillsTheProviderAndUsesOnlyFaultsItsCoderCanProduce(t *testing.T) {
	fakeOnly := map[OpKind]bool{OpCoderSlow: true, OpCoderStatus: true, OpCoderLoseAnswer: true, OpRepointURL: true, OpCoderLieID: true, OpOtherMimics: true}
	seen := map[OpKind]int{}
	for seed := range uint64(200) {
		for _, f := range []Flavour{Fake, Real, RealUnlicensed} {
			p := Generate(seed, f)
			if k := kills(p.Ops); k < MinKills {
				t.Errorf("seed %d (%s): %d kills, want at least %d", seed, f, k, MinKills)
			}
			for _, op := range p.Ops {
				if f.IsReal() && fakeOnly[op.Kind] {
					t.Errorf("seed %d: the real Coder's plan has %s, which only the fake can do", seed, op.Kind)
				}
				if f == Fake {
					seen[op.Kind]++
				}
			}
		}
	}
	all := []OpKind{OpCreate, OpDelete, OpStrip, OpRotate, OpDeletePC, OpRepointPC, OpDeleteNamespace, OpDeleteSecret,
		OpCoderDown, OpCoderUp, OpCoderSlow, OpCoderStatus, OpCoderLoseAnswer, OpRepointURL, OpCoderLieID, OpOtherMimics, OpKill, OpPoll}
	for _, k := range all {
		if seen[k] == 0 {
			t.Errorf("200 fake plans never use %s", k)
		}
	}
}

func TestWorldsHaveEveryKindOfProviderConfigAndResource(t *testing.T) {
	var pcs [3]int
	var orphan, observe, imported, rotating, cluster, providers, mcps int
	for seed := range uint64(100) {
		w := Generate(seed, Fake).World
		if len(w.Namespaces) < 2 || len(w.Namespaces) > 3 {
			t.Errorf("seed %d: %d namespaces, want 2 or 3", seed, len(w.Namespaces))
		}
		for _, pc := range w.PCs {
			pcs[pc.Kind]++
		}
		n := 0
		for _, m := range w.MRs {
			switch {
			case m.Import:
				n++
				imported++
				if m.ObserveOnly {
					observe++
				}
			case m.Orphan:
				orphan++
			}
			if m.Rotating {
				rotating++
			}
			if m.Namespace == "" {
				cluster++
			}
			if m.Kind == Provider {
				providers++
			}
			if m.Kind == MCP {
				mcps++
			}
			if m.ObserveOnly && !m.Import {
				t.Errorf("seed %d: %s only observes but imports nothing", seed, m.Name)
			}
		}
		if n != 1 {
			t.Errorf("seed %d: %d resources import, want 1", seed, n)
		}
	}
	for k, n := range pcs {
		if n == 0 {
			t.Errorf("no world has a ProviderConfig of kind %d", k)
		}
	}
	for what, n := range map[string]int{"Orphan": orphan, "observe-only": observe, "imported": imported, "rotating": rotating, "cluster-scoped": cluster, "AIProvider": providers, "MCPServer": mcps} {
		if n == 0 {
			t.Errorf("no world has a resource that is %s", what)
		}
	}
}

func TestPlansCreateWhatIsMissingAndDeleteWhatExists(t *testing.T) {
	for seed := range uint64(100) {
		p := Generate(seed, Fake)
		m := newModel(p.World)
		for i, op := range p.Ops {
			switch op.Kind {
			case OpCreate:
				if m.exists[op.Target] {
					t.Errorf("seed %d op %d creates %s, which the model says exists", seed, i, p.World.MRs[op.Target].Name)
				}
			case OpDelete, OpStrip:
				if !m.exists[op.Target] {
					t.Errorf("seed %d op %d deletes %s, which the model says is gone", seed, i, p.World.MRs[op.Target].Name)
				}
			}
			m.apply(p.World, op)
		}
	}
}

// Coder as it ships serves no AI Gateway keys: a plan for it must hold
// none, or its seeds would test Coder's 403 instead of the contract.
func TestPlansForAnUnlicensedCoderHoldOnlyProviders(t *testing.T) {
	for seed := range uint64(200) {
		for _, mr := range Generate(seed, RealUnlicensed).World.MRs {
			if mr.Kind == Key || mr.Import || mr.Rotating {
				t.Fatalf("seed %d: the unlicensed plan has %+v, want only AI providers and MCP servers, none imported or rotating", seed, mr)
			}
		}
	}
}

// TestARepointedProviderConfigIsRepointedBack: a plan that sends a
// ProviderConfig to the other Coder brings it back later, so the world can
// come to rest on the run's Coder.
func TestARepointedProviderConfigIsRepointedBack(t *testing.T) {
	repointed := 0
	for seed := range uint64(200) {
		p := Generate(seed, Fake)
		away := map[int]bool{}
		for _, op := range p.Ops {
			if op.Kind == OpRepointURL {
				away[op.Target] = op.Arg == 1
				if op.Arg == 1 {
					repointed++
				}
			}
		}
		for pc, still := range away {
			if still {
				t.Errorf("seed %d: %s stays on the other Coder", seed, pcName(p.World.PCs[pc]))
			}
		}
	}
	if repointed < 50 {
		t.Errorf("200 fake plans repoint a ProviderConfig to the other Coder %d times, want at least 50", repointed)
	}
}

func TestShardsRunEveryFixedSeedOnce(t *testing.T) {
	all := append(slices.Clone(fakeSeeds), realSeeds...)
	for _, n := range []int{1, 2, 3} {
		var got []uint64
		for i := 1; i <= n; i++ {
			t.Setenv(EnvShard, fmt.Sprintf("%d/%d", i, n))
			share := append(shareOf(fakeSeeds, 0), shareOf(realSeeds, len(fakeSeeds))...)
			if len(share) < len(all)/n {
				t.Errorf("shard %d/%d runs %d seeds of %d: the shares are uneven", i, n, len(share), len(all))
			}
			got = append(got, share...)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(all))
		if !slices.Equal(got, want) {
			t.Errorf("%d shards run %v, want every fixed seed once: %v", n, got, want)
		}
	}
}

func TestCoverExercisesEverythingTheFixedSeedsDoWithFewer(t *testing.T) {
	for _, c := range []struct {
		f     Flavour
		seeds []uint64
	}{{Fake, fakeSeeds}, {RealUnlicensed, realSeeds}, {Real, realSeeds}} {
		must := foundBugs
		got := Cover(c.seeds, c.f, must)
		for i, s := range must {
			if slices.Contains(c.seeds, s) && (i >= len(got) || got[i] != s) {
				t.Errorf("%s: Cover() = %v, want the seeds that found bugs %v first", c.f, got, must)
			}
		}
		covered := map[string]bool{}
		for _, s := range got {
			for _, ft := range Features(Generate(s, c.f)) {
				covered[ft] = true
			}
		}
		for _, s := range c.seeds {
			for _, ft := range Features(Generate(s, c.f)) {
				if !covered[ft] {
					t.Errorf("%s: seed %d exercises %q, which no seed of Cover() %v does", c.f, s, ft, got)
				}
			}
		}
		if c.f == Fake && len(got) >= len(c.seeds) {
			t.Errorf("%s: Cover() runs %d of %d seeds: no fewer", c.f, len(got), len(c.seeds))
		}
		t.Logf("%s: %d of %d fixed seeds cover them all: %v", c.f, len(got), len(c.seeds), got)
	}
}

func TestFeaturesSayWhatAPlanExercises(t *testing.T) {
	p := Plan{
		World: World{
			PCs: []PC{{Kind: Cluster}, {Kind: Legacy, Short: true}},
			MRs: []MR{{Kind: Key, PC: 0, Rotating: true}, {Kind: Provider, PC: 1, Import: true}},
		},
		Ops:         []Op{{Kind: OpStrip, Target: 1}, {Kind: OpCoderStatus, Arg: 503, Target: 2}, {Kind: OpKill}},
		ClockOffset: -2 * time.Minute,
	}
	want := []string{
		"coder clock behind", "coder-status 503", "kill-provider",
		"mr 0 on pc 1", "mr 0 rotating", "mr 1 import", "mr 1 on pc 2",
		"pc 1 short=false", "pc 2 short=true", "strip-finalizers mr 1 on pc 2",
	}
	if diff := cmp.Diff(want, Features(p)); diff != "" {
		t.Errorf("Features() -want +got:\n%s", diff)
	}
}

// TestMCPServersComeLastAndNoOperationTargetsThem: the MCP servers come from a
// stream of their own, after every other draw, so every seed's plan (the
// seeds that found bugs included) is what it was without them.
func TestMCPServersComeLastAndNoOperationTargetsThem(t *testing.T) {
	for _, f := range []Flavour{Fake, Real, RealUnlicensed} {
		for seed := range uint64(50) {
			p := Generate(seed, f)
			var mcps int
			for i, m := range p.World.MRs {
				if m.Kind != MCP {
					continue
				}
				mcps++
				for _, op := range p.Ops {
					if op.Target == i && (op.Kind == OpCreate || op.Kind == OpDelete || op.Kind == OpStrip || op.Kind == OpRotate) {
						t.Errorf("seed %d: operation %s targets the MCP server %s", seed, op.Kind, m.Name)
					}
				}
			}
			if mcps == 0 || p.World.MRs[len(p.World.MRs)-mcps].Kind != MCP {
				t.Errorf("seed %d: %d MCP servers, want one or two at the end of the world", seed, mcps)
			}
		}
	}
}
