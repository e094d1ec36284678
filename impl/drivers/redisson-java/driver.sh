#!/bin/sh
# Starts lockcheck's Redisson driver (protocol 1, impl/driver/doc.go) built by
# `make deps` (build.sh: mvn package) into target/, or the build of another
# Redisson release in the folder named with --build DIR (lockcheck's cache,
# for a subject redisson@VERSION). The other arguments go to the driver
# (--lock lock|fair|fenced|spin|rwlock|multilock|redlock|semaphore|
# permit-semaphore|latch, --members N for multilock and redlock,
# --command-timeout-ms N), whose JVM starts
# with the Java drivers' flags (../java-common/launch.sh) and those of the
# build (its jvm.flags, from build.sh).
dir=$(dirname "$0")
build=$dir/target
if [ "$1" = "--build" ]; then
  build=$2
  shift 2
fi
flags=""
[ -f "$build/jvm.flags" ] && flags=$(cat "$build/jvm.flags")
. "$dir/../java-common/launch.sh"
launch_driver "redisson driver" "$build" redisson-driver.jar lockcheck.redisson.Driver "$flags" "$@"
