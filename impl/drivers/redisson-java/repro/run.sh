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
name=run.sh
. "$here/redis.sh"

broken=0
fifo=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$($jvm -cp "$lib/*" "$here/FairBusyQueue.java" "$port") || { echo "$out"; echo "run.sh: run $r failed" >&2; exit 1; }
  echo "$out"
  case "$out" in
    *"RESULT broken"*) broken=$((broken + 1)) ;;
    *"RESULT fifo"*) fifo=$((fifo + 1)) ;;
  esac
done
echo "=== control: try waits 2000 ms"
$jvm -cp "$lib/*" "$here/FairBusyQueue.java" "$port" 2000 | tail -2
echo "=== $broken of $n runs broke FIFO ($fifo kept it), Redisson $release, $(date -u +%Y-%m-%dT%H:%MZ)"
