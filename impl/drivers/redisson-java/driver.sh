#!/bin/sh
# Starts lockcheck's Redisson driver (protocol 1, impl/driver/doc.go) built by
# `make deps` (mvn package) into target/, or into target-<version>/ for an
# older Redisson line named with --line <version>. The other arguments go to
# the driver (--lock lock|fair|fenced|spin, --command-timeout-ms N), whose JVM
# starts with the Java drivers' flags (../java-common/launch.sh).
dir=$(dirname "$0")
build=target
if [ "$1" = "--line" ]; then
  build="target-$2"
  shift 2
fi
. "$dir/../java-common/launch.sh"
launch_driver "redisson driver" "$dir/$build" redisson-driver.jar lockcheck.redisson.Driver "" "$@"
