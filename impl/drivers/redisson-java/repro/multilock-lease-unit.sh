#!/bin/sh
# Runs MultiLockLeaseUnit.java N times (default 3) against a redis-server of
# its own on a free loopback port: RedissonMultiLock.lock(2, SECONDS) whose
# first round fails holds its members for 2,000,000 ms, while
# lock(2000, MILLISECONDS) (the control, same run) holds them for 2 s.
# Needs java 17+, redis-server, and the Redisson jars that ../build.sh puts
# in ../target/lib.
#
#   multilock-lease-unit.sh [N]
set -eu
n=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
name=multilock-lease-unit.sh
. "$here/redis.sh"

broken=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$($jvm -cp "$lib/*" "$here/MultiLockLeaseUnit.java" "$port") || { echo "$out"; echo "$name: run $r failed" >&2; exit 1; }
  echo "$out" | grep -v '^$'
  case "$out" in
    *"RESULT SECONDS broken"*) broken=$((broken + 1)) ;;
  esac
done
echo "=== $broken of $n runs: lock(2, SECONDS) held the members far past its lease (the MILLISECONDS control above), $(ls "$lib" | grep -o 'redisson-[0-9.]*[0-9]' | head -1), $(date -u +%Y-%m-%dT%H:%MZ)"
