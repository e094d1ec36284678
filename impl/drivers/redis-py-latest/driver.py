"""lockcheck driver for redis-py's Lock (redis.lock.Lock), redis-py from PyPI.

Run by the folder's virtualenv (make deps creates it from requirements.txt):
    impl/drivers/redis-py-latest/.venv/bin/python driver.py [--sleep SECONDS]

The mapping is ../pylib/redispy.py, shared with the redis-py driver (Debian's
redis-py 4.3.4); this file only picks the interpreter and the driver's name.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))

try:
    import redispy
except ImportError as e:  # no banner: the protocol wants a non-zero exit
    print(f"redis-py-latest driver: {e} (run make deps; run with .venv/bin/python)", file=sys.stderr)
    sys.exit(1)

if __name__ == "__main__":
    sys.exit(redispy.main(sys.argv, "redis-py-latest"))
