#!/bin/sh
# Runs SemaphoreHandover.java against a redis-server of its own: N handovers
# (default 1000) of one RSemaphore permit between two clients, seed SEED
# (default 1), on the Redisson whose jars are in REDISSON_LIB (default: the
# pinned build, ../target/lib; lockcheck's cache holds the builds of other
# releases: ~/.cache/lockcheck/redisson/VERSION-STAMP/lib). Needs java 17+
# and redis-server.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.27.2-51bc19b67e/lib semaphore-handover.sh 1000 1
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=semaphore-handover.sh
. "$here/redis.sh"
$jvm -cp "$lib/*" "$here/SemaphoreHandover.java" "$port" "${1:-1000}" "${2:-1}"
