#!/bin/sh
# Builds lockcheck's RedisLockRegistry driver (make deps runs it): mvn package
# into target/ (spring-lock-driver.jar and target/lib/), then a class-data
# archive (target/driver.jsa, AppCDS) from a short run that loads the classes
# of a start and a connection attempt, for a faster JVM start. A build whose
# archive is newer than pom.xml and the sources is skipped (the archive
# records the jar's time: the jar is never touched after it). Needs java 17+
# and Maven; Maven downloads the pinned artifacts.
set -eu
cd "$(dirname "$0")"
jar=target/spring-lock-driver.jar
if [ -f "$jar" ] && [ -f target/driver.jsa ] && [ -z "$(find pom.xml src -newer target/driver.jsa | head -1)" ]; then
  exit 0
fi
echo "building the RedisLockRegistry driver (impl/drivers/spring-redis-lock) ..." >&2
log=$(mktemp)
if ! mvn -B -q package >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log" target/driver.jsa
printf '%s\n' \
  '{"id":1,"op":"hello","protocol":1,"timeout_ms":2000,"redis":["127.0.0.1:1"],"client":"cds","watchdog_ms":1500}' \
  '{"id":2,"op":"trylock","name":"cds","wait_ms":1,"timeout_ms":100}' |
  java -Xlog:disable -Xlog:all=error:stderr -XX:+UseSerialGC -Xss512k \
    -XX:ArchiveClassesAtExit=target/driver.jsa -cp "$jar:target/lib/*" lockcheck.spring.Driver --mode pubsub >/dev/null 2>&1 || true
