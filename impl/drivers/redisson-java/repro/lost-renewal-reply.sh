#!/bin/sh
# Runs LostRenewalReply.java against a redis-server of its own, on the
# Redisson whose jars are in REDISSON_LIB (default: the pinned build,
# ../target/lib), for an RLock and a RedissonMultiLock of three: one lost
# renewal reply; two (the retry dies too); one, then every connection
# killed at KILL_AT_S (default 2.2, about when the retry is due). Each
# prints RESULT retried (the watchdog renewed again after the last kill)
# or RESULT silent. Needs java 17+ and redis-server.
#
#   lost-renewal-reply.sh [KILL_AT_S]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=lost-renewal-reply.sh
. "$here/redis.sh"
at=${1:-2.2}
for kind in multi lock; do
  for args in "1" "2" "1 $at"; do
    $jvm -cp "$lib/*" "$here/LostRenewalReply.java" "$port" "$kind" $args | grep RESULT
  done
done
