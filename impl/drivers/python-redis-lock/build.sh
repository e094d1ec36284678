#!/usr/bin/env bash
# Installs lockcheck's python-redis-lock driver (scripts/deps.sh runs it; so does
# lockcheck on the first use of its subject): its virtualenv, from
# requirements.txt (../python-lib.sh).
set -euo pipefail
cd "$(dirname "$0")"
. ../python-lib.sh
build_venv python-redis-lock
