#!/bin/sh
# Runs InterruptedLock.java N times (default 3) against a redis-server of
# its own on a free loopback port: a thread interrupted during
# lockInterruptibly() that gets a RedisException can leave the lock held,
# renewed by the watchdog for as long as the client lives; a leased lock
# (the control, same run) runs out. KIND is lock (RLock, the default), fair
# (RFairLock), spin (RedissonSpinLock, whose acquire loop is its own: on
# 4.7.0 a rare orphan, 4 of 1,142 over three runs), fenced (RFencedLock,
# 3.25.0 on), or read or write (RReadWriteLock's read or write lock).
# Needs java 17+, redis-server, and the Redisson jars that ../build.sh
# puts in ../target/lib.
#
#   interrupted-lock.sh [N] [TRIALS] [KIND]
set -eu
n=${1:-3}
trials=${2:-200}
kind=${3:-lock}
delay=${4:-0}
at=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
name=interrupted-lock.sh
. "$here/redis.sh"

for r in $(seq 1 "$n"); do
  echo "=== run $r of $n (redis port $port)"
  out=$($jvm -cp "$lib/*" "$here/InterruptedLock.java" "$port" "$trials" "$kind" "$delay" $at) || { echo "$out"; echo "interrupted-lock.sh: run $r failed" >&2; exit 1; }
  echo "$out" | grep RESULT
done
echo "=== Redisson $release, $(date -u +%Y-%m-%dT%H:%MZ)"
