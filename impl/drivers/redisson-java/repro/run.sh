#!/bin/sh
# Runs FairBusyQueue.java N times (default 5) against a redis-server of its
# own on a free loopback port, and counts the runs where Redisson's fair lock
# broke FIFO, then one control run where try waits 2000 ms (its deadline then
# survives the purge: FIFO expected). Needs java 11+, redis-server, and the Redisson jars that
# ../build.sh puts in ../target/lib.
#
#   run.sh [N]
set -eu
n=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
lib="$here/../target/lib"
[ -f "$lib/redisson-3.52.0.jar" ] || { echo "run.sh: $lib/redisson-3.52.0.jar missing: run ../build.sh" >&2; exit 2; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/redis.log" 2>&1 &
rpid=$!
trap 'kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
i=0
until redis-cli -p "$port" ping >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 100 ] || { echo "run.sh: redis-server on $port did not start" >&2; exit 1; }
  sleep 0.05
done

broken=0
fifo=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$(java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$lib/*" "$here/FairBusyQueue.java" "$port") || { echo "$out"; echo "run.sh: run $r failed" >&2; exit 1; }
  echo "$out"
  case "$out" in
    *"RESULT broken"*) broken=$((broken + 1)) ;;
    *"RESULT fifo"*) fifo=$((fifo + 1)) ;;
  esac
done
echo "=== control: try waits 2000 ms"
java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$lib/*" "$here/FairBusyQueue.java" "$port" 2000 | tail -2
echo "=== $broken of $n runs broke FIFO ($fifo kept it), Redisson 3.52.0, $(date -u +%Y-%m-%dT%H:%MZ)"
