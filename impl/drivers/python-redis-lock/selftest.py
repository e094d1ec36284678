"""Self-test of the python-redis-lock driver against its own redis-server.

    impl/drivers/python-redis-lock/.venv/bin/python impl/drivers/python-redis-lock/selftest.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import redis_lock  # noqa: E402
import selftest  # noqa: E402

selftest.run(selftest.Config(
    driver="python-redis-lock", version=redis_lock.__version__, capabilities=["watchdog"],
    key=lambda name: "lock:" + name, watchdog=True,
    # The first command of an acquire is the GET of its "already held?"
    # check: when it hangs, nothing was taken.
    hung_lock="fail",
    # Its acquire starts with that GET, which meets the hash.
    hash_trylock="error",
    # A lease that runs out pushes no signal: the waiter wakes when its
    # BLPOP times out (2 s of the lock's 3 s).
    expiry_wake_ms=(1800, 2600)))
