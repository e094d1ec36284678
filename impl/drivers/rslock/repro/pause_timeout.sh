#!/bin/sh
# rslock 0.10.0 alone: lock() of a free key answers Unavailable when the
# redis-server is stopped (SIGSTOP) for under a second (pause_timeout/main.rs
# says how and what each case is). Starts its own redis-server on a free
# loopback port (../../repro-redis.sh), builds pause_timeout/ (cargo,
# --locked --offline, the driver's pinned versions; CARGO_TARGET_DIR to build
# elsewhere) and runs it.
#     impl/drivers/rslock/repro/pause_timeout.sh [TRIALS] [PAUSE_MS]
# Exit 0: reproduced; 1: not; 2: setup error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=pause_timeout
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/pause_timeout/target}"
cargo build -q --release --locked --offline --manifest-path "$here/pause_timeout/Cargo.toml"
. "$here/../../repro-redis.sh"
echo "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1:$port (pid $rpid)"
status=0
"$CARGO_TARGET_DIR/release/pause_timeout" "127.0.0.1:$port" "$rpid" "${1:-10}" "${2:-800}" || status=$?
exit $status
