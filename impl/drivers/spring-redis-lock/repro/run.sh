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
name=$(basename "$0")
. ../../repro-redis.sh
mkdir -p "$dir/classes"
javac -d "$dir/classes" -cp "$lib/*" RenewalLeak.java UnlinkTimeout.java TryLockWaitsTwice.java InterruptedLockRenewed.java
for n in 0 1 10; do
  java -Dorg.slf4j.simpleLogger.defaultLogLevel=error '-Dorg.slf4j.simpleLogger.log.org.springframework.scheduling.support.TaskUtils$LoggingErrorHandler=off' -cp "$lib/*:$dir/classes" RenewalLeak "$port" "$n"
done
java -cp "$lib/*:$dir/classes" UnlinkTimeout "$port"
java -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$lib/*:$dir/classes" TryLockWaitsTwice "$port" 5
for n in 0 3; do
  java -Dorg.slf4j.simpleLogger.defaultLogLevel=error '-Dorg.slf4j.simpleLogger.log.org.springframework.scheduling.support.TaskUtils$LoggingErrorHandler=off' -cp "$lib/*:$dir/classes" InterruptedLockRenewed "$port" 100 "$n" 1
done
