#!/bin/sh
# Runs the library-alone reproductions of node-redisson findings against a
# redis-server of their own (a free loopback port, removed at exit), with the
# driver's pinned node_modules (../package-lock.json, installed by make deps).
#
#   run.sh    renewal-dies.js, then its control; renewal-dies-on-kill.js, then its control;
#             next-hold-unrenewed.js, then its control
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=node-redisson/repro
[ -d "$here/../node_modules/node-redisson" ] || { echo "$name: ../node_modules missing: run make deps" >&2; exit 2; }
. "$here/../../repro-redis.sh"
cd "$here/.."
node repro/renewal-dies.js "$port"
node repro/renewal-dies.js "$port" --control
node repro/renewal-dies-on-kill.js "$port"
node repro/renewal-dies-on-kill.js "$port" --control
node repro/next-hold-unrenewed.js "$port"
node repro/next-hold-unrenewed.js "$port" --control
