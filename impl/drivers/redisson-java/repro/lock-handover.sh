#!/bin/sh
# Runs LockHandover.java against a redis-server of its own: N handovers
# (default 1000) of one RLock from a holder to a lockAsync waiter, seed SEED
# (default 1), the two owners on one client (CLIENTS one, the default) or two.
# A waiter that misses the unlock's message sleeps its ttl beside the free
# lock. BUSY (default 0) threads spin beside it, preempting the client as a
# loaded machine does. On the Redisson whose jars are in REDISSON_LIB (default: the pinned
# build, ../target/lib; lockcheck's cache holds the builds of other
# releases: ~/.cache/lockcheck/redisson/VERSION-STAMP/lib). Needs java 17+
# and redis-server.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.16.3-3586a12a43/lib lock-handover.sh 3000 1
#   lock-handover.sh 3000 1 two 4
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=lock-handover.sh
clients=${3:-one}
case $clients in
one | two) ;;
*) echo "$name: CLIENTS is one or two, not $clients" >&2; exit 2 ;;
esac
. "$here/redis.sh"
$jvm -cp "$lib/*" "$here/LockHandover.java" "$port" "${1:-1000}" "${2:-1}" "$clients" "${4:-0}"
