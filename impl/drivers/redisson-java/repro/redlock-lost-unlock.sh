#!/bin/sh
# Runs RedLockLostUnlock.java N times (default 3) against a redis-server of
# its own on a free loopback port: RedissonRedLock.unlock() after the hold's
# lease ran out and another client took the lock returns normally (the
# caller is told nothing was lost); RedissonMultiLock.unlock(), the
# control in the same run, throws IllegalMonitorStateException.
# Needs java 17+, redis-server, and the Redisson jars that ../build.sh puts
# in ../target/lib.
#
#   redlock-lost-unlock.sh [N]
set -eu
n=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
name=redlock-lost-unlock.sh
. "$here/redis.sh"

returned=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$($jvm -cp "$lib/*" "$here/RedLockLostUnlock.java" "$port") || { echo "$out"; echo "$name: run $r failed" >&2; exit 1; }
  echo "$out" | grep -v '^$'
  case "$out" in
    *"RESULT redlock returns"*) returned=$((returned + 1)) ;;
  esac
done
echo "=== $returned of $n runs: RedissonRedLock.unlock() returned normally after the hold was lost (the MultiLock control above), Redisson $release, $(date -u +%Y-%m-%dT%H:%MZ)"
