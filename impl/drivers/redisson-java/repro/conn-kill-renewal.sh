#!/bin/sh
# Runs ConnKillRenewal.java N times (default 10), SECONDS each (default 40),
# seeds 1..N (with a third argument "retries": at Redisson's own default
# timeout and retries, not lockcheck's driver's), against a redis-server of its own, on the Redisson whose jars
# are in REDISSON_LIB (default: the pinned build, ../target/lib; lockcheck's
# cache holds other releases' builds: ~/.cache/lockcheck/redisson/VERSION-STAMP/lib).
# Needs java 17+ and redis-server.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.46.0-51bc19b67e/lib conn-kill-renewal.sh 10 40
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=conn-kill-renewal.sh
. "$here/redis.sh"
i=1
while [ "$i" -le "${1:-10}" ]; do
  $jvm -cp "$lib/*" "$here/ConnKillRenewal.java" "$port" "${2:-40}" "$i" ${3:-} | grep RESULT
  i=$((i + 1))
done
