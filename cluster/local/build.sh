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

# Builds the binaries of the local test control plane (etcd, kube-apiserver,
# kube-controller-manager, kubectl) from the Go module proxy at the versions
# pinned in versions.env, into a per-version cache directory outside the
# checkout. Binaries already present are reused, so this is cheap to call
# before every test run. The bin directory is printed as the last line of
# stdout; progress goes to stderr.
#
# Usage: cluster/local/build.sh [--print-dir]
#   --print-dir  only print the bin directory, build nothing.
#
# Environment:
#   PROVIDER_CODER_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/provider-coder)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=versions.env
source "${here}/versions.env"

cache_root=${PROVIDER_CODER_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/provider-coder}
# The directory is named for the versions and a hash of the build module
# and this script, so a change to either builds afresh. test/framework/controlplane
# computes the same path (the same files, in this order); keep the two in
# step.
hash=$(cat "${here}/kube/go.mod" "${here}/kube/go.sum" "${here}/build.sh" | sha256sum | cut -c1-12)
bin_dir="${cache_root}/kube/${KUBE_VERSION#v}-etcd${ETCD_VERSION#v}-${hash}/bin"

case "${1:-}" in
  --print-dir) echo "${bin_dir}"; exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--print-dir]" >&2; exit 2 ;;
esac

log() { echo "build.sh: $*" >&2; }

# versions.env names the cache directory, the go.mod files decide what is
# built: refuse to fill a directory named for one version with another.
require_pin() {
  local file=$1 line=$2
  if ! grep -qF -- "${line}" "${here}/${file}"; then
    log "${file} does not contain '${line}'; update it to match versions.env"
    exit 1
  fi
}
require_pin kube/go.mod "k8s.io/kubernetes ${KUBE_VERSION}"
require_pin kube/go.mod "k8s.io/api => k8s.io/api ${KUBE_STAGING_VERSION}"
require_pin kube/go.mod "go.etcd.io/etcd/server/v3 ${ETCD_VERSION}"

mkdir -p "${bin_dir}"

# Serialise concurrent builds (e.g. parallel test jobs) into the same cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${bin_dir}/.lock"
  flock 9
fi

# On any exit, including Ctrl-C or SIGTERM, stop a running build and remove
# its partial output. go build runs in the background so that a signal
# interrupts `wait` at once instead of waiting for the build to finish.
tmp=""
child=""
cleanup() {
  if [[ -n "${child}" ]]; then kill "${child}" 2>/dev/null || true; wait "${child}" 2>/dev/null || true; fi
  if [[ -n "${tmp}" ]]; then rm -f "${tmp}"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The component binaries need no cgo; a static build also avoids depending on
# the host's libc. GOWORK=off keeps a developer's go.work out of the build.
export CGO_ENABLED=0 GOWORK=off

# build NAME MODULE_DIR PACKAGE [LDFLAGS...]
build() {
  local name=$1 mod=$2 pkg=$3
  shift 3
  if [[ -x "${bin_dir}/${name}" ]]; then
    log "${name}: cached"
    return
  fi
  log "${name}: building ${pkg} (this can take several minutes)"
  local start=${SECONDS}
  # Build to a temporary name in the same directory and rename, so an
  # interrupted build never leaves a binary that looks complete.
  tmp=$(mktemp "${bin_dir}/.${name}.XXXXXX")
  go -C "${here}/${mod}" build -buildvcs=false -trimpath \
    -ldflags "-s -w $*" -o "${tmp}" "${pkg}" &
  child=$!
  wait "${child}"
  child=""
  chmod 0755 "${tmp}"
  mv -f "${tmp}" "${bin_dir}/${name}"
  tmp=""
  log "${name}: built in $((SECONDS - start))s"
}

# Stamp the version the way hack/lib/version.sh does, so the binaries report
# KUBE_VERSION rather than v0.0.0-master and kubectl sees no version skew.
kube_ldflags=()
major_minor=${KUBE_VERSION#v}
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  kube_ldflags+=(
    "-X ${pkg}.gitVersion=${KUBE_VERSION}"
    "-X ${pkg}.gitMajor=${major_minor%%.*}"
    "-X ${pkg}.gitMinor=$(cut -d. -f2 <<<"${major_minor}")"
    "-X ${pkg}.gitTreeState=clean"
  )
done

build etcd kube go.etcd.io/etcd/server/v3
build kube-apiserver kube k8s.io/kubernetes/cmd/kube-apiserver "${kube_ldflags[@]}"
build kube-controller-manager kube k8s.io/kubernetes/cmd/kube-controller-manager "${kube_ldflags[@]}"
build kubectl kube k8s.io/kubernetes/cmd/kubectl "${kube_ldflags[@]}"

echo "${bin_dir}"
