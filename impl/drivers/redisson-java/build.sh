#!/usr/bin/env bash
# Builds lockcheck's Redisson driver (scripts/deps.sh runs it; so does
# lockcheck on the first use of its subjects): mvn package into target/ for
# the pom's Redisson, and into target-<version>/ for each older line in LINES
# (the same sources against that Redisson); then a class-data archive
# (driver.jsa, AppCDS) from a short run that loads the classes of a start and
# a connection attempt, for a faster JVM start. A build whose archive is newer
# than pom.xml, build.sh, the sources and ../java-common (the protocol side,
# compiled in) is skipped (up_to_date in ../java-common/build-lib.sh).
# Installs java 17 and Maven when missing (need_java); Maven downloads the
# pinned artifacts.
#
#   build.sh                 the pom's Redisson and every line in LINES
#   build.sh --line 3.43.0   that line only
set -euo pipefail
cd "$(dirname "$0")"
. ../java-common/build-lib.sh
need_java "the Redisson driver"

# LINES are the older Redisson lines built beside the pom's (subjects
# redisson-<major.minor>; see workloads/catalog/external.go).
LINES="3.43.0"

build() { # build DIR [MAVEN ARGS...]
  dir=$1
  shift
  jar="$dir/redisson-driver.jar"
  if up_to_date "$dir" redisson-driver.jar; then
    return 0
  fi
  echo "building the Redisson driver ($dir) ..." >&2
  mvn_package "$@" || return 1
  rm -f "$dir/driver.jsa"
  printf '%s\n' \
    '{"id":1,"op":"hello","protocol":1,"timeout_ms":2000,"redis":["127.0.0.1:1"],"client":"cds","watchdog_ms":1500}' \
    '{"id":2,"op":"trylock","name":"cds","wait_ms":1,"timeout_ms":100}' |
    java -Xlog:disable -Xlog:all=error:stderr -XX:+UseSerialGC -Xss512k \
      -XX:ArchiveClassesAtExit="$dir/driver.jsa" -cp "$jar:$dir/lib/*" lockcheck.redisson.Driver >/dev/null 2>&1 || true
}

if [ "${1:-}" = "--line" ]; then
  build "target-$2" "-Dredisson.version=$2" "-Dbuild.dir=target-$2"
  exit
fi
build target
for line in $LINES; do
  build "target-$line" "-Dredisson.version=$line" "-Dbuild.dir=target-$line"
done
