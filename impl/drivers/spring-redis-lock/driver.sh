#!/bin/sh
# Starts lockcheck's RedisLockRegistry driver (protocol 1, impl/driver/doc.go)
# built by `make deps` (build.sh: mvn package) into target/. The arguments go
# to the driver (--mode spin|pubsub, --command-timeout-ms N).
#
# JVM flags for a fast start (one JVM per logical client): C1 only (half the
# CPU time of a start to hello ok here: 0.6-0.7 s instead of 1.2-1.4 s), serial GC, a small
# heap, and the class-data archive that build.sh dumps next to the jar
# (driver.jsa) when it is there. The JVM's own log (a CDS archive that no
# longer matches the JVM, say) goes to stderr: stdout is the protocol's.
dir=$(dirname "$0")
jar="$dir/target/spring-lock-driver.jar"
if [ ! -f "$jar" ]; then
  echo "spring-lock driver: $jar is missing: run make deps" >&2
  exit 1
fi
cds=""
[ -f "$dir/target/driver.jsa" ] && cds="-XX:SharedArchiveFile=$dir/target/driver.jsa -Xshare:auto"
exec java -Xlog:disable -Xlog:all=warning:stderr -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms32m -Xmx256m -Xss512k $cds \
  -cp "$jar:$dir/target/lib/*" lockcheck.spring.Driver "$@"
