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
	"sort"
)

// Features are what a plan exercises: each kind of ProviderConfig and of
// resource with each of its settings, each operation on each kind of
// target (each fault with its status, or the create endpoint it hits), and a Coder clock
// apart from the cluster's. Two plans with the same features differ only
// in order and timing.
func Features(p Plan) []string {
	set := map[string]bool{}
	add := func(format string, a ...any) { set[fmt.Sprintf(format, a...)] = true }
	for _, pc := range p.World.PCs {
		add("pc %d short=%t", pc.Kind, pc.Short)
	}
	for _, mr := range p.World.MRs {
		add("mr %d on pc %d", mr.Kind, p.World.PCs[mr.PC].Kind)
		for name, on := range map[string]bool{"orphan": mr.Orphan, "observe-only": mr.ObserveOnly, "import": mr.Import, "rotating": mr.Rotating} {
			if on {
				add("mr %d %s", mr.Kind, name)
			}
		}
	}
	for _, op := range p.Ops {
		switch op.Kind {
		case OpCreate, OpDelete, OpStrip, OpRotate:
			mr := p.World.MRs[op.Target]
			add("%s mr %d on pc %d", op.Kind, mr.Kind, p.World.PCs[mr.PC].Kind)
		case OpDeletePC, OpRepointPC, OpRepointURL:
			add("%s pc %d arg %d", op.Kind, p.World.PCs[op.Target].Kind, op.Arg)
		case OpCoderStatus:
			add("%s %d", op.Kind, op.Arg)
		case OpCoderLoseAnswer, OpCoderLieID:
			add("%s endpoint %d", op.Kind, op.Target)
		default:
			add("%s", op.Kind)
		}
	}
	switch {
	case p.ClockOffset < 0:
		add("coder clock behind")
	case p.ClockOffset > 0:
		add("coder clock ahead")
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Cover picks from seeds, in their order, the seeds in must and then, one
// at a time, the seed whose plan adds the most features not yet covered,
// until every feature of every seed's plan is covered: fewer sequences that
// exercise everything the whole list does (make test runs them; make
// interleave runs every seed).
func Cover(seeds []uint64, f Flavour, must []uint64) []uint64 {
	features := map[uint64][]string{}
	for _, s := range seeds {
		features[s] = Features(Generate(s, f))
	}
	covered := map[string]bool{}
	var out []uint64
	take := func(s uint64) {
		out = append(out, s)
		for _, ft := range features[s] {
			covered[ft] = true
		}
	}
	for _, s := range seeds {
		if slices.Contains(must, s) {
			take(s)
		}
	}
	for {
		best, gain := uint64(0), 0
		for _, s := range seeds {
			if slices.Contains(out, s) {
				continue
			}
			n := 0
			for _, ft := range features[s] {
				if !covered[ft] {
					n++
				}
			}
			if n > gain {
				best, gain = s, n
			}
		}
		if gain == 0 {
			return out
		}
		take(best)
	}
}
