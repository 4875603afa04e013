#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries are installed, for the real Coder
# the tests run (test/realcoder starts its own server with its own data
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
  # Newest major version first, as test/realcoder picks it.
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

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  log "PostgreSQL is not installed and installing it needs root: apt-get install -y postgresql"
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "PostgreSQL is not installed and this is not a Debian-like system; install it and set PROVIDER_CODER_PG_BIN"
  exit 1
fi
log "installing Debian's postgresql package"
start=${SECONDS}
"${sudo[@]}" apt-get update -qq >&2
# The package may set up and start a cluster of its own on port 5432; the
# tests never use it.
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends postgresql >&2
log "installed in $((SECONDS - start))s"
bin=$(find_bin)
if [[ -z "${bin}" ]]; then
  log "postgresql is installed but /usr/lib/postgresql/*/bin holds no initdb and postgres"
  exit 1
fi
echo "${bin}"
