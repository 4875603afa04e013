#!/usr/bin/env bash
# Copyright 2026 The provider-coder Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# soak.sh SEEDS PROCS: runs SEEDS random interleavings (test/interleave) on
# the fake Coder, split across PROCS test processes, each with a control
# plane, a fake Coder and a provider of its own. Most of a run is waiting
# (polls, holds, the sweep's grace), so a few processes share two cores
# well. One line per run and a combined tally; everything in
# _output/soak-N.log.
set -euo pipefail
seeds=${1:?seeds}
procs=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/_output
mkdir -p "$out"
go test -c -race -o "$out/interleave.test" "$root/test/interleave"
per=$(( (seeds + procs - 1) / procs ))
pids=()
for i in $(seq 1 "$procs"); do
	n=$(( seeds - (i - 1) * per ))
	(( n > per )) && n=$per
	(( n <= 0 )) && break
	(cd "$root/test/interleave" && PROVIDER_CODER_REQUIRE_CONTROLPLANE=1 PROVIDER_CODER_SOAK_SEEDS=$n \
		"$out/interleave.test" -test.run '^TestSoakOfRandomSeedsOnTheFakeCoderKeepsTheDeletionContract$' -test.v -test.count=1 -test.timeout 0 >"$out/soak-$i.log" 2>&1) &
	pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
grep -hE '^interleavings: seed|^\s+interleave_test.go:[0-9]+: seed .* broke' "$out"/soak-*.log || true
grep -hE '^interleavings: [0-9]+ sequences' "$out"/soak-*.log |
	awk '{n+=$2; m+=$4; k+=$7} END {printf "interleavings: %d sequences, %d invariant violations, %d provider kills\n", n, m, k}'
exit $status
