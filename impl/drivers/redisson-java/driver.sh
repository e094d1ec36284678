#!/bin/sh
# Starts lockcheck's Redisson driver (protocol 1, impl/driver/doc.go) built by
# `make deps` (mvn package) into target/, or into target-<version>/ for an
# older Redisson line named with --line <version>. The other arguments go to
# the driver (--lock lock|fair|fenced|spin, --command-timeout-ms N).
#
# JVM flags for a fast start (one JVM per logical client): C1 only, serial GC,
# a small heap, and the class-data archive that build.sh dumps next to the jar
# (driver.jsa) when it is there. The JVM's own log (a CDS archive that no
# longer matches the JVM, say) goes to stderr: stdout is the protocol's.
dir=$(dirname "$0")
build=target
if [ "$1" = "--line" ]; then
  build="target-$2"
  shift 2
fi
jar="$dir/$build/redisson-driver.jar"
if [ ! -f "$jar" ]; then
  echo "redisson driver: $jar is missing: run make deps" >&2
  exit 1
fi
cds=""
[ -f "$dir/$build/driver.jsa" ] && cds="-XX:SharedArchiveFile=$dir/$build/driver.jsa -Xshare:auto"
exec java -Xlog:disable -Xlog:all=warning:stderr -XX:+UseSerialGC -Xms32m -Xmx256m -Xss512k $cds \
  -cp "$jar:$dir/$build/lib/*" lockcheck.redisson.Driver "$@"
