#!/bin/sh
# Runs RenewalAfterUnlock.java on Redisson 3.17.1 (../target-3.17.1/lib),
# 3.17.2 (../target-3.17.2/lib) and the pinned Redisson (../target/lib, the
# control) against a redis-server of its own: one thread locks and at once
# unlocks an RLock (then a spin lock) 20 times, and 3.17.1's watchdog
# renews each released hold once in the 700 ms after the unlock (its
# ExpirationEntry counts a thread's first hold twice, so unlock leaves the
# renewal task running until a renewal answers 0); 3.17.2 and the pinned
# release send none. Needs java 17+, redis-server, and the pinned build
# (../build.sh); it builds 3.17.1 and 3.17.2 into ../target-VERSION when
# missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=renewal-after-unlock.sh
. "$here/redis.sh"
for v in 3.17.1 3.17.2; do
  [ -f "$here/../target-$v/lib/redisson-$v.jar" ] || bash "$here/../build.sh" --version "$v" --out "$here/../target-$v" >&2
done
for l in "$here/../target-3.17.1/lib" "$here/../target-3.17.2/lib" "$lib"; do
  flags=""
  [ -f "$l/../jvm.flags" ] && flags=$(cat "$l/../jvm.flags")
  for kind in lock spin; do
    $jvm $flags -cp "$l/*" "$here/RenewalAfterUnlock.java" "$port" "$kind" 20 | grep RESULT
  done
done
