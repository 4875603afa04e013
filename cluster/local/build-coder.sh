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

# Builds the test bed's Coder server, Coder's enterprise server exactly as
# Coder ships it (the package github.com/coder/coder/v2/enterprise/cmd/coder,
# with no code of ours linked in), from the Go module proxy at the version
# pinned in versions.env, into a cache directory outside the checkout named
# for that version and a hash of the build module, so any change to the
# build module builds afresh and an unchanged one is reused. It runs
# unlicensed unless the user supplies a licence (test/framework/realcoder). The binary's path
# is printed as the last line of stdout; progress goes to stderr.
#
# Usage: cluster/local/build-coder.sh [--print-path]
#   --print-path  only print the binary's path, build nothing.
#
# Environment:
#   PROVIDER_CODER_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/provider-coder)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=versions.env
source "${here}/versions.env"

log() { echo "build-coder.sh: $*" >&2; }

if ! grep -qF -- "require github.com/coder/coder/v2 ${CODER_VERSION}" "${here}/coder/go.mod"; then
  log "coder/go.mod does not require github.com/coder/coder/v2 ${CODER_VERSION}; update it to match versions.env"
  exit 1
fi

# test/framework/realcoder computes the same path (hash of go.mod, go.sum and this
# script, whose flags shape the binary too, in this order); keep the two in
# step.
hash=$(cat "${here}/coder/go.mod" "${here}/coder/go.sum" "${here}/build-coder.sh" | sha256sum | cut -c1-12)
cache_root=${PROVIDER_CODER_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/provider-coder}
dir="${cache_root}/coder/${CODER_VERSION}-${hash}"
bin="${dir}/coder"

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
  log "coder ${CODER_VERSION}: cached"
  echo "${bin}"
  exit 0
fi

# As build.sh: a signal stops the build and removes its partial output.
tmp=""
child=""
cleanup() {
  if [[ -n "${child}" ]]; then kill "${child}" 2>/dev/null || true; wait "${child}" 2>/dev/null || true; fi
  if [[ -n "${tmp}" ]]; then rm -f "${tmp}"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Flags as Coder's scripts/build_go.sh uses (its tag has no "v":
# buildinfo.Version adds it) for its release binaries, minus
# the embedded frontend: without the "embed" tag the site package serves a
# placeholder page, and the API is complete. (The "slim" tag would drop the
# server command itself.) CGO off as in Coder's build; GOWORK=off keeps a
# developer's go.work out of the build.
export CGO_ENABLED=0 GOWORK=off
log "coder ${CODER_VERSION}: building (this takes 10-15 minutes cold)"
start=${SECONDS}
tmp=$(mktemp "${dir}/.coder.XXXXXX")
go -C "${here}/coder" build -buildvcs=false -trimpath \
  -tags ts_omit_aws,ts_omit_bird,ts_omit_tap,ts_omit_kube \
  -ldflags "-s -w -X 'github.com/coder/coder/v2/buildinfo.tag=${CODER_VERSION#v}'" \
  -o "${tmp}" github.com/coder/coder/v2/enterprise/cmd/coder &
child=$!
wait "${child}"
child=""
chmod 0755 "${tmp}"
mv -f "${tmp}" "${bin}"
tmp=""
log "coder ${CODER_VERSION}: built in $((SECONDS - start))s"
echo "${bin}"
