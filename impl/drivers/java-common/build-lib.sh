# Sourced by each Java driver's build.sh (bash, run in the driver's folder):
# the steps every Java driver's build shares. The driver's pom compiles
# ../java-common/src/main/java (the protocol side) with its own sources, so a
# change there rebuilds every Java driver.
. ../../../scripts/pkg.sh

# need_java WHAT: java 17 and Maven (Debian openjdk-17-jdk-headless, maven),
# installed when missing; PKG_SKIPPED when they cannot be installed here.
need_java() {
  want openjdk-17-jdk-headless has javac
  want maven has mvn
  install_wanted "$1"
}

# up_to_date BUILD JAR: true when BUILD/JAR and its class-data archive
# BUILD/driver.jsa are there and nothing the build reads (pom.xml, build.sh,
# src/, ../java-common/) is newer than the archive (the archive records the
# jar's time: the jar is never touched after it).
up_to_date() {
  [ -f "$1/$2" ] && [ -f "$1/driver.jsa" ] &&
    [ -z "$(find pom.xml build.sh src ../java-common -newer "$1/driver.jsa" | head -1)" ]
}

# mvn_package [MAVEN ARGS...]: mvn -B -q package, whose output is shown (on
# stderr) only when it fails.
mvn_package() {
  mvn_log=$(mktemp)
  if ! mvn -B -q package "$@" >"$mvn_log" 2>&1; then
    cat "$mvn_log" >&2
    rm -f "$mvn_log"
    return 1
  fi
  rm -f "$mvn_log"
}
