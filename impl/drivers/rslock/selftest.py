"""Self-test of the rslock driver against its own redis-server.

    /usr/bin/python3 impl/drivers/rslock/selftest.py

The driver is the binary make deps builds (target/release/rslock-driver);
the test itself needs only redis-py (Debian's python3-redis).
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "pylib"))
import selftest  # noqa: E402

selftest.run(selftest.Config(
    driver="rslock", version="0.10.0", capabilities=["cycle"], topologies=["single", "redlock"],
    command=[os.path.join(here, "target", "release", "rslock-driver")],
    # The owner check (extend) meets WRONGTYPE, which rslock reads as
    # "not extended".
    hash_unlock="fail",
    # The driver sleeps up to 200 ms between attempts (rslock's retry delay).
    expiry_wake_ms=(700, 1800)))
