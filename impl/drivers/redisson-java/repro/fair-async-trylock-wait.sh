#!/bin/sh
# Runs FairAsyncTryLockWait.java against a redis-server of its own: TRIALS
# (default 3) schedules on one fair lock each (a holds it; W1 lock(), K
# tryLockAsync calls with a 500 ms wait, W2 and W3 lock() queue behind it;
# the tries fail; a unlocks), then the same TRIALS with sync tryLock, the
# control. Prints for each waiter how long it waited after a's unlock and
# how much of that the lock was free, the queue and its deadlines, and the
# ms each acquireFailed script subtracted; RESULT lines. On the Redisson
# whose jars are in REDISSON_LIB (default: the pinned build, ../target/lib;
# lockcheck's cache holds the builds of other releases:
# ~/.cache/lockcheck/redisson/VERSION-STAMP/lib). Needs java 17+ and
# redis-server. Each java run stays under a minute with the defaults.
#
#   REDISSON_LIB=~/.cache/lockcheck/redisson/3.13.3-3586a12a43/lib fair-async-trylock-wait.sh 3
#   fair-async-trylock-wait.sh TRIALS K WATCHDOG_MS WINDOW_MS
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=fair-async-trylock-wait.sh
. "$here/redis.sh"
trials=${1:-3}
k=${2:-2}
watchdog=${3:-4000}
window=${4:-7000}
for mode in async sync; do
  $jvm -cp "$lib/*" "$here/FairAsyncTryLockWait.java" "$port" "$trials" "$mode" "$k" "$watchdog" "$window"
done
