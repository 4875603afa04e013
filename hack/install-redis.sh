#!/usr/bin/env bash
# Makes sure redis-server and git are installed, for Argo CD's application
# controller and repo server that test/argocdsync runs (it starts its own
# redis-server on a port of its own, with no data on disk; it never uses a
# server the package may have set up). Installs Debian's redis-server and git
# packages when either command is missing, which needs root (or sudo).
# Prints the path of redis-server.
set -euo pipefail

log() { echo "install-redis.sh: $*" >&2; }

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v git >/dev/null 2>&1 || missing+=(git)
if [[ ${#missing[@]} -eq 0 ]]; then
  command -v redis-server
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  log "${missing[*]} not installed and installing needs root: apt-get install -y ${missing[*]}"
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "${missing[*]} not installed and this is not a Debian-like system; install them"
  exit 1
fi
log "installing Debian's ${missing[*]} package(s)"
start=${SECONDS}
"${sudo[@]}" apt-get update -qq >&2
# The redis-server package may start a server of its own on port 6379; the
# tests never use it.
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
log "installed in $((SECONDS - start))s"
for c in redis-server git; do
  if ! command -v "${c}" >/dev/null 2>&1; then
    log "${c} is still missing after apt-get install"
    exit 1
  fi
done
command -v redis-server
