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

# Makes sure PostgreSQL's server binaries are installed, for the real Coder
# the tests run (test/framework/realcoder starts its own server with its own data
# directory and port; it never uses a cluster the package may have set up).
# Installs Debian's postgresql package when /usr/lib/postgresql/*/bin holds
# no initdb and postgres, which needs root (or sudo). Prints the bin directory.
#
# Environment:
#   PROVIDER_CODER_PG_BIN  use this bin directory instead; nothing is installed.
set -euo pipefail

log() { echo "install-postgres.sh: $*" >&2; }

find_bin() {
  if [[ -n "${PROVIDER_CODER_PG_BIN:-}" ]]; then
    [[ -x "${PROVIDER_CODER_PG_BIN}/initdb" && -x "${PROVIDER_CODER_PG_BIN}/postgres" ]] && echo "${PROVIDER_CODER_PG_BIN}"
    return
  fi
  local d
  # Newest major version first, as test/framework/realcoder picks it.
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
    if [[ -x "${d}/initdb" && -x "${d}/postgres" ]]; then echo "${d}"; return; fi
  done
}

if bin=$(find_bin) && [[ -n "${bin}" ]]; then
  echo "${bin}"
  exit 0
fi
if [[ -n "${PROVIDER_CODER_PG_BIN:-}" ]]; then
  log "PROVIDER_CODER_PG_BIN=${PROVIDER_CODER_PG_BIN} holds no initdb and postgres"
  exit 1
fi

"$(dirname "$0")/apt-install.sh" install-postgres.sh postgresql
bin=$(find_bin)
if [[ -z "${bin}" ]]; then
  log "postgresql is installed but /usr/lib/postgresql/*/bin holds no initdb and postgres"
  exit 1
fi
echo "${bin}"
