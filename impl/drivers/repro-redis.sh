# Sourced by the library-alone reproductions under impl/drivers/*/repro (sh):
# starts a redis-server of their own on a free loopback port ($port) in a
# fresh temporary directory ($dir), both removed at exit. The caller sets
# name (its own name, for messages).
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
