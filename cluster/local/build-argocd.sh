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

# Builds the part of Argo CD's multi-call binary that test/argocdsync runs
# (test/argocd/argocdrun/cmd/argocd: Argo CD's own application controller,
# repo server and Git credential helper commands, not its API server, CLI,
# ApplicationSet and notification controllers or Dex) from the Go module
# proxy at the version pinned in versions.env, into a cache directory outside
# the checkout named for that version and a hash of the build module, as
# build-crossplane.sh does for Crossplane. test/argocdsync runs it as
# argocd-application-controller and argocd-repo-server against the local
# control plane. The binary's path is printed as the last line of stdout;
# progress goes to stderr.
#
# The build module is test/argocd/argocdrun, the module of the Argo CD health
# test (`make argocd-health`), which holds the command: both
# select the same module versions and build with the same settings (its Go
# toolchain, cgo as `go test` has it, no -trimpath), so the Go build cache
# shares every package the health test has compiled.
#
# Usage: cluster/local/build-argocd.sh [--print-path]
#   --print-path  only print the binary's path, build nothing.
#
# Environment:
#   PROVIDER_CODER_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/provider-coder)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=versions.env
source "${here}/versions.env"
mod="${here}/../../test/argocd/argocdrun"

log() { echo "build-argocd.sh: $*" >&2; }

if ! grep -qE -- "^\s*github.com/argoproj/argo-cd/v3 ${ARGOCD_VERSION}( |$)" "${mod}/go.mod"; then
  log "test/argocd/argocdrun/go.mod does not require github.com/argoproj/argo-cd/v3 ${ARGOCD_VERSION}; update it to match versions.env"
  exit 1
fi

hash=$(cat "${mod}/go.mod" "${mod}/go.sum" "${mod}/cmd/argocd/main.go" "${here}/build-argocd.sh" | sha256sum | cut -c1-12)
cache_root=${PROVIDER_CODER_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/provider-coder}
dir="${cache_root}/argocd/${ARGOCD_VERSION}-${hash}"
bin="${dir}/argocd"

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
  log "argocd ${ARGOCD_VERSION}: cached"
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

# The version stamp is Argo CD's own (its Makefile's ldflags), so that the
# processes report the version they are. GOTOOLCHAIN=auto:
# the module names the Go toolchain Argo CD needs.
export GOWORK=off GOTOOLCHAIN=auto
log "argocd ${ARGOCD_VERSION}: building (minutes with the health test's build cache, about half an hour cold)"
start=${SECONDS}
tmp=$(mktemp "${dir}/.argocd.XXXXXX")
go -C "${mod}" build \
  -ldflags "-s -w -X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION#v}" \
  -o "${tmp}" ./cmd/argocd &
child=$!
wait "${child}"
child=""
chmod 0755 "${tmp}"
mv -f "${tmp}" "${bin}"
tmp=""
log "argocd ${ARGOCD_VERSION}: built in $((SECONDS - start))s"
echo "${bin}"
