#!/bin/sh
# Runs InterruptedUnlockRegrant.java ROUNDS times (default 200) against a
# redis-server of its own, the library alone, for the release whose jars
# SPRING_LIB names (default ../target/lib, the pinned 6.5.5; a release
# lockcheck built: ~/.cache/lockcheck/spring-integration-redis/VERSION-*/lib).
set -eu
cd "$(dirname "$0")"
lib="${SPRING_LIB:-../target/lib}"
rounds="${1:-200}"
name=$(basename "$0")
. ../../repro-redis.sh
mkdir -p "$dir/classes"
javac -d "$dir/classes" -cp "$lib/*" InterruptedUnlockRegrant.java
java -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$lib/*:$dir/classes" InterruptedUnlockRegrant "$port" "$rounds"
