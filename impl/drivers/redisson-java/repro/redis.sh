# Sourced by the repro scripts here (sh): the set-up they share. The caller
# sets name (its own name, for messages) and here (its directory). This
# checks that ../build.sh put the Redisson jars in $lib, starts a
# redis-server of its own (../../repro-redis.sh: $port, $dir) and sets $jvm, the java
# command line the scripts run their .java files with (-cp "$lib/*" after it).
lib="$here/../target/lib"
[ -f "$lib/redisson-3.52.0.jar" ] || { echo "$name: $lib/redisson-3.52.0.jar missing: run ../build.sh" >&2; exit 2; }
jvm="java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn"

. "$here/../../repro-redis.sh"
