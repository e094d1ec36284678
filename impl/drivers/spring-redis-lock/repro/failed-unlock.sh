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
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir" "$dir.classes"' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
mkdir -p "$dir.classes"
javac -d "$dir.classes" -cp "$lib/*" FailedUnlockRenewed.java
for mode in ${2:-spin pubsub}; do
  java -Dorg.slf4j.simpleLogger.defaultLogLevel=error '-Dorg.slf4j.simpleLogger.log.org.springframework.scheduling.support.TaskUtils$LoggingErrorHandler=off' -cp "$lib/*:$dir.classes" FailedUnlockRenewed "$port" "$rounds" "$mode"
done
