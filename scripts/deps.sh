#!/usr/bin/env bash
# deps.sh [redis]: installs what lockcheck needs when it is missing, saying
# what it installs; a second run installs nothing.
#
#   deps.sh redis   redis-server and redis-cli only: what `make run` needs
#   deps.sh         everything the tests need (`make deps`, run by `make
#                   test`): redis-server and redis-cli, nftables (partitions),
#                   gcc (the clock shim, built into faults/clockshim), then
#                   each driver's own impl/drivers/*/build.sh, which installs
#                   its toolchain and its pinned packages and builds it; the
#                   servers of --server (scripts/servers.sh) and a Docker
#                   engine (scripts/docker-engine.sh)
#
# From Debian/Ubuntu packages with apt-get (as root, else with sudo). Without
# apt-get a step that lacks something is skipped, saying what to install,
# and the tests that need it skip; a step that fails otherwise fails deps.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/pkg.sh

skipped=()
# step NAME CMD...: runs CMD; its PKG_SKIPPED status is a skip, not a failure.
step() {
  local name=$1 status=0
  shift
  "$@" || status=$?
  case $status in
  0) ;;
  "$PKG_SKIPPED") skipped+=("$name") ;;
  *)
    echo "deps.sh: $name failed (exit $status)" >&2
    exit "$status"
    ;;
  esac
}

redis() {
  want redis-server has redis-server
  want redis-tools has redis-cli
  install_wanted "redis-server (lockcheck starts its own; elsewhere point REDIS_SERVER at one)"
}

faults() {
  want nftables has nft
  want gcc has gcc
  install_wanted "the partition and clock faults (nft, gcc)" || return
  local shim=faults/clockshim
  if [ ! "$shim/libclockshim.so" -nt "$shim/shim.c" ]; then
    echo "building $shim/libclockshim.so ..." >&2
    gcc -shared -fPIC -O2 -Wall -o "$shim/libclockshim.so" "$shim/shim.c" -ldl
  fi
}

# servers: Valkey 8.1 and Redis 6.2.14 for --server (scripts/servers.sh,
# pinned by hash, into $XDG_CACHE_HOME/lockcheck), which needs a virtualenv's
# pip, gcc and make.
servers() {
  want python3-venv /usr/bin/python3 -c 'import ensurepip, venv'
  want gcc has gcc
  want make has make
  install_wanted "the servers of --server (python3-venv, gcc, make)" || return
  bash scripts/servers.sh
}

case ${1:-} in
"")
  step redis redis
  step faults faults
  for build in impl/drivers/*/build.sh; do
    step "${build%/build.sh}" bash "$build"
  done
  step servers servers
  # A Docker engine for the container backend: used if one answers, else
  # docker.io installed and dockerd started; a warning where neither can be.
  step docker-engine bash scripts/docker-engine.sh
  ;;
redis) step redis redis ;;
*)
  echo "usage: scripts/deps.sh [redis] (not $1)" >&2
  exit 2
  ;;
esac
if [ ${#skipped[@]} -gt 0 ]; then
  echo "deps.sh: skipped ${skipped[*]} (see above): what needs them is skipped" >&2
fi
exit 0
