#!/usr/bin/env bash
# Installs what lockcheck's tests and runs need on a Debian/Ubuntu machine:
# redis-server (and redis-tools) and nftables. Does nothing when present.
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server redis-tools)
command -v nft >/dev/null 2>&1 || need+=(nftables)
[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "lockcheck needs: ${need[*]} (no apt-get here: install them with your package manager)" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing ${need[*]} ..." >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
