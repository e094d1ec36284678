#!/bin/sh
# Runs the library-alone reproductions of python-redis-lock findings against a
# redis-server of their own (a free loopback port, removed at exit), with the
# driver's virtualenv (../.venv, made by make deps from ../requirements.txt).
#
#   run.sh    renewal_dies.py, then its control
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=python-redis-lock/repro
py="$here/../.venv/bin/python"
[ -x "$py" ] || { echo "$name: $py missing: run make deps" >&2; exit 2; }
. "$here/../../repro-redis.sh"
"$py" "$here/renewal_dies.py" "$port"
"$py" "$here/renewal_dies.py" "$port" --control
