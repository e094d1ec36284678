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
lib="$here/../target/lib"
[ -f "$lib/redisson-3.52.0.jar" ] || { echo "fenced-clock-step.sh: $lib/redisson-3.52.0.jar missing: run ../build.sh" >&2; exit 2; }

dir=$(mktemp -d)
rpid=
trap '[ -z "$rpid" ] || { kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; }; rm -rf "$dir"' EXIT INT TERM
shim=${LOCKCHECK_CLOCKSHIM:-}
if [ -z "$shim" ]; then
  shim="$dir/libclockshim.so"
  ${CC:-cc} -shared -fPIC -O2 -Wall -o "$shim" "$here/../../../../faults/clockshim/shim.c" -ldl
fi
clock="$dir/clock"
head -c 8 /dev/zero >"$clock"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/redis.log" 2>&1 &
rpid=$!
i=0
until redis-cli -p "$port" ping >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 100 ] || { echo "fenced-clock-step.sh: redis-server on $port did not start" >&2; exit 1; }
  sleep 0.05
done

step() {
  env LD_PRELOAD="$shim" LOCKCHECK_CLOCK_FILE="$clock" \
    java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$lib/*" "$here/FencedClockStep.java" "$port" "$clock" "$1"
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
echo "=== $broken of $n runs: lockAndGetToken() returned while another client held the lock, Redisson 3.52.0, $(date -u +%Y-%m-%dT%H:%MZ)"
