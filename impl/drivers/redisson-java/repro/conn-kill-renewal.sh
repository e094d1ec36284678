#!/bin/sh
# Runs ConnKillRenewal.java N times (default 10), SECONDS each (default 40),
# seeds 1..N (with "retries" after them: at Redisson's own default timeout
# and retries, not lockcheck's driver's; with "multi": a RedissonMultiLock
# of three locks), against a redis-server of its own, on the Redisson whose jars
# are in REDISSON_LIB (default: the pinned build, ../target/lib; lockcheck's
# cache holds other releases' builds: ~/.cache/lockcheck/redisson/VERSION-STAMP/lib).
# Needs java 17+ and redis-server.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.46.0-51bc19b67e/lib conn-kill-renewal.sh 10 40
#   conn-kill-renewal.sh 5 20 multi
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=conn-kill-renewal.sh
. "$here/redis.sh"
n=${1:-10}
secs=${2:-40}
[ $# -lt 2 ] || shift 2
i=1
while [ "$i" -le "$n" ]; do
  $jvm -cp "$lib/*" "$here/ConnKillRenewal.java" "$port" "$secs" "$i" "$@" | grep RESULT
  i=$((i + 1))
done
