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

# Builds Prometheus's promtool (github.com/prometheus/prometheus/cmd/promtool)
# from the Go module proxy at the version tools/promtool/go.mod requires,
# into a cache directory outside the checkout named for that version and a
# hash of the build module, so a second run builds nothing. The alert tests
# of examples/monitoring (test/monitoring) run it as `promtool test rules`.
# The binary's path is printed as the last line of stdout; progress goes to
# stderr.
#
# Usage: hack/promtool.sh [--print-path]
#   --print-path  only print the binary's path, build nothing.
#
# Environment:
#   PROVIDER_CODER_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/provider-coder)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mod="${here}/../tools/promtool"

log() { echo "promtool.sh: $*" >&2; }

version=$(awk '$1 == "github.com/prometheus/prometheus" { print $2 }' "${mod}/go.mod")
if [[ -z "${version}" ]]; then
  log "tools/promtool/go.mod does not require github.com/prometheus/prometheus"
  exit 1
fi
hash=$(cat "${mod}/go.mod" "${mod}/go.sum" "${here}/promtool.sh" | sha256sum | cut -c1-12)
cache_root=${PROVIDER_CODER_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/provider-coder}
dir="${cache_root}/promtool/${version}-${hash}"
bin="${dir}/promtool"

case "${1:-}" in
  --print-path) echo "${bin}"; exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--print-path]" >&2; exit 2 ;;
esac

mkdir -p "${dir}"

# Serialise concurrent builds (worktrees, parallel make jobs) into one cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${dir}/.lock"
  flock 9
fi

if [[ -x "${bin}" ]]; then
  log "promtool ${version}: cached"
  echo "${bin}"
  exit 0
fi

# A signal stops the build and removes its partial output.
tmp=""
child=""
cleanup() {
  if [[ -n "${child}" ]]; then kill "${child}" 2>/dev/null || true; wait "${child}" 2>/dev/null || true; fi
  if [[ -n "${tmp}" ]]; then rm -f "${tmp}"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# remove_all_sd is Prometheus's own build tag for a build without its
# service discoveries but file and http: `promtool test rules` uses none,
# and they are half of promtool's dependencies (57 MB of Go source instead
# of 137).
export GOWORK=off
log "promtool ${version}: building (a few minutes cold)"
start=${SECONDS}
tmp=$(mktemp "${dir}/.promtool.XXXXXX")
go -C "${mod}" build -trimpath -tags remove_all_sd -o "${tmp}" github.com/prometheus/prometheus/cmd/promtool &
child=$!
wait "${child}"
child=""
chmod 0755 "${tmp}"
mv -f "${tmp}" "${bin}"
tmp=""
log "promtool ${version}: built in $((SECONDS - start))s"
echo "${bin}"
