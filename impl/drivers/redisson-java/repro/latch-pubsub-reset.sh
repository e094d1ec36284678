#!/bin/sh
# Runs LatchPubSubReset.java against a redis-server of its own: TRIALS
# (default 20) of each schedule (gap: CLIENT KILL TYPE pubsub, then the
# count-down that opens the latch at once; controls: no kill, and the
# count-down after the waiter resubscribed), seed SEED (default 1), with
# awaitAsync(2500 ms) (the driver's call) or, with "sync", await(2500 ms),
# on the Redisson whose jars are in REDISSON_LIB (default: the pinned
# build, ../target/lib). Needs java 17+ and redis-server.
#
#   latch-pubsub-reset.sh 20 1
#   latch-pubsub-reset.sh 10 2 sync
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=latch-pubsub-reset.sh
. "$here/redis.sh"
$jvm -cp "$lib/*" "$here/LatchPubSubReset.java" "$port" "${1:-20}" "${2:-1}" ${3:+"$3"}
