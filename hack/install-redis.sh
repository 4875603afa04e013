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

# Makes sure redis-server and git are installed, for Argo CD's application
# controller and repo server that test/argocdsync runs (it starts its own
# redis-server on a port of its own, with no data on disk; it never uses a
# server the package may have set up), and jq and curl, which the docs'
# commands use and test/docs runs. Installs Debian's packages of those
# missing, which needs root (or sudo).
# Prints the path of redis-server.
set -euo pipefail

log() { echo "install-redis.sh: $*" >&2; }

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v jq >/dev/null 2>&1 || missing+=(jq)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [[ ${#missing[@]} -eq 0 ]]; then
  command -v redis-server
  exit 0
fi

"$(dirname "$0")/apt-install.sh" install-redis.sh "${missing[@]}"
for c in redis-server git jq curl; do
  if ! command -v "${c}" >/dev/null 2>&1; then
    log "${c} is still missing after apt-get install"
    exit 1
  fi
done
command -v redis-server
