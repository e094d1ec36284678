#!/bin/sh
# Runs ReentryRenewalAfterUnlock.java on Redisson 3.45.1 (../target-3.45.1/lib)
# and on the pinned Redisson (../target/lib, the control) against a
# redis-server of its own: a thread takes the lock 3 times and unlocks it 3
# times, and 3.37.0-3.45.1 still send renewals of the key within 1.5 s (the
# LockEntry flaw 3.46.0 fixed); a hold taken once sends none, and the pinned
# release sends none either way. Needs java 17+, redis-server, and the pinned
# build (../build.sh); it builds 3.45.1 into ../target-3.45.1 when missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=reentry-renewal-after-unlock.sh
. "$here/redis.sh"
old="$here/../target-3.45.1/lib"
[ -f "$old/redisson-3.45.1.jar" ] || bash "$here/../build.sh" --version 3.45.1 --out "$here/../target-3.45.1" >&2
for l in "$old" "$lib"; do
  for depth in 3 1; do
    $jvm -cp "$l/*" "$here/ReentryRenewalAfterUnlock.java" "$port" "$depth" | grep RESULT
  done
done
