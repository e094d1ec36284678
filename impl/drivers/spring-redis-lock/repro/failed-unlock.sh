#!/bin/sh
# Runs FailedUnlockRenewed.java (ROUNDS, default 5, in MODE spin or pubsub,
# default both) against a redis-server of its own, the library alone, for
# the release whose jars SPRING_LIB names (default ../target/lib, the pinned
# 6.5.5; a release lockcheck built:
# ~/.cache/lockcheck/spring-integration-redis/VERSION-*/lib).
set -eu
cd "$(dirname "$0")"
lib="${SPRING_LIB:-../target/lib}"
rounds="${1:-5}"
name=$(basename "$0")
. ../../repro-redis.sh
mkdir -p "$dir/classes"
javac -d "$dir/classes" -cp "$lib/*" FailedUnlockRenewed.java
for mode in ${2:-spin pubsub}; do
  java -Dorg.slf4j.simpleLogger.defaultLogLevel=error '-Dorg.slf4j.simpleLogger.log.org.springframework.scheduling.support.TaskUtils$LoggingErrorHandler=off' -cp "$lib/*:$dir/classes" FailedUnlockRenewed "$port" "$rounds" "$mode"
done
