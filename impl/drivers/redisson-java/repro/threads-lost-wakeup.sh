#!/bin/sh
# Runs ThreadsLostWakeup.java against a redis-server of its own for SECONDS
# (default 30): two RedissonClients, THREADS threads each (default 8),
# looping lock(), a 0-1 ms hold, unlock() on one of LOCKS lock names
# (default 3), seed SEED (default 1); counts the lock() calls that waited
# longer than 500 ms and, for each, how long the lock was free meanwhile.
# On the Redisson whose jars are in REDISSON_LIB (default: the pinned build,
# ../target/lib; lockcheck's cache holds the builds of other releases:
# ~/.cache/lockcheck/redisson/VERSION-STAMP/lib). Needs java 17+ and
# redis-server.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.16.3-3586a12a43/lib threads-lost-wakeup.sh 30
#   threads-lost-wakeup.sh 30 2 1 8
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=threads-lost-wakeup.sh
. "$here/redis.sh"
$jvm -cp "$lib/*" "$here/ThreadsLostWakeup.java" "$port" "${1:-30}" "${2:-3}" "${3:-1}" "${4:-8}"
