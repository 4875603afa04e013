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

# Builds Crossplane (cmd/crossplane: `crossplane core` and `crossplane rbac`)
# from the Go module proxy at a version pinned in versions.env, into a cache
# directory outside the checkout named for that version and a hash of the
# build module, as build-coder.sh does for Coder. The tests run it as
# processes against the local control plane with --package-runtime=External
# (test/crossplane). The binary's path is printed as the last line of stdout;
# progress goes to stderr.
#
# Two versions are pinned, each with its build module: the newest the package
# supports (CROSSPLANE_VERSION, crossplane/), which `make test` runs, and the
# oldest (CROSSPLANE_FLOOR_VERSION, crossplane-floor/), which
# `make crossplane-floor` runs before a release.
#
# Usage: cluster/local/build-crossplane.sh [--floor] [--print-path]
#   --floor       the oldest supported version instead of the newest.
#   --print-path  only print the binary's path, build nothing.
#
# Environment:
#   PROVIDER_CODER_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/provider-coder)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=versions.env
source "${here}/versions.env"

log() { echo "build-crossplane.sh: $*" >&2; }
usage() { echo "usage: $0 [--floor] [--print-path]" >&2; exit 2; }

module=crossplane
version=${CROSSPLANE_VERSION}
print_path=""
for arg in "$@"; do
  case "${arg}" in
    --floor) module=crossplane-floor; version=${CROSSPLANE_FLOOR_VERSION} ;;
    --print-path) print_path=1 ;;
    *) usage ;;
  esac
done

if ! grep -qE -- "^\s*github.com/crossplane/crossplane/v2 ${version}( |$)" "${here}/${module}/go.mod"; then
  log "${module}/go.mod does not require github.com/crossplane/crossplane/v2 ${version}; update it to match versions.env"
  exit 1
fi

hash=$(cat "${here}/${module}/go.mod" "${here}/${module}/go.sum" "${here}/build-crossplane.sh" | sha256sum | cut -c1-12)
cache_root=${PROVIDER_CODER_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/provider-coder}
dir="${cache_root}/crossplane/${version}-${hash}"
bin="${dir}/crossplane"

if [[ -n "${print_path}" ]]; then
  echo "${bin}"
  exit 0
fi

mkdir -p "${dir}"

# Serialise concurrent builds (worktrees, parallel make jobs) into one cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${dir}/.lock"
  flock 9
fi

if [[ -x "${bin}" ]]; then
  log "crossplane ${version}: cached"
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

# The version stamp is Crossplane's own (the ldflags of its Earthfile, and
# from v2.2 of nix/build.nix): the package manager checks a package's
# spec.crossplane.version against it, so an unstamped build would refuse
# every package. v2.1 keeps the version in its internal/version, v2.2 on in
# crossplane-runtime's pkg/version; the linker ignores an -X for a variable
# the binary does not have, so both are set.
export CGO_ENABLED=0 GOWORK=off
log "crossplane ${version}: building (a few minutes cold)"
start=${SECONDS}
tmp=$(mktemp "${dir}/.crossplane.XXXXXX")
go -C "${here}/${module}" build -buildvcs=false -trimpath \
  -ldflags "-s -w -X github.com/crossplane/crossplane/v2/internal/version.version=${version} -X github.com/crossplane/crossplane-runtime/v2/pkg/version.version=${version}" \
  -o "${tmp}" github.com/crossplane/crossplane/v2/cmd/crossplane &
child=$!
wait "${child}"
child=""
chmod 0755 "${tmp}"
mv -f "${tmp}" "${bin}"
tmp=""
log "crossplane ${version}: built in $((SECONDS - start))s"
echo "${bin}"
