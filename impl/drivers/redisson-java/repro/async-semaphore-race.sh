#!/bin/sh
# Runs AsyncSemaphoreRace.java for SECONDS (default 20): acquire and release
# raced on a fresh Redisson AsyncSemaphore(0), round after round; counts the
# rounds whose acquire was left queued beside a free permit (the race that
# upstream commit 8370169a3 fixed in 4.6.1). No redis-server: the class
# alone. On the Redisson whose jars are in REDISSON_LIB (default: the
# pinned build, ../target/lib; lockcheck's cache holds the builds of other
# releases: ~/.cache/lockcheck/redisson/VERSION-STAMP/lib). Needs java 17+.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.16.3-3586a12a43/lib async-semaphore-race.sh 20
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=async-semaphore-race.sh
lib="${REDISSON_LIB:-$here/../target/lib}"
ls "$lib"/redisson-[0-9]*.jar >/dev/null 2>&1 || { echo "$name: no redisson jar in $lib: run ../build.sh" >&2; exit 2; }
jvm="java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn"
[ -f "$lib/../jvm.flags" ] && jvm="$jvm $(cat "$lib/../jvm.flags")"
$jvm -cp "$lib/*" "$here/AsyncSemaphoreRace.java" "${1:-20}" ${2:+"$2"}
