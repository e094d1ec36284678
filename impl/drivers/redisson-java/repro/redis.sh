# Sourced by the repro scripts here (sh): the set-up they share. The caller
# sets name (its own name, for messages) and here (its directory). This
# checks that ../build.sh put the pinned Redisson's jars in $lib (a
# folder of another release's build in REDISSON_LIB instead), sets $release
# to the Redisson release found there, starts a redis-server of its own
# (../../repro-redis.sh: $port, $dir) and sets $jvm, the java command line
# the scripts run their .java files with (-cp "$lib/*" after it), with the
# build's jvm.flags when it has them.
lib="${REDISSON_LIB:-$here/../target/lib}"
jar=$(ls "$lib"/redisson-[0-9]*.jar 2>/dev/null | head -1)
[ -n "$jar" ] || { echo "$name: no redisson jar in $lib: run ../build.sh" >&2; exit 2; }
release=$(basename "$jar" .jar | sed 's/^redisson-//')
jvm="java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn"
# A build of an older release (build.sh's legacy sources) says in its
# jvm.flags which packages its codecs need opened on Java 17.
[ -f "$lib/../jvm.flags" ] && jvm="$jvm $(cat "$lib/../jvm.flags")"

. "$here/../../repro-redis.sh"
