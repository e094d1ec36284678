#!/bin/sh
# Runs StrayUnlock.java N times (default 3) against a redis-server of its
# own on a free loopback port: Redisson's fair lock answers an unlock by a
# caller that holds nothing (the lock free) without the
# IllegalMonitorStateException that its non-fair lock (the control, same
# run) throws. Needs java 17+, redis-server, and the Redisson jars that
# ../build.sh puts in ../target/lib.
#
#   stray-unlock.sh [N]
set -eu
n=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
name=stray-unlock.sh
. "$here/redis.sh"

broken=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$($jvm -cp "$lib/*" "$here/StrayUnlock.java" "$port") || { echo "$out"; echo "stray-unlock.sh: run $r failed" >&2; exit 1; }
  echo "$out" | grep RESULT
  case "$out" in
    *"RESULT fair returns"*) broken=$((broken + 1)) ;;
  esac
done
echo "=== $broken of $n runs: the fair lock's stray unlock returned (the non-fair lock's control above), Redisson $release, $(date -u +%Y-%m-%dT%H:%MZ)"
