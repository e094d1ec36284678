#!/bin/sh
# Runs RenewalRefused.java on Redisson 3.43.0 (../target-3.43.0/lib) and on
# the pinned Redisson (../target/lib, the control) against a redis-server of
# its own: one renewal answered with an error ends 3.43.0's watchdog, and
# the never-released lock is gone at 3 s; the pinned release keeps it. Needs
# java 17+, redis-server, and both builds (../build.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=renewal-refused.sh
. "$here/redis.sh"
old="$here/../target-3.43.0/lib"
[ -f "$old/redisson-3.43.0.jar" ] || { echo "$name: $old/redisson-3.43.0.jar missing: run ../build.sh --line 3.43.0" >&2; exit 2; }
for l in "$old" "$lib"; do
  $jvm -cp "$l/*" "$here/RenewalRefused.java" "$port" | grep RESULT
done
