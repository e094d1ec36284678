# Sourced by each Java driver's driver.sh (POSIX sh): launch_driver starts
# the driver's JVM in place of the shell (exec), with the flags every Java
# driver shares for a fast start (one JVM per logical client): serial GC, a
# small heap and stack, the client compiler only (TieredStopAtLevel=1), and
# the class-data archive (driver.jsa, AppCDS) that the driver's build.sh
# dumps next to the jar, when it is there. A driver lives for seconds to
# minutes and waits on Redis: C2's compiles cost it more CPU than they win
# (`lockcheck run --subject redisson --duration 4s`, whose clients are
# JVMs: 14.6 CPU-s with C1 alone, 20.5 with C2, and 798 ops against 666 on
# an idle 2-core machine), and on a loaded machine they starve the run's
# own timing. The JVM's
# own log (a CDS archive that no longer matches the JVM, say) goes to
# stderr: stdout is the protocol's.
#
#   launch_driver NAME BUILD JAR MAIN "JVM FLAGS" [DRIVER ARGS...]
#
# NAME starts the error line of a missing jar ("NAME: BUILD/JAR is missing:
# run make deps", exit 1); BUILD is the build folder (the jar, lib/ and
# driver.jsa); JVM FLAGS (split on spaces, may be empty) are the driver's own.
launch_driver() {
  name=$1 build=$2 jar=$3 main=$4 own=$5
  shift 5
  if [ ! -f "$build/$jar" ]; then
    echo "$name: $build/$jar is missing: run make deps" >&2
    exit 1
  fi
  cds=""
  [ -f "$build/driver.jsa" ] && cds="-XX:SharedArchiveFile=$build/driver.jsa -Xshare:auto"
  # shellcheck disable=SC2086 # $own and $cds are lists of flags
  exec java -Xlog:disable -Xlog:all=warning:stderr $own -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xms32m -Xmx256m -Xss512k $cds \
    -cp "$build/$jar:$build/lib/*" "$main" "$@"
}
