#!/bin/sh
# Runs RenewalLeak.java, UnlinkTimeout.java, TryLockWaitsTwice.java and
# InterruptedLockRenewed.java against a redis-server of their
# own (the library alone: the driver's classpath, none of its classes). Needs
# make deps (the driver's target/lib), java 17, redis-server and python3 (for
# a free port). SPRING_LIB names another release's jars instead of
# ../target/lib (a build lockcheck cached for spring-lock-*@VERSION:
# ~/.cache/lockcheck/spring-integration-redis/VERSION-*/lib).
set -eu
cd "$(dirname "$0")"
lib="${SPRING_LIB:-../target/lib}"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir" "$dir.classes"' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
mkdir -p "$dir.classes"
javac -d "$dir.classes" -cp "$lib/*" RenewalLeak.java UnlinkTimeout.java TryLockWaitsTwice.java InterruptedLockRenewed.java
for n in 0 1 10; do
  java -Dorg.slf4j.simpleLogger.defaultLogLevel=error '-Dorg.slf4j.simpleLogger.log.org.springframework.scheduling.support.TaskUtils$LoggingErrorHandler=off' -cp "$lib/*:$dir.classes" RenewalLeak "$port" "$n"
done
java -cp "$lib/*:$dir.classes" UnlinkTimeout "$port"
java -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$lib/*:$dir.classes" TryLockWaitsTwice "$port" 5
for n in 0 3; do
  java -Dorg.slf4j.simpleLogger.defaultLogLevel=error '-Dorg.slf4j.simpleLogger.log.org.springframework.scheduling.support.TaskUtils$LoggingErrorHandler=off' -cp "$lib/*:$dir.classes" InterruptedLockRenewed "$port" 100 "$n" 1
done
