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

// Package interleave is the seeded, model-based test of the deletion
// contract (DESIGN sections 4 and 5). From a seed it builds a small world
// of namespaces, ProviderConfigs of every kind and managed resources of
// every policy, and a random sequence of operations on it: deletes in any
// order, finalizers stripped by hand, Coder faults and SIGKILLs of the
// provider. It runs them against the real control plane, the provider
// binary and a Coder (the fake with faults, or the real server), waits
// until the world is quiet and checks the contract's invariants.
//
// The plan is a pure function of the seed, so a failing seed replays the
// same operations in the same order. What cannot be replayed is the timing:
// where in the provider's work a pause, a fault or a kill lands depends on
// the scheduler, the API server and Coder. A failure therefore prints the
// seed and the operation log with what each operation saw.
package interleave

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Flavour is the Coder a plan runs against; it decides which faults the plan
// may use.
type Flavour int

const (
	// Fake is test/infrastructure/fakecoder: every fault.
	Fake Flavour = iota
	// Real is the Coder server: it can only be stopped and started.
	Real
	// RealUnlicensed is the Coder server without a licence, as it ships:
	// it serves no AI Gateway keys, so its worlds hold AI providers only.
	RealUnlicensed
)

func (f Flavour) String() string {
	switch f {
	case Real:
		return "real"
	case RealUnlicensed:
		return "real-unlicensed"
	default:
		return "fake"
	}
}

// IsReal reports whether f is the Coder server.
func (f Flavour) IsReal() bool { return f != Fake }

// ServesKeys reports whether a Coder of flavour f serves AI Gateway keys.
func (f Flavour) ServesKeys() bool { return f != RealUnlicensed }

// PCKind is a kind of ProviderConfig.
type PCKind int

const (
	// Namespaced is a namespaced ProviderConfig.
	Namespaced PCKind = iota
	// Cluster is a ClusterProviderConfig, used by namespaced resources.
	Cluster
	// Legacy is the cluster-scoped ProviderConfig of cluster-scoped
	// resources.
	Legacy
)

// A Secret holds the Coder token (or, for an AIProvider, its API key).
type Secret struct {
	Namespace, Name string
}

// A PC is a ProviderConfig of the world.
type PC struct {
	Kind PCKind
	// Namespace is empty for Cluster and Legacy.
	Namespace, Name string
	// Secret indexes World.Secrets.
	Secret int
	// Short: the deletion bounds are compressed into seconds; otherwise
	// they are the defaults (minutes).
	Short bool
}

// MRKind is a kind of managed resource.
type MRKind int

const (
	// Key is an AIGatewayKey.
	Key MRKind = iota
	// Provider is an AIProvider.
	Provider
	// MCP is an MCPServer: named in Coder by a slug users choose, like a
	// provider's name, and deleted for good.
	MCP
)

// An MR is a managed resource of the world. Re-creating it after a delete
// makes a new incarnation (a new UID) of the same name and spec.
type MR struct {
	Kind MRKind
	// Namespace is empty for a cluster-scoped resource (of a Legacy PC).
	Namespace, Name string
	// PC indexes World.PCs.
	PC int
	// Orphan sets deletionPolicy Orphan; ObserveOnly sets the management
	// policies to Observe (and implies Import).
	Orphan, ObserveOnly bool
	// Import sets the external name to an object the harness created in
	// Coder before the run.
	Import bool
	// Rotating keys rotate every few seconds with a short settle window.
	Rotating bool
	// CoderName is an AIProvider's forProvider.name, an MCPServer's slug.
	CoderName string
	// Initial resources are created before the operations start.
	Initial bool
}

// Keeps reports whether the resource's policies keep its object in Coder on
// purpose when it is deleted.
func (m MR) Keeps() bool { return m.Orphan || m.ObserveOnly }

// A World is what a plan starts from.
type World struct {
	// Prefix starts every name of the world, so worlds of different seeds
	// share a control plane and a Coder without touching each other.
	Prefix string
	// System holds the Secrets of cluster-scoped ProviderConfigs and
	// resources.
	System     string
	Namespaces []string
	Secrets    []Secret
	PCs        []PC
	MRs        []MR
}

// OpKind is a kind of operation.
type OpKind string

// The operations. Target indexes World.MRs, World.PCs, World.Namespaces or
// World.Secrets as the kind says.
const (
	OpCreate          OpKind = "create"           // MR
	OpDelete          OpKind = "delete"           // MR
	OpStrip           OpKind = "strip-finalizers" // MR: delete it, then strip every finalizer by hand
	OpRotate          OpKind = "rotate"           // MR (a key)
	OpDeletePC        OpKind = "delete-pc"        // PC; Arg 1: foreground
	OpRepointPC       OpKind = "repoint-pc"       // PC; Arg: the Secret name's index in secretNames
	OpDeleteNamespace OpKind = "delete-namespace" // namespace
	OpDeleteSecret    OpKind = "delete-secret"    // Secret
	OpCoderDown       OpKind = "coder-down"
	OpCoderUp         OpKind = "coder-up"
	OpCoderSlow       OpKind = "coder-slow"        // Arg: latency in ms
	OpCoderStatus     OpKind = "coder-status"      // Arg: HTTP status; Target: endpoint index
	OpCoderLoseAnswer OpKind = "coder-lose-answer" // Target: create endpoint index
	OpRepointURL      OpKind = "repoint-url"       // PC; Arg 1: to the other Coder, 0: back to the run's
	OpCoderLieID      OpKind = "coder-lie-id"      // Target: create endpoint index
	OpOtherMimics     OpKind = "other-mimics"      // the other Coder answers its next creates with the run's Coder's ids
	OpKill            OpKind = "kill-provider"     // Arg: ms before it starts again
	OpPoll            OpKind = "next-poll"
)

// An Op is one step of a plan, taken after Pause.
type Op struct {
	Kind   OpKind
	Target int
	Arg    int
	Pause  time.Duration
}

// A Plan is a world and the operations to run on it.
type Plan struct {
	Seed    uint64
	Flavour Flavour
	World   World
	Ops     []Op
	// ClockOffset is how far the fake Coder's clock runs from the
	// cluster's for the whole run (negative: behind); zero on the real
	// Coder, which runs on this host's clock.
	ClockOffset time.Duration
}

// clockOffsets are the fake Coder's clock offsets a plan runs with: most
// plans on the cluster's clock, the others minutes or seconds apart, as
// issue 26 found them breaking the sweep, adoption and rotation.
var clockOffsets = []time.Duration{0, 0, -2 * time.Minute, -10 * time.Second, 2 * time.Minute}

// clockOffsetOf draws the clock offset of seed from a stream of its own,
// so adding it changed no seed's world or operations.
func clockOffsetOf(seed uint64, f Flavour) time.Duration {
	if f != Fake {
		return 0
	}
	return clockOffsets[rand.New(rand.NewPCG(seed, 0xc10c)).IntN(len(clockOffsets))]
}

// Describe names op's target in the world, for the operation log.
func (p Plan) Describe(op Op) string {
	w := p.World
	switch op.Kind {
	case OpCreate, OpDelete, OpStrip, OpRotate:
		m := w.MRs[op.Target]
		return fmt.Sprintf("%s %s %s", op.Kind, kindName(m.Kind), objName(m.Namespace, m.Name))
	case OpDeletePC:
		how := "background"
		if op.Arg == 1 {
			how = "foreground"
		}
		return fmt.Sprintf("%s %s (%s)", op.Kind, pcName(w.PCs[op.Target]), how)
	case OpRepointPC:
		return fmt.Sprintf("%s %s to Secret %s", op.Kind, pcName(w.PCs[op.Target]), secretNames[op.Arg])
	case OpDeleteNamespace:
		return fmt.Sprintf("%s %s", op.Kind, w.Namespaces[op.Target])
	case OpDeleteSecret:
		s := w.Secrets[op.Target]
		return fmt.Sprintf("%s %s", op.Kind, objName(s.Namespace, s.Name))
	case OpCoderSlow:
		return fmt.Sprintf("%s %dms", op.Kind, op.Arg)
	case OpCoderStatus:
		return fmt.Sprintf("%s %d on %s", op.Kind, op.Arg, FaultEndpoints[op.Target])
	case OpCoderLoseAnswer, OpCoderLieID:
		return fmt.Sprintf("%s on %s", op.Kind, CreateEndpoints[op.Target])
	case OpRepointURL:
		to := "back to the run's Coder"
		if op.Arg == 1 {
			to = "to the other Coder"
		}
		return fmt.Sprintf("%s %s %s", op.Kind, pcName(w.PCs[op.Target]), to)
	case OpKill:
		return fmt.Sprintf("%s (restart after %dms)", op.Kind, op.Arg)
	}
	return string(op.Kind)
}

func kindName(k MRKind) string {
	switch k {
	case Provider:
		return "AIProvider"
	case MCP:
		return "MCPServer"
	}
	return "AIGatewayKey"
}

func objName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func pcName(pc PC) string {
	switch pc.Kind {
	case Cluster:
		return "ClusterProviderConfig " + pc.Name
	case Legacy:
		return "ProviderConfig (cluster) " + pc.Name
	}
	return "ProviderConfig " + pc.Namespace + "/" + pc.Name
}

// secretNames are what a ProviderConfig can be repointed to: its first
// token Secret, the second one, or one that does not exist.
var secretNames = []string{"token", "token-b", "token-missing"}

// FaultEndpoints are the fake Coder's endpoints a status fault hits, as
// test/infrastructure/fakecoder names them; CreateEndpoints are those that create.
var (
	FaultEndpoints = []string{
		"GET /api/v2/ai-gateway/keys", "POST /api/v2/ai-gateway/keys", "DELETE /api/v2/ai-gateway/keys/{key}",
		"GET /api/v2/ai/providers", "POST /api/v2/ai/providers", "GET /api/v2/ai/providers/{idOrName}",
		"PATCH /api/v2/ai/providers/{idOrName}", "DELETE /api/v2/ai/providers/{idOrName}",
		"GET /api/v2/buildinfo",
	}
	CreateEndpoints = []string{"POST /api/v2/ai-gateway/keys", "POST /api/v2/ai/providers"}
)

// MinKills is how many provider kills every plan has at least.
const MinKills = 3

// Generate builds the plan of seed for a Coder of flavour f. It is a pure
// function: the same seed and flavour give the same plan.
func Generate(seed uint64, f Flavour) Plan {
	r := rand.New(rand.NewPCG(seed, uint64(f)))
	w := generateWorld(r, fmt.Sprintf("i%d%s", seed, strings.ToLower(f.String()[:1])), f.ServesKeys())
	p := Plan{Seed: seed, Flavour: f, World: w, ClockOffset: clockOffsetOf(seed, f)}
	m := newModel(w)
	n := 12 + r.IntN(9)
	for range n {
		op := generateOp(r, w, f, m)
		m.apply(w, op)
		p.Ops = append(p.Ops, op)
	}
	// At least MinKills kills, at random places.
	for kills(p.Ops) < MinKills {
		i := r.IntN(len(p.Ops) + 1)
		p.Ops = append(p.Ops[:i], append([]Op{killOp(r)}, p.Ops[i:]...)...)
	}
	p.Ops = withHostileServers(seed, f, w, p.Ops)
	p.World = withMCPServers(seed, p.World)
	return p
}

// withMCPServers adds, from a stream of its own and after every other
// draw (so that adding them changed no seed's plan, the seeds that found
// bugs included), one or two MCP servers created at the start: the
// operations never target them, but the kills, Coder's faults, the
// deletions of their namespaces and ProviderConfigs, and the teardown
// do.
func withMCPServers(seed uint64, w World) World {
	r := rand.New(rand.NewPCG(seed, 0x3c9))
	for i := range 1 + r.IntN(2) {
		m := MR{Kind: MCP, Name: fmt.Sprintf("mcp%d", i), CoderName: fmt.Sprintf("%s-m%d", w.Prefix, i), Initial: true}
		m.PC = r.IntN(len(w.PCs))
		switch w.PCs[m.PC].Kind {
		case Legacy:
			m.Name = w.Prefix + "-" + m.Name
		case Cluster:
			m.Namespace = w.Namespaces[r.IntN(len(w.Namespaces))]
		case Namespaced:
			m.Namespace = w.PCs[m.PC].Namespace
		}
		m.Orphan = r.IntN(7) == 0
		w.MRs = append(w.MRs, m)
	}
	return w
}

// withHostileServers adds to a fake plan, from a stream of its own (so that
// adding them changed no seed's other draws), what issue 26 found a changing
// world does: a ProviderConfig repointed to another Coder deployment and,
// later, back, as an operator's mistake and its repair; and a create that
// Coder answers with another object's id.
func withHostileServers(seed uint64, f Flavour, w World, ops []Op) []Op {
	if f != Fake {
		return ops
	}
	r := rand.New(rand.NewPCG(seed, 0x1ce))
	insert := func(i int, op Op) {
		ops = append(ops[:i], append([]Op{op}, ops[i:]...)...)
	}
	if r.IntN(2) == 0 {
		pc := r.IntN(len(w.PCs))
		away := r.IntN(len(ops) + 1)
		back := away + 1 + r.IntN(len(ops)-away+1)
		insert(away, Op{Kind: OpRepointURL, Target: pc, Arg: 1})
		insert(back, Op{Kind: OpRepointURL, Target: pc, Arg: 0, Pause: time.Duration(r.IntN(7)) * 250 * time.Millisecond})
		// Issue 49, from a stream of its own: the other Coder is a
		// tenant's hostile server, which answers the creates sent to it
		// with ids it saw in the run's Coder.
		if rand.New(rand.NewPCG(seed, 0x49)).IntN(2) == 0 {
			insert(away, Op{Kind: OpOtherMimics})
		}
	}
	if r.IntN(2) == 0 {
		insert(r.IntN(len(ops)+1), Op{Kind: OpCoderLieID, Target: r.IntN(len(CreateEndpoints))})
	}
	return ops
}

func kills(ops []Op) int {
	n := 0
	for _, o := range ops {
		if o.Kind == OpKill {
			n++
		}
	}
	return n
}

// generateWorld builds a world; without keys its resources are all AI
// providers and none is imported (the harness imports keys).
func generateWorld(r *rand.Rand, prefix string, keys bool) World {
	w := World{Prefix: prefix, System: prefix + "-sys"}
	w.Secrets = append(w.Secrets, Secret{Namespace: w.System, Name: "token"})
	w.PCs = append(w.PCs,
		PC{Kind: Cluster, Name: prefix + "-cpc", Secret: 0, Short: r.IntN(4) > 0},
		PC{Kind: Legacy, Name: prefix + "-legacy", Secret: 0, Short: r.IntN(4) > 0},
	)
	for i := range 2 + r.IntN(2) {
		ns := fmt.Sprintf("%s-t%d", prefix, i)
		w.Namespaces = append(w.Namespaces, ns)
		tok := len(w.Secrets)
		w.Secrets = append(w.Secrets, Secret{Namespace: ns, Name: "token"}, Secret{Namespace: ns, Name: "token-b"})
		w.PCs = append(w.PCs, PC{Kind: Namespaced, Namespace: ns, Name: "pc", Secret: tok, Short: r.IntN(4) > 0})
		if r.IntN(5) < 2 {
			// A second ProviderConfig, sharing the token Secret or not.
			w.PCs = append(w.PCs, PC{Kind: Namespaced, Namespace: ns, Name: "pc-b", Secret: tok + r.IntN(2), Short: true})
		}
	}
	n := 4 + r.IntN(4)
	for i := range n {
		w.MRs = append(w.MRs, generateMR(r, w, prefix, i, keys))
	}
	if !keys {
		return w
	}
	// One resource imports an object made in Coder beforehand; half the
	// time it only observes it.
	imp := r.IntN(n)
	w.MRs[imp].Kind, w.MRs[imp].Import, w.MRs[imp].Initial = Key, true, true
	w.MRs[imp].Rotating, w.MRs[imp].Orphan = false, false
	w.MRs[imp].ObserveOnly = r.IntN(2) == 0
	return w
}

func generateMR(r *rand.Rand, w World, prefix string, i int, keys bool) MR {
	m := MR{Kind: Key, Name: fmt.Sprintf("mr%d", i), Initial: r.IntN(10) < 7}
	if r.IntN(5) < 2 || !keys {
		m.Kind = Provider
		m.CoderName = fmt.Sprintf("%s-p%d", prefix, i)
	}
	pc := r.IntN(len(w.PCs))
	m.PC = pc
	switch w.PCs[pc].Kind {
	case Legacy:
		m.Name = prefix + "-" + m.Name
	case Cluster:
		m.Namespace = w.Namespaces[r.IntN(len(w.Namespaces))]
	case Namespaced:
		m.Namespace = w.PCs[pc].Namespace
	}
	m.Orphan = r.IntN(7) == 0
	m.Rotating = m.Kind == Key && r.IntN(10) < 3
	return m
}

// A worldModel is what the generator expects the world to hold, assuming each
// operation succeeds: it makes creates create and deletes delete, rather
// than hitting AlreadyExists and NotFound.
type worldModel struct {
	exists []bool
	nsGone map[string]bool
}

func newModel(w World) *worldModel {
	m := &worldModel{exists: make([]bool, len(w.MRs)), nsGone: map[string]bool{}}
	for i, mr := range w.MRs {
		m.exists[i] = mr.Initial
	}
	return m
}

func (m *worldModel) apply(w World, op Op) {
	switch op.Kind {
	case OpCreate:
		m.exists[op.Target] = true
	case OpDelete, OpStrip:
		m.exists[op.Target] = false
	case OpDeleteNamespace:
		ns := w.Namespaces[op.Target]
		m.nsGone[ns] = true
		for i, mr := range w.MRs {
			if mr.Namespace == ns {
				m.exists[i] = false
			}
		}
	}
}

// pick returns a resource for which ok holds, at random, or -1.
func (m *worldModel) pick(r *rand.Rand, w World, ok func(i int, mr MR) bool) int {
	var c []int
	for i, mr := range w.MRs {
		if ok(i, mr) {
			c = append(c, i)
		}
	}
	if len(c) == 0 {
		return -1
	}
	return c[r.IntN(len(c))]
}

func generateOp(r *rand.Rand, w World, f Flavour, m *worldModel) Op {
	op := Op{Pause: time.Duration(r.IntN(7)) * 250 * time.Millisecond}
	type choice struct {
		kind   OpKind
		weight int
	}
	choices := []choice{
		{OpCreate, 12}, {OpDelete, 12}, {OpStrip, 3}, {OpRotate, 3},
		{OpDeletePC, 5}, {OpRepointPC, 3}, {OpDeleteNamespace, 3}, {OpDeleteSecret, 3},
		{OpCoderDown, 4}, {OpCoderUp, 3}, {OpKill, 4}, {OpPoll, 3},
	}
	if f == Fake {
		choices = append(choices, choice{OpCoderSlow, 2}, choice{OpCoderStatus, 4}, choice{OpCoderLoseAnswer, 3})
	}
	total := 0
	for _, c := range choices {
		total += c.weight
	}
	pick := r.IntN(total)
	for _, c := range choices {
		if pick < c.weight {
			op.Kind = c.kind
			break
		}
		pick -= c.weight
	}
	creatable := func(i int, mr MR) bool { return !m.exists[i] && !m.nsGone[mr.Namespace] }
	existing := func(i int, _ MR) bool { return m.exists[i] }
	switch op.Kind {
	case OpCreate, OpDelete, OpStrip:
		want := creatable
		if op.Kind != OpCreate {
			want = existing
		}
		op.Target = m.pick(r, w, want)
		if op.Target < 0 {
			// Nothing to create or delete: advance to the next poll.
			op.Kind, op.Target = OpPoll, 0
		}
	case OpRotate:
		op.Target = m.pick(r, w, func(i int, mr MR) bool { return m.exists[i] && mr.Kind == Key })
		if op.Target < 0 {
			op.Kind, op.Target = OpPoll, 0
		}
	case OpDeletePC:
		op.Target, op.Arg = r.IntN(len(w.PCs)), r.IntN(2)
	case OpRepointPC:
		op.Target, op.Arg = r.IntN(len(w.PCs)), r.IntN(len(secretNames))
	case OpDeleteNamespace:
		op.Target = r.IntN(len(w.Namespaces))
	case OpDeleteSecret:
		op.Target = r.IntN(len(w.Secrets))
	case OpCoderSlow:
		op.Arg = []int{500, 1500, 3000}[r.IntN(3)]
	case OpCoderStatus:
		op.Target, op.Arg = r.IntN(len(FaultEndpoints)), []int{403, 502, 503}[r.IntN(3)]
	case OpCoderLoseAnswer:
		op.Target = r.IntN(len(CreateEndpoints))
	case OpKill:
		return killOp(r)
	}
	return op
}

func killOp(r *rand.Rand) Op {
	return Op{Kind: OpKill, Arg: r.IntN(7) * 500, Pause: time.Duration(r.IntN(9)) * 250 * time.Millisecond}
}
