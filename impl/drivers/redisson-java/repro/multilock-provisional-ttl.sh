#!/bin/sh
# Runs MultiLockProvisionalTtl.java N times (default 3) against a redis-server of
# its own on a free loopback port: a RedissonMultiLock waiter that reads a
# member's provisional TTL (2 x the holder's wait, before the holder's
# closing PEXPIRE to its lease) sleeps on the free lock for seconds; the
# control (a holder granted at once) does not.
# Needs java 17+, redis-server, and the Redisson jars that ../build.sh puts
# in ../target/lib.
#
#   multilock-provisional-ttl.sh [N]
set -eu
n=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
name=multilock-provisional-ttl.sh
. "$here/redis.sh"

broken=0
for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$($jvm -cp "$lib/*" "$here/MultiLockProvisionalTtl.java" "$port") || { echo "$out"; echo "$name: run $r failed" >&2; exit 1; }
  echo "$out" | grep -v '^$'
  case "$out" in
    *"RESULT contended broken"*) broken=$((broken + 1)) ;;
  esac
done
echo "=== $broken of $n runs: the waiter slept on the free lock for more than a second (the control above), $(ls "$lib" | grep -o 'redisson-[0-9.]*[0-9]' | head -1), $(date -u +%Y-%m-%dT%H:%MZ)"
