#!/usr/bin/env bash
# Installs lockcheck's redis-py driver (scripts/deps.sh runs it; so does
# lockcheck on the first use of its subject): Debian's python3 and its
# python3-redis, which the driver runs on (/usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")"
. ../../../scripts/pkg.sh
want python3 test -x /usr/bin/python3
want python3-redis /usr/bin/python3 -c 'import redis'
install_wanted "the redis-py driver"
