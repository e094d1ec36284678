# Sourced by each Java driver's driver.sh (POSIX sh): launch_driver starts
# the driver's JVM in place of the shell (exec), with the flags every Java
# driver shares for a fast start (one JVM per logical client): serial GC, a
# small heap and stack, and the class-data archive (driver.jsa, AppCDS) that
# the driver's build.sh dumps next to the jar, when it is there. The JVM's
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
  exec java -Xlog:disable -Xlog:all=warning:stderr $own -XX:+UseSerialGC -Xms32m -Xmx256m -Xss512k $cds \
    -cp "$build/$jar:$build/lib/*" "$main" "$@"
}
