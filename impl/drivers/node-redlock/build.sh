#!/usr/bin/env bash
# Installs lockcheck's node-redlock driver (scripts/deps.sh runs it; so does
# lockcheck on the first use of its subject): node, npm and the pinned npm
# packages (../node-lib.sh).
set -euo pipefail
cd "$(dirname "$0")"
. ../node-lib.sh
build_node node-redlock
