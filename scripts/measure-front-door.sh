#!/usr/bin/env bash
# measure-front-door.sh [REPO [REF]]: times `make run` as a new user would see
# it. It clones REPO (default: the checkout this script is in) at REF (default:
# its HEAD) into a fresh temporary folder and runs `make run` there with empty
# GOCACHE and GOMODCACHE folders (every Go module is downloaded and compiled),
# printing each output line with the seconds since start; then the total, the
# seconds before the run itself started (the front door: installs and builds)
# and the run's own seconds.
#
# redis-server cannot be uninstalled on a shared machine, so its absence is
# simulated: PATH is a folder of links to every command on PATH except
# redis-server and redis-cli, plus an apt-get that runs the real one and then
# links the two commands in (as an install would make them appear). The
# download and unpacking of the two packages, which that apt-get skips because
# they are installed, are timed apart at the end (apt-get download and dpkg -x
# into a temporary folder; nothing on the system changes).
#
# Maven's, cargo's and npm's download caches are left as they are (warm).
# The CPU time of make run is printed too: on a shared, loaded machine the
# wall time says more about the load than about the front door.
# Needs git, make, go, /usr/bin/time; the folder is removed at the end (KEEP=1 keeps it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$here}
ref=${2:-HEAD}
tmp=$(mktemp -d /tmp/front-door.XXXXXX)
chmod 755 "$tmp" # apt-get's methods run as _apt and follow the links below
[ -n "${KEEP:-}" ] || trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
echo "cloning $repo ($ref) into $tmp/clone ..." >&2
git clone -q "$repo" "$tmp/clone"
git -C "$tmp/clone" checkout -q "$ref"
git -C "$tmp/clone" log --oneline -1 >&2

# The shadow PATH: every command on PATH but redis-server and redis-cli.
shadow=$tmp/bin
mkdir -p "$shadow"
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    name=${f##*/}
    case $name in redis-server | redis-cli | apt-get) continue ;; esac
    [ -x "$f" ] && [ ! -e "$shadow/$name" ] && ln -s "$f" "$shadow/$name"
  done
done
real_apt=$(command -v apt-get || true)
if [ -n "$real_apt" ]; then
  cat >"$shadow/apt-get" <<WRAP
#!/bin/sh
# The real apt-get, then the redis commands appear on the shadow PATH once
# their packages are installed.
"$real_apt" "\$@" || exit
for c in redis-server redis-cli; do
  p=\$(PATH=/usr/bin:/usr/sbin:/bin command -v "\$c") && ln -sf "\$p" "$shadow/\$c"
done
exit 0
WRAP
  chmod +x "$shadow/apt-get"
fi

mkdir -p "$tmp/gocache" "$tmp/gomodcache"
start=$(date +%s.%N)
echo "make run (GOCACHE, GOMODCACHE empty; PATH without redis-server) ..." >&2
set +e
(cd "$tmp/clone" && PATH=$shadow GOCACHE=$tmp/gocache GOMODCACHE=$tmp/gomodcache GOFLAGS=-modcacherw \
  /usr/bin/time -f "cpu: %U s user, %S s sys (make run and its children)" make run 2>&1) |
  while IFS= read -r line; do
    now=$(date +%s.%N)
    printf '%7.1fs %s\n' "$(echo "$now - $start" | bc)" "$line"
    case $line in "lockcheck run: seed"*) [ -f "$tmp/run-start" ] || echo "$now" >"$tmp/run-start" ;; esac
  done
status=${PIPESTATUS[0]}
set -e
end=$(date +%s.%N)
total=$(echo "$end - $start" | bc)
if [ -f "$tmp/run-start" ]; then
  door=$(echo "$(cat "$tmp/run-start") - $start" | bc)
  printf 'make run: exit %s, %.1f s in all: %.1f s before the run started, %.1f s of run\n' "$status" "$total" "$door" "$(echo "$total - $door" | bc)"
else
  printf 'make run: exit %s, %.1f s in all (the run never started)\n' "$status" "$total"
fi

# What the apt-get above skipped: downloading and unpacking the packages.
if [ -n "$real_apt" ]; then
  mkdir -p "$tmp/debs/root"
  t0=$(date +%s.%N)
  (cd "$tmp/debs" && "$real_apt" download -qq redis-server redis-tools >/dev/null 2>&1 &&
    for deb in ./*.deb; do dpkg -x "$deb" root; done) &&
    printf 'redis-server, redis-tools: downloaded and unpacked in %.1f s (apt-get download, dpkg -x)\n' "$(echo "$(date +%s.%N) - $t0" | bc)" ||
    echo "redis-server, redis-tools: could not be downloaded here (apt-get download)" >&2
fi
exit "$status"
