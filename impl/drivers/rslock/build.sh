#!/usr/bin/env bash
# Builds lockcheck's rslock driver (scripts/deps.sh runs it; so does lockcheck
# on the first use of its subjects): cargo build --release --locked into
# target/, when the binary is missing or older than its sources. Installs
# cargo when it is missing (Debian's cargo-web, Rust 1.96: rslock 0.10 and
# redis-rs 1.8 need Rust 1.88; else cargo). A Rust too old to build it is a
# warning, and a skip (exit PKG_SKIPPED): its subjects and tests skip.
set -euo pipefail
cd "$(dirname "$0")"
. ../../../scripts/pkg.sh
if ! has cargo; then
  want cargo-web has cargo
  status=0
  install_wanted "the rslock driver" || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne "$PKG_SKIPPED" ]; then
    echo "no cargo-web: Debian's cargo instead" >&2
    want cargo has cargo
    install_wanted "the rslock driver"
  fi
  has cargo || exit "$PKG_SKIPPED"
fi
bin=target/release/rslock-driver
if [ -x "$bin" ] && [ -z "$(find src Cargo.toml Cargo.lock -newer "$bin" | head -1)" ]; then
  exit 0
fi
echo "building the rslock driver (impl/drivers/rslock) ..." >&2
if ! cargo build --release --locked -q; then
  echo "warning: the rslock driver did not build (cargo build --release --locked in impl/drivers/rslock; rslock 0.10 needs Rust 1.88 or later): the rslock subjects and tests are skipped" >&2
  exit "$PKG_SKIPPED"
fi
