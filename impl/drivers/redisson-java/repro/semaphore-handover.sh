#!/bin/sh
# Runs SemaphoreHandover.java against a redis-server of its own: N handovers
# (default 1000) of one permit between two clients, seed SEED (default 1),
# on a semaphore of kind KIND: semaphore (the default: RSemaphore,
# tryAcquireAsync(1, 2500 ms), release()) or permit (RPermitExpirableSemaphore
# as lockcheck's driver calls it: tryAcquireAsync(2500, 10000, ms), then
# tryReleaseAsync(id)). On the Redisson whose jars are in REDISSON_LIB
# (default: the pinned build, ../target/lib; lockcheck's cache holds the
# builds of other releases: ~/.cache/lockcheck/redisson/VERSION-STAMP/lib).
# Needs java 17+ and redis-server.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.27.2-51bc19b67e/lib semaphore-handover.sh 1000 1
#   semaphore-handover.sh 3000 1 permit
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=semaphore-handover.sh
kind=${3:-semaphore}
case $kind in
semaphore | permit) ;;
*) echo "$name: KIND is semaphore or permit, not $kind" >&2; exit 2 ;;
esac
. "$here/redis.sh"
$jvm -cp "$lib/*" "$here/SemaphoreHandover.java" "$port" "${1:-1000}" "${2:-1}" "$kind"
