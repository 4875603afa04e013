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
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// bed is shared by every run of the package; runs take turns.
var bed *Bed

// The fixed seeds, so that a failure replays: make interleave runs them
// all, make test the fewest that cover every feature they exercise
// (EnvSeeds). Each one that found a bug stays in the list, and in make
// test's (foundBugs), and became a named scenario in test/e2e.
var (
	// Seed 6: a rotation moved an imported key's external name to the new
	// key, and the imported key outlived its resource
	// (TestRotatingAnImportedKeyRetiresItOnBothCoders).
	// Seed 118707505893 (a soak's): a provider create answered 200 was
	// taken for a refusal (TestAIProviderUncertainCreateAdoptsItsOwnProvider).
	// Seed 1068355073656 (a soak's): a namespace whose key used a
	// ClusterProviderConfig without its token Secret stayed Terminating
	// (TestNamespaceDeletionIsBoundedWhileItsClusterProviderConfigCannotDelete).
	// Seed 540571992116 (a soak's): a key repointed to the other Coder
	// and back; after an earlier seed's unused mimicked ids it took a key
	// of the run's Coder for its own
	// (TestAKeyRepointedToAServerAnsweringWithAnotherKeysIDTakesNothingBack).
	// Alone it replays the harness judging a key by the run's Coder while
	// its ProviderConfig pointed at the other one.
	fakeSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 118707505893, 1068355073656, 540571992116}
	realSeeds = []uint64{101, 102, 103, 104, 105}
	foundBugs = []uint64{6, 118707505893, 1068355073656}
)

// EnvSeeds chooses the fixed seeds: "cover" (make test) runs Cover of
// each list, the seeds that found bugs first; unset, every fixed seed runs
// (make interleave).
const EnvSeeds = "PROVIDER_CODER_INTERLEAVE_SEEDS"

// fixed is the fixed seeds of flavour f that EnvSeeds selects.
func fixed(seeds []uint64, f Flavour) []uint64 {
	switch v := os.Getenv(EnvSeeds); v {
	case "":
		return seeds
	case "cover":
		return Cover(seeds, f, foundBugs)
	default:
		panic(fmt.Sprintf("%s=%q: want cover, or unset for every fixed seed", EnvSeeds, v))
	}
}

// realFlavour is the flavour runSeeds finds the real Coder to be: it
// serves keys only with a licence the user supplies.
func realFlavour() Flavour {
	if os.Getenv(realcoder.EnvLicenseFile) != "" {
		return Real
	}
	return RealUnlicensed
}

// EnvSoak is the number of random seeds the soak runs (make soak SEEDS=N).
const EnvSoak = "PROVIDER_CODER_SOAK_SEEDS"

// EnvSeed runs one seed only, to replay it: PROVIDER_CODER_SEED=7 (fake) or
// PROVIDER_CODER_SEED=real:101.
const EnvSeed = "PROVIDER_CODER_SEED"

var tally struct {
	sync.Mutex
	runs, violations, kills int
}

func TestMain(m *testing.M) {
	flag.Parse()
	// Without a control plane only the pure tests run; the interleavings
	// skip (see needBed).
	if testing.Short() {
		os.Exit(m.Run())
	}
	if _, err := controlplane.BinDir(); err != nil {
		if os.Getenv(controlplane.EnvRequire) != "" {
			fmt.Fprintf(os.Stderr, "%s is set but the control plane is unavailable: %v\n", controlplane.EnvRequire, err)
			os.Exit(1)
		}
		fmt.Printf("interleavings will skip: %v\n", err)
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "interleave-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	b, err := StartBed(ctx, dir)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot start the interleaving bed: %v\n", err)
		os.Exit(1)
	}
	bed = b
	os.Exit(runAll(m, b, dir))
}

// runAll runs the tests on b and reports; dir is removed unless a test
// failed, when it keeps the provider's logs.
func runAll(m *testing.M, b *Bed, dir string) int {
	code := m.Run()
	fmt.Printf("interleavings: %d sequences, %d invariant violations, %d provider kills\n", tally.runs, tally.violations, tally.kills)
	if code != 0 {
		fmt.Printf("provider logs: %s\n", b.Provider.LogPath())
	} else {
		defer func() { _ = os.RemoveAll(dir) }()
	}
	b.Stop()
	testenv.StopRealCoder()
	return code
}

func TestInterleavingsOnTheFakeCoderKeepTheDeletionContract(t *testing.T) {
	runFlavour(t, Fake, shareOf(fixed(fakeSeeds, Fake), 0))
}

func TestInterleavingsOnTheRealCoderKeepTheDeletionContract(t *testing.T) {
	runFlavour(t, Real, shareOf(fixed(realSeeds, realFlavour()), len(fixed(fakeSeeds, Fake))))
}

// A resource's AI provider whose create Coder made but never answered, and
// whose ProviderConfig lost its credentials before the provider could look
// for it, is known by name only; once the teardown deletes its namespace,
// the resource is released without delete and its record waits for that
// ProviderConfig, the only one that may find the provider by the name the
// tenant chose. As an operator would, the teardown makes it again, and the
// sweep takes the provider: nothing is left in Coder. (CI, seed 103 on the
// real Coder, where Coder went down between a create and its read.)
func TestAProviderKnownByNameOnlyIsSweptThroughItsProviderConfigMadeAgain(t *testing.T) {
	if _, ok := onlySeed(); ok {
		t.Skip("replaying a seed")
	}
	if !lastShard() {
		t.Skipf("runs in the last shard (%s=%s)", EnvShard, os.Getenv(EnvShard))
	}
	if bed == nil {
		t.Skip("skipping interleavings: no control plane (or -short)")
	}
	c := testenv.LocalCoder(bed.Fake)
	plan := nameOnlyPlan()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	res := Run(ctx, bed, c, c.SDK(t), plan)
	fmt.Println("interleavings: " + res.Line())
	t.Logf("operations:\n  %s", strings.Join(res.Log, "\n  "))
	for _, v := range res.Violations {
		t.Error(v)
	}
	if !slices.ContainsFunc(res.Log, func(l string) bool { return strings.Contains(l, "teardown: made ProviderConfig") }) {
		t.Error("the teardown made no ProviderConfig again: the provider was not left known by name only, so this tests nothing")
	}
}

// nameOnlyPlan is the world of one tenant with one AI provider, and the
// operations that leave it known by name only.
func nameOnlyPlan() Plan {
	const prefix = "iname"
	ns := prefix + "-t0"
	w := World{Prefix: prefix, System: prefix + "-sys", Namespaces: []string{ns},
		Secrets: []Secret{{Namespace: ns, Name: "token"}},
		PCs:     []PC{{Kind: Namespaced, Namespace: ns, Name: "pc", Secret: 0, Short: true}},
		MRs:     []MR{{Kind: Provider, Namespace: ns, Name: "mr0", PC: 0, CoderName: prefix + "-p0"}},
	}
	providers := slices.Index(CreateEndpoints, "POST /api/v2/ai/providers")
	return Plan{Flavour: Fake, World: w, Ops: []Op{
		// The ProviderConfig turns Ready.
		{Kind: OpPoll},
		// Coder makes the provider and never answers the create.
		{Kind: OpCoderLoseAnswer, Target: providers},
		{Kind: OpCreate, Target: 0},
		// Before the provider looks for it: the token Secret goes (held
		// for the LiveDependentTimeout of 3s, then released) and Coder
		// stops answering.
		{Kind: OpDeleteSecret, Target: 0, Pause: 500 * time.Millisecond},
		{Kind: OpCoderDown},
		{Kind: OpDelete, Target: 0, Pause: 5 * time.Second},
	}}
}

// lastShard reports whether this process runs the last shard, or all.
func lastShard() bool {
	is, ns, ok := strings.Cut(os.Getenv(EnvShard), "/")
	return !ok || is == ns
}

// EnvShard is set by hack/shard, which runs the package as n processes at
// once (make test): PROVIDER_CODER_SHARD=i/n runs the i-th share of the
// fixed seeds, dealt in turn over the fake seeds and then the real ones.
const EnvShard = "PROVIDER_CODER_SHARD"

// shareOf is this process's share of seeds, whose first is the offset-th
// fixed seed: all of them unless EnvShard says otherwise.
func shareOf(seeds []uint64, offset int) []uint64 {
	v := os.Getenv(EnvShard)
	if v == "" {
		return seeds
	}
	is, ns, _ := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		panic(fmt.Sprintf("%s=%q is not i/n", EnvShard, v))
	}
	var out []uint64
	for j, s := range seeds {
		if (offset+j)%n == i-1 {
			out = append(out, s)
		}
	}
	return out
}

// runFlavour runs the seeds on a Coder of flavour f, or only the seed
// PROVIDER_CODER_SEED names.
func runFlavour(t *testing.T, f Flavour, seeds []uint64) {
	if only, ok := onlySeed(); ok {
		if only.flavour != f {
			t.Skipf("replaying a seed of the %s Coder", only.flavour)
		}
		seeds = []uint64{only.seed}
	}
	if len(seeds) == 0 {
		t.Skipf("no %s seeds in this shard (%s=%s)", f, EnvShard, os.Getenv(EnvShard))
	}
	runSeeds(t, f, seeds)
}

// TestSoakOfRandomSeedsOnTheFakeCoderKeepsTheDeletionContract runs
// PROVIDER_CODER_SOAK_SEEDS random seeds on the fake Coder.
func TestSoakOfRandomSeedsOnTheFakeCoderKeepsTheDeletionContract(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(EnvSoak))
	if n <= 0 {
		t.Skipf("set %s to soak", EnvSoak)
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = 1000 + rand.Uint64N(1<<40)
	}
	runSeeds(t, Fake, seeds)
}

type seedFlavour struct {
	seed    uint64
	flavour Flavour
}

func onlySeed() (seedFlavour, bool) {
	v := os.Getenv(EnvSeed)
	if v == "" {
		return seedFlavour{}, false
	}
	f := Fake
	if s, ok := strings.CutPrefix(v, "real:"); ok {
		f, v = Real, s
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("%s=%q is not a seed", EnvSeed, v))
	}
	return seedFlavour{seed: n, flavour: f}, true
}

func runSeeds(t *testing.T, f Flavour, seeds []uint64) {
	if bed == nil {
		t.Skip("skipping interleavings: no control plane (or -short)")
	}
	var c testenv.Coder
	if f == Real {
		c = testenv.RealCoder(t)
		if !c.ServesKeys() {
			// Coder as it ships: AI providers only (see realcoder.EnvLicenseFile).
			f = RealUnlicensed
		}
	} else {
		c = testenv.LocalCoder(bed.Fake)
	}
	for _, seed := range seeds {
		plan := Generate(seed, f)
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		res := Run(ctx, bed, c, c.SDK(t), plan)
		cancel()
		fmt.Println("interleavings: " + res.Line())
		tally.Lock()
		tally.runs++
		tally.violations += len(res.Violations)
		tally.kills += res.Kills
		tally.Unlock()
		t.Logf("seed %d (%s) operations:\n  %s", seed, f, strings.Join(res.Log, "\n  "))
		if len(res.Violations) > 0 {
			t.Errorf("seed %d (%s) broke the deletion contract; replay with %s=%s:\n  %s",
				seed, f, EnvSeed, replay(seed, f), strings.Join(res.Violations, "\n  "))
		}
	}
}

func replay(seed uint64, f Flavour) string {
	if f.IsReal() {
		return fmt.Sprintf("real:%d", seed)
	}
	return strconv.FormatUint(seed, 10)
}
