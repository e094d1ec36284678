#!/usr/bin/env bash
# Builds lockcheck's Redisson driver: mvn package of the pom's Redisson into
# target/ (make deps runs it), or of another Redisson release into a folder
# of its own (lockcheck runs it for a subject redisson@VERSION, into its
# cache); then a class-data archive (driver.jsa, AppCDS) from a short run
# that loads the classes of a start and a connection attempt, for a faster
# JVM start. Maven checks every artifact against the checksums Maven Central
# publishes (--strict-checksums). The sources of the parts of Redisson's API
# that differ between releases are picked by version: src/compat/current
# (3.25.0 and later, Redisson 4) or src/compat/legacy (3.8.0 to 3.24.x).
# A build of target/ whose archive is newer than pom.xml, build.sh, the
# sources and ../java-common (the protocol side, compiled in) is skipped
# (up_to_date in ../java-common/build-lib.sh). Installs java 17 and Maven
# when missing (need_java). Needs java 17+ and Maven.
#
#   build.sh                             the pom's Redisson into target/
#   build.sh --version 3.12.0 --out DIR  Redisson 3.12.0 into DIR
set -euo pipefail
cd "$(dirname "$0")"
. ../java-common/build-lib.sh
need_java "the Redisson driver"

# compat VERSION: the compat source set of that Redisson release.
compat() {
  if [ "$(printf '%s\n3.25.0\n' "$1" | sort -V | head -1)" = "3.25.0" ]; then
    echo current
  else
    echo legacy
  fi
}

# jvm_flags COMPAT: the JVM flags a build of that compat set runs with,
# written to its jvm.flags (driver.sh reads it): the legacy releases' codecs
# reach into java.lang and java.util by reflection, which Java 17 refuses
# unless those packages are opened.
jvm_flags() {
  [ "$1" = legacy ] && echo "--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.math=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED"
  true
}

build() { # build DIR COMPAT [MAVEN ARGS...]
  dir=$1 flags=$(jvm_flags "$2")
  shift 2
  jar="$dir/redisson-driver.jar"
  echo "building the Redisson driver ($dir) ..." >&2
  rm -rf "$dir/lib" # another release's jars (Netty, say) must not stay on the class path
  mvn_package --strict-checksums "$@" || return 1
  rm -f "$dir/driver.jsa"
  printf '%s\n' "$flags" >"$dir/jvm.flags"
  printf '%s\n' \
    '{"id":1,"op":"hello","protocol":1,"timeout_ms":2000,"redis":["127.0.0.1:1"],"client":"cds","watchdog_ms":1500}' \
    '{"id":2,"op":"trylock","name":"cds","wait_ms":1,"timeout_ms":100}' |
    # shellcheck disable=SC2086 # $flags is a list of flags
    java -Xlog:disable -Xlog:all=error:stderr $flags -XX:+UseSerialGC -Xss512k \
      -XX:ArchiveClassesAtExit="$dir/driver.jsa" -cp "$jar:$dir/lib/*" lockcheck.redisson.Driver >/dev/null 2>&1 || true
}

if [ "${1:-}" = "--version" ]; then
  [ "${3:-}" = "--out" ] && [ -n "${4:-}" ] || { echo "usage: build.sh [--version VERSION --out DIR]" >&2; exit 2; }
  c=$(compat "$2")
  build "$4" "$c" "-Dredisson.version=$2" "-Dredisson.compat=$c" "-Dbuild.dir=$4"
  exit
fi
up_to_date target redisson-driver.jar || build target current
