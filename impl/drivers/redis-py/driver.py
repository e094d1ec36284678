#!/usr/bin/python3
"""lockcheck driver for redis-py's Lock (redis.lock.Lock), Debian's redis-py.

Usage:  /usr/bin/python3 impl/drivers/redis-py/driver.py [--sleep SECONDS]

Runs on redis-py 4.3.4 as packaged by Debian (python3-redis), with only the
standard library besides, and no hiredis (the pure-Python parser is what the
deadline handling in ../pylib/lockdriver.py was checked against). The
mapping is ../pylib/redispy.py, shared with the redis-py-latest driver
(redis-py from PyPI); this file only picks the interpreter and the name.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))

try:
    import redispy
except ImportError as e:  # no banner: the protocol wants a non-zero exit
    print(f"redis-py driver: cannot import redis: {e} "
          f"(install python3-redis; run with /usr/bin/python3)", file=sys.stderr)
    sys.exit(1)

if __name__ == "__main__":
    sys.exit(redispy.main(sys.argv, "redis-py"))
