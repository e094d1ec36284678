#!/bin/sh
# Runs RenewalRefused.java on Redisson 3.43.0 (../target-3.43.0/lib) and on
# the pinned Redisson (../target/lib, the control) against a redis-server of
# its own: one renewal answered with an error ends 3.43.0's watchdog, and
# the never-released lock is gone at 3 s; the pinned release keeps it. Needs
# java 17+, redis-server, and the pinned build (../build.sh); it builds
# 3.43.0 into ../target-3.43.0 when missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=renewal-refused.sh
. "$here/redis.sh"
old="$here/../target-3.43.0/lib"
[ -f "$old/redisson-3.43.0.jar" ] || bash "$here/../build.sh" --version 3.43.0 --out "$here/../target-3.43.0" >&2
for l in "$old" "$lib"; do
  $jvm -cp "$l/*" "$here/RenewalRefused.java" "$port" | grep RESULT
done
