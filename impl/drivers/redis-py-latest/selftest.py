"""Self-test of the redis-py-latest driver against its own redis-server.

    impl/drivers/redis-py-latest/.venv/bin/python impl/drivers/redis-py-latest/selftest.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import redis  # noqa: E402
import selftest  # noqa: E402

selftest.run(selftest.Config(owners=True, driver="redis-py-latest", version=redis.__version__, extra=selftest.exact_px))
