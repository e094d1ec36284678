#!/usr/bin/env bash
# Builds lockcheck's RedisLockRegistry driver (make deps runs it): mvn package
# into target/ (spring-lock-driver.jar and target/lib/), then a class-data
# archive (target/driver.jsa, AppCDS) from a short training run that loads
# the classes of a start, a connection and the lock calls, for a faster JVM
# start. A build whose archive is newer than pom.xml, build.sh, the sources
# and ../java-common (the protocol side, compiled in) is skipped (up_to_date
# in ../java-common/build-lib.sh). Needs java 17+ and Maven; Maven downloads
# the pinned artifacts.
#
#   build.sh                          the pom's Spring Integration into target/
#   build.sh --out DIR -DPROP=V...    another release into DIR (lockcheck runs
#                                     it for spring-lock-*@VERSION, with the
#                                     versions that release was made with)
# Maven checks every artifact against Maven Central's checksums
# (--strict-checksums).
set -euo pipefail
cd "$(dirname "$0")"
. ../java-common/build-lib.sh
need_java "the RedisLockRegistry driver"
out=target
if [ "${1:-}" = "--out" ]; then
  out=$2
  shift 2
elif up_to_date target spring-lock-driver.jar; then
  exit 0
fi
jar=$out/spring-lock-driver.jar
echo "building the RedisLockRegistry driver ($out) ..." >&2
rm -rf "$out/lib" # another release's jars must not stay on the class path
mvn_package --strict-checksums "-Dbuild.dir=$out" "$@" || exit 1
rm -f "$out/driver.jsa"

# The training run: against a redis-server of its own on a free loopback
# port when there is one (hello, the warm-up, acquires, unlocks and a short
# cycle in both modes' classes), else a connection attempt that fails.
addr=127.0.0.1:1
dir=$(mktemp -d)
pid=""
if command -v redis-server >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >/dev/null 2>&1 &
  pid=$!
  addr=127.0.0.1:$port
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.2
  done
fi
printf '%s\n' \
  '{"id":1,"op":"hello","protocol":1,"timeout_ms":20000,"redis":["'"$addr"'"],"client":"cds","watchdog_ms":1500}' \
  '{"id":2,"op":"trylock","name":"cds","wait_ms":1,"lease_ms":0,"timeout_ms":2000}' \
  '{"id":3,"op":"lock","name":"cds","lease_ms":0,"timeout_ms":2000}' \
  '{"id":4,"op":"unlock","name":"cds","timeout_ms":2000}' \
  '{"id":5,"op":"unlock","name":"cds","timeout_ms":2000}' \
  '{"id":6,"op":"lock","name":"cds","lease_ms":500,"timeout_ms":2000}' \
  '{"id":7,"op":"unlock","name":"cds","timeout_ms":2000}' \
  '{"id":8,"op":"cycle","name":"cds","lease_ms":0,"duration_ms":200,"timeout_ms":5000}' |
  java -Xlog:disable -Xlog:all=error:stderr -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k \
    -XX:ArchiveClassesAtExit="$out/driver.jsa" -cp "$jar:$out/lib/*" lockcheck.spring.Driver --mode pubsub >/dev/null 2>&1 || true
if [ -n "$pid" ]; then
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
fi
rm -rf "$dir"
