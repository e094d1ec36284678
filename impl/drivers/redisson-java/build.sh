#!/bin/sh
# Builds lockcheck's Redisson driver (make deps runs it): mvn package into
# target/ (or target-<version>/ with --line <version>: an older Redisson line
# from the same sources), then a class-data archive (driver.jsa, AppCDS) from
# a short run that loads the classes of a start and a connection attempt, for
# a faster JVM start. Does nothing when the archive is newer than pom.xml and
# the sources (the archive records the jar's time: the jar is never touched
# after it). Needs java 17+ and Maven; Maven downloads the pinned artifacts.
set -eu
cd "$(dirname "$0")"
build=target
args=""
if [ "${1:-}" = "--line" ]; then
  build="target-$2"
  args="-Dredisson.version=$2 -Dbuild.dir=$build"
fi
jar="$build/redisson-driver.jar"
if [ -f "$jar" ] && [ -f "$build/driver.jsa" ] && [ -z "$(find pom.xml src -newer "$build/driver.jsa" | head -1)" ]; then
  exit 0
fi
echo "building the Redisson driver ($build) ..." >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
if ! mvn -B -q package $args >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
rm -f "$build/driver.jsa"
printf '%s\n' \
  '{"id":1,"op":"hello","protocol":1,"timeout_ms":2000,"redis":["127.0.0.1:1"],"client":"cds","watchdog_ms":1500}' \
  '{"id":2,"op":"trylock","name":"cds","wait_ms":1,"timeout_ms":100}' |
  java -Xlog:disable -Xlog:all=error:stderr -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k \
    -XX:ArchiveClassesAtExit="$build/driver.jsa" -cp "$jar:$build/lib/*" lockcheck.redisson.Driver >/dev/null 2>&1 || true
