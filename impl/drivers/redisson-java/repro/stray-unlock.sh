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
lib="$here/../target/lib"
[ -f "$lib/redisson-3.52.0.jar" ] || { echo "stray-unlock.sh: $lib/redisson-3.52.0.jar missing: run ../build.sh" >&2; exit 2; }

dir=$(mktemp -d)
rpid=
trap '[ -z "$rpid" ] || { kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; }; rm -rf "$dir"' EXIT INT TERM
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/redis.log" 2>&1 &
rpid=$!
i=0
until redis-cli -p "$port" ping >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 100 ] || { echo "stray-unlock.sh: redis-server on $port did not start" >&2; exit 1; }
  sleep 0.05
done

broken=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$(java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$lib/*" "$here/StrayUnlock.java" "$port") || { echo "$out"; echo "stray-unlock.sh: run $r failed" >&2; exit 1; }
  echo "$out" | grep RESULT
  case "$out" in
    *"RESULT fair returns"*) broken=$((broken + 1)) ;;
  esac
done
echo "=== $broken of $n runs: the fair lock's stray unlock returned (the non-fair lock's control above), Redisson 3.52.0, $(date -u +%Y-%m-%dT%H:%MZ)"
