"""Self-test of the pottery-redlock driver against its own redis-server.

    impl/drivers/pottery-redlock/.venv/bin/python impl/drivers/pottery-redlock/selftest.py
"""
import os
import sys
from importlib.metadata import version

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import selftest  # noqa: E402

selftest.run(selftest.Config(
    driver="pottery-redlock", version=version("pottery"), topologies=["single", "redlock"],
    key=lambda name: "redlock:" + name,
    # A failed acquire releases its own attempt: that script meets the hash.
    hash_trylock="error",
    # pottery sleeps up to 200 ms between attempts.
    expiry_wake_ms=(700, 1800)))
