#!/usr/bin/env bash
# docker-engine.sh: make a Docker engine answer for lockcheck's container
# backend and its tests (faults/container), when one can run here.
#
# - An engine that already answers (DOCKER_HOST, or /var/run/docker.sock) is
#   used as it is: nothing is installed or started.
# - Otherwise, on Debian/Ubuntu, docker.io is installed when dockerd is missing
#   (as root, or with sudo), and dockerd is started in the background with
#   --iptables=false: lockcheck's containers use host networking and loopback
#   only, so no NAT or forwarding rule is wanted. The default bridge network is
#   kept (testcontainers-go needs it to exist), though nothing uses it.
# - Nothing is pulled: lockcheck builds its images locally (FROM scratch).
#
# Where no engine can run (no root, no apt-get, dockerd refuses to start) this
# prints why and exits 0: the container tests then skip, saying why.
# Idempotent: a second run finds the engine answering and does nothing.
set -euo pipefail

log=${LOCKCHECK_DOCKERD_LOG:-/var/log/lockcheck-dockerd.log}

answers() { timeout 10 docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && answers; then
	echo "docker-engine: a Docker engine answers ($(timeout 10 docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?')); using it" >&2
	exit 0
fi
if [ -n "${DOCKER_HOST:-}" ]; then
	echo "docker-engine: warning: DOCKER_HOST=$DOCKER_HOST does not answer; not starting another engine (the container tests skip)" >&2
	exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=sudo
	else
		echo "docker-engine: warning: no Docker engine answers and this is not root (no sudo): the container tests skip; see docs/engines.md to use an engine you have" >&2
		exit 0
	fi
fi

if ! command -v dockerd >/dev/null 2>&1; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "docker-engine: warning: no Docker engine and no apt-get to install one: the container tests skip; see docs/engines.md" >&2
		exit 0
	fi
	echo "docker-engine: installing docker.io (Debian's Docker engine) ..." >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq docker.io >/dev/null
fi

echo "docker-engine: starting dockerd --iptables=false (log: $log) ..." >&2
# setsid: the engine outlives make; it is this script's, found again by its pid file.
$sudo setsid dockerd --iptables=false --ip-forward=false --ip-masq=false >>"$log" 2>&1 </dev/null &
for _ in $(seq 1 60); do
	if answers; then
		echo "docker-engine: dockerd answers ($(timeout 10 docker version --format '{{.Server.Version}}'))" >&2
		exit 0
	fi
	sleep 1
done
echo "docker-engine: warning: dockerd did not answer within 60 s (see $log): the container tests skip" >&2
tail -n 5 "$log" >&2 || true
exit 0
