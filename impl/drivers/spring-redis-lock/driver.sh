#!/bin/sh
# Starts lockcheck's RedisLockRegistry driver (protocol 1, impl/driver/doc.go)
# built by `make deps` (build.sh: mvn package) into target/, or the build of
# another release in the folder named with --build DIR (lockcheck's cache). The arguments go
# to the driver (--mode spin|pubsub, --command-timeout-ms N), whose JVM starts
# with the Java drivers' flags (../java-common/launch.sh) and C1 only (half
# the CPU time of a start to hello ok here: 0.6-0.7 s instead of 1.2-1.4 s).
dir=$(dirname "$0")
build=$dir/target
if [ "$1" = "--build" ]; then
  build=$2
  shift 2
fi
. "$dir/../java-common/launch.sh"
launch_driver "spring-lock driver" "$build" spring-lock-driver.jar lockcheck.spring.Driver "-XX:TieredStopAtLevel=1" "$@"
