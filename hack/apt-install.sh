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

# Installs Debian packages for the test bed: apt-get install as root, or
# through sudo. Used by install-postgres.sh and install-redis.sh, which
# decide what is missing; this script only installs it.
#
# Usage: apt-install.sh CALLER PACKAGE...
set -euo pipefail

caller=$1
shift
log() { echo "${caller}: $*" >&2; }

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  log "$* not installed and installing needs root: apt-get install -y $*"
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "$* not installed and this is not a Debian-like system; install it yourself"
  exit 1
fi
log "installing Debian's $* package(s)"
start=${SECONDS}
# Another install (the test bed's PostgreSQL beside kind's Podman) waits
# for dpkg's lock instead of failing at once.
lock=(-o DPkg::Lock::Timeout=600)
"${sudo[@]}" apt-get "${lock[@]}" update -qq >&2
# A package may set up and start a server of its own on its default port;
# the tests never use it: they start their own on ports of their own.
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "${lock[@]}" install -y -qq --no-install-recommends "$@" >&2
log "installed in $((SECONDS - start))s"
