#!/bin/sh
# Runs FencedClockStep.java N times (default 5) with its wall clock stepped
# back 60 s while client b waits in RFencedLock.lockAndGetToken() for client
# a's lock, against a redis-server of its own on a free loopback port, and
# counts the runs where b's call returned while a held the lock; then one
# control run stepped forward 60 s (b must keep waiting). The clock shim is
# lockcheck's (faults/clockshim/shim.c, compiled here with cc, or
# $LOCKCHECK_CLOCKSHIM). Needs java 17+, cc, redis-server, and the Redisson
# jars that ../build.sh puts in ../target/lib.
#
#   fenced-clock-step.sh [N]
set -eu
n=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
name=fenced-clock-step.sh
. "$here/redis.sh"

shim=${LOCKCHECK_CLOCKSHIM:-}
if [ -z "$shim" ]; then
  shim="$dir/libclockshim.so"
  ${CC:-cc} -shared -fPIC -O2 -Wall -o "$shim" "$here/../../../../faults/clockshim/shim.c" -ldl
fi
clock="$dir/clock"
head -c 8 /dev/zero >"$clock"

step() {
  env LD_PRELOAD="$shim" LOCKCHECK_CLOCK_FILE="$clock" \
    $jvm -cp "$lib/*" "$here/FencedClockStep.java" "$port" "$clock" "$1"
}

broken=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port): wall clock stepped back 60 s"
  out=$(step -60000) || { echo "$out"; echo "fenced-clock-step.sh: run $r failed" >&2; exit 1; }
  echo "$out"
  case "$out" in
    *"RESULT broken"*) broken=$((broken + 1)) ;;
  esac
done
echo "=== control: wall clock stepped forward 60 s"
step 60000 | tail -3
echo "=== $broken of $n runs: lockAndGetToken() returned while another client held the lock, Redisson $release, $(date -u +%Y-%m-%dT%H:%MZ)"
