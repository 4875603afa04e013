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

# Prepares a Debian host for `make e2e` with rootful Podman
# (cluster/kind/README.md): installs Debian's podman, runc, debootstrap
# and jq where missing, and gives Podman the settings kind's privileged
# node containers need on a host whose capability bounding set lacks
# CAP_SYS_RESOURCE (a sandbox, a CI runner):
#
#   - runc, not crun: Debian 12's crun 1.8 fails to set up a privileged
#     container's cgroups on a cgroup v1 (hybrid) host;
#   - default_ulimits at or below the host's hard limits: without
#     CAP_SYS_RESOURCE a container cannot raise them, and Podman raises
#     nofile and nproc to its own defaults unless told.
#
# The settings go into a file of their own in /etc/containers/containers.conf.d
# (the user's containers.conf is left alone); rerunning rewrites it. Needs root.
set -euo pipefail

log() { echo "kind-podman-setup.sh: $*" >&2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

missing=()
for c in podman:podman runc:runc debootstrap:debootstrap jq:jq; do
  command -v "${c%%:*}" >/dev/null 2>&1 || missing+=("${c#*:}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  "${here}/apt-install.sh" kind-podman-setup.sh "${missing[@]}"
fi
if [[ $(id -u) -ne 0 ]]; then
  log "writing /etc/containers/containers.conf.d needs root; kind's Podman provider runs rootful here"
  exit 1
fi

# The limits a container may keep: the host's hard limits, capped where a
# higher value buys a node nothing. nproc is also capped at the kernel's
# pid_max: on the sandbox this was measured on (hard nproc 96367, pid_max
# 32768) runc could set nproc up to 32768 and failed with EPERM above it.
nofile=$(ulimit -Hn)
nproc=$(ulimit -Hu)
pid_max=$(cat /proc/sys/kernel/pid_max)
[[ ${nofile} == unlimited || ${nofile} -gt 1048576 ]] && nofile=1048576
[[ ${nproc} == unlimited || ${nproc} -gt 65536 ]] && nproc=65536
[[ ${nproc} -gt ${pid_max} ]] && nproc=${pid_max}
conf=/etc/containers/containers.conf.d/50-provider-coder-kind.conf
mkdir -p "$(dirname "${conf}")"
cat > "${conf}" <<EOF
# Written by provider-coder's hack/kind-podman-setup.sh for kind's nodes.
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]

[engine]
runtime = "runc"
EOF
log "wrote ${conf} (nofile ${nofile}, nproc ${nproc}, runtime runc)"
# kind mounts the host's /lib/modules into its nodes read-only.
mkdir -p /lib/modules
