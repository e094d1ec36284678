#!/bin/sh
# Starts three redis-servers on free loopback ports, runs repro/NAME.rs
# against them (default is_freed_split) and stops them.
#     impl/drivers/rslock/repro/run.sh [NAME]
set -eu
cd "$(dirname "$0")/.."
name=${1:-is_freed_split}
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
addrs=""
for i in 1 2 3; do
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --logfile "$tmp/$port.log" &
  pids="$pids $!"
  addrs="$addrs 127.0.0.1:$port"
  until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
done
# shellcheck disable=SC2086
cargo run -q --release --locked --example "$name" -- $addrs
