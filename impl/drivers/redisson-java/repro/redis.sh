# Sourced by the repro scripts here (sh): the set-up they share. The caller
# sets name (its own name, for messages) and here (its directory). This
# checks that ../build.sh put the Redisson jars in $lib, starts a
# redis-server of its own on a free loopback port ($port) in a fresh
# temporary directory ($dir), both removed at exit, and sets $jvm, the java
# command line the scripts run their .java files with (-cp "$lib/*" after it).
lib="$here/../target/lib"
[ -f "$lib/redisson-3.52.0.jar" ] || { echo "$name: $lib/redisson-3.52.0.jar missing: run ../build.sh" >&2; exit 2; }
jvm="java -Xlog:disable -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn"

dir=$(mktemp -d)
rpid=
trap '[ -z "$rpid" ] || { kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; }; rm -rf "$dir"' EXIT INT TERM
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/redis.log" 2>&1 &
rpid=$!
i=0
until redis-cli -p "$port" ping >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 100 ] || { echo "$name: redis-server on $port did not start" >&2; exit 1; }
  sleep 0.05
done
