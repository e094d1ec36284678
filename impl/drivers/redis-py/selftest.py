#!/usr/bin/python3
"""Self-test of the redis-py driver (Debian's python3-redis) against its own
redis-server:

    /usr/bin/python3 impl/drivers/redis-py/selftest.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import redis  # noqa: E402
import selftest  # noqa: E402

selftest.run(selftest.Config(owners=True, driver="redis-py", version=redis.__version__, extra=selftest.exact_px))
