"""lockcheck driver for redis-py's Lock (redis.lock.Lock), redis-py from PyPI.

Run by the folder's virtualenv (make deps creates it from requirements.txt):
    impl/drivers/redis-py-latest/.venv/bin/python driver.py [--sleep SECONDS]

The protocol side (banner, requests, deadlines, no retries) is
../pylib/lockdriver.py; this file maps the ops onto redis-py's Lock, as the
redis-py driver does for Debian's redis-py 4.3.4:
  * One Lock object per lock name per process, thread_local=False: the owner
    is the process. Not reentrant, not fair, not fenced, no watchdog:
    lease_ms <= 0 is a plain lease of hello's watchdog_ms.
  * lock: acquire(blocking_timeout=what is left of timeout_ms minus a margin)
    -> ok, or fail when it gave up (a refused SET NX leaves nothing behind).
  * trylock: acquire(blocking_timeout=wait_ms); wait_ms 0 is one attempt.
  * unlock: release() -> ok; fail on LockError (LockNotOwnedError: the script
    found no key or another token; or this Lock holds no token).
  * The lease is passed as a Fraction so that Lock's int(timeout * 1000) is
    exactly lease_ms. Polls every 5 ms (--sleep) instead of 100 ms.
"""

import fractions
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))

try:
    import redis
    import redis.exceptions as rexc
    from redis.lock import Lock
    import lockdriver
except ImportError as e:  # no banner: the protocol wants a non-zero exit
    print(f"redis-py-latest driver: {e} (run make deps; run with .venv/bin/python)", file=sys.stderr)
    sys.exit(1)

DEFAULT_SLEEP = 0.005


class RedisPyDriver(lockdriver.Driver):
    DRIVER = "redis-py-latest"
    VERSION = redis.__version__
    CAPABILITIES = []  # not reentrant, no watchdog, not fenced, not fair

    def __init__(self, sleep):
        super().__init__()
        self.sleep = sleep
        self.locks = {}

    def reset(self):
        self.locks = {}

    def lock_for(self, req):
        lk = self.locks.get(req["name"])
        if lk is None:
            lk = Lock(self.clients[0], req["name"], sleep=self.sleep, thread_local=False)
            self.locks[req["name"]] = lk
        lk.timeout = fractions.Fraction(self.lease_ms(req), 1000)
        return lk

    def op_lock(self, req, start):
        lk = self.lock_for(req)
        ok = lk.acquire(blocking=True, blocking_timeout=self.wait_left(start))
        return {"status": "ok" if ok else "fail"}

    def op_trylock(self, req, start):
        lk = self.lock_for(req)
        wait = max(0, int(req.get("wait_ms") or 0)) / 1000
        if wait <= 0:
            ok = lk.acquire(blocking=False)
        else:
            ok = lk.acquire(blocking=True, blocking_timeout=min(wait, self.wait_left(start)))
        return {"status": "ok" if ok else "fail"}

    def op_unlock(self, req, start):
        lk = self.locks.get(req["name"]) or self.lock_for(req)
        try:
            lk.release()
        except rexc.LockError as e:
            # release() drops the token before the script runs: even an
            # unlock that ends in an error leaves this process without a hold.
            return {"status": "fail", "error": str(e)}
        return {"status": "ok"}


def main(argv):
    sleep = DEFAULT_SLEEP
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--sleep" and args:
            sleep = float(args.pop(0))
        elif a.startswith("--sleep="):
            sleep = float(a.split("=", 1)[1])
        else:
            print(f"usage: {argv[0]} [--sleep SECONDS]", file=sys.stderr)
            return 2
    if sleep <= 0:
        print("redis-py-latest driver: --sleep must be > 0", file=sys.stderr)
        return 2
    lockdriver.main(RedisPyDriver(sleep))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
