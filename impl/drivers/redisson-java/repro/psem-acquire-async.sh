#!/bin/sh
# Runs PsemAcquireAsync.java against a redis-server of its own on a free
# loopback port: RPermitExpirableSemaphore.acquireAsync on a semaphore with
# free permits and no other client, beside tryAcquireAsync and acquire.
# Redisson 3.16.8 to 3.17.3 (the changelog's "regression since 3.16.8",
# fixed in 3.17.4) drop the permit their first attempt took: with one free
# permit acquireAsync(2000 ms) answers after about 2 s (acquireAsync() with
# no lease never), with two free one permit too many is gone. Runs on the
# Redisson whose jars are in REDISSON_LIB (default: the pinned build,
# ../target/lib; lockcheck's cache of another release's build, e.g.
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.17.3-<hash>/lib psem-acquire-async.sh
# ). Needs java 17+ and redis-server.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=psem-acquire-async.sh
. "$here/redis.sh"
$jvm -cp "$lib/*" "$here/PsemAcquireAsync.java" "$port" || { echo "psem-acquire-async.sh: run failed" >&2; exit 1; }
echo "=== Redisson $release, $(date -u +%Y-%m-%dT%H:%MZ)"
