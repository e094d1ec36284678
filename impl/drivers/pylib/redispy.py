"""redis-py's Lock (redis.lock.Lock) over lockcheck's driver protocol.

The mapping shared by two drivers that differ only in the redis-py they run
on: impl/drivers/redis-py (Debian's python3-redis 4.3.4, /usr/bin/python3)
and impl/drivers/redis-py-latest (redis-py from PyPI, pinned, in the folder's
virtualenv). The protocol side (banner, requests, deadlines, no retries) is
lockdriver.py.

Mapping
  * One driver process is one lock owner. The driver keeps one Lock object
    per lock name; the owner identity is the random token that Lock.acquire
    stores in that object. Another driver process has its own Lock objects
    and thus no token, so its unlock fails.
  * Capabilities: none. redis-py's Lock is not reentrant (a second acquire by
    the holder waits like anybody else, until the holder's own lease runs
    out), not fair (polling), not fenced, and has no watchdog. lease_ms <= 0
    is a plain lease of hello's watchdog_ms (30 s if hello gave none), as the
    protocol asks of drivers without "watchdog".
  * lock {lease_ms, timeout_ms}: acquire(blocking=True, blocking_timeout=
    (what is left of timeout_ms, minus a margin)) -> ok, or fail when it
    gave up. A failed acquire is a SET NX that did not set, so it leaves
    nothing behind in Redis: the protocol allows fail here.
  * trylock {wait_ms, lease_ms}: acquire(blocking_timeout=wait_ms) -> ok or
    fail; wait_ms 0 is one attempt (blocking=False).
  * unlock: release() -> ok; fail when redis-py says "not owner", in two
    ways, both LockError:
      - LockNotOwnedError (a LockError subclass): the release script found
        no key or another token (our lease ran out, maybe someone else holds
        the lock now); nothing was deleted.
      - LockError("Cannot release an unlocked lock"): this Lock object has
        no token, i.e. this driver never acquired (or already released) the
        lock; redis-py does not even ask Redis.
  * A Redis error reply (WRONGTYPE, NOSCRIPT, READONLY, OOM, ...; also
    LOADING and NOAUTH) -> error with "redis_error": true. Timeouts and
    connection errors -> error (outcome unknown).

Polling. redis-py's Lock polls with SET NX PX and sleeps `sleep` seconds
between attempts (default 0.1 s). The drivers use 0.005 s (--sleep) so that
a waiter gets a freed lock within a few milliseconds: with the default, a
blocked lock op would add up to 100 ms of pure latency per handover, which
distorts lockcheck's timing (lease expiry, trylock windows of ~150 ms).

Thread-local token. Lock(thread_local=True), redis-py's default, keeps the
token in a threading.local. The drivers have one thread and use
thread_local=False anyway: the owner is the process, not a thread, and a
thread-local token would silently turn an unlock from any other thread into
"Cannot release an unlocked lock" although the process holds the lock.

Lease precision. Lock.do_acquire computes PX as int(timeout * 1000); with a
float timeout of lease_ms / 1000 that truncates, e.g. 1001 ms becomes PX
1000. The lease is passed as a fractions.Fraction so that PX is exactly
lease_ms.
"""

import fractions
import sys

import redis
import redis.exceptions as rexc
from redis.lock import Lock

import lockdriver

DEFAULT_SLEEP = 0.005


class RedisPyDriver(lockdriver.Driver):
    VERSION = redis.__version__
    CAPABILITIES = []  # not reentrant, no watchdog, not fenced, not fair
    # Owners are threads on the one redis-py client, each with Lock objects
    # of its own (a Lock's token is its owner).
    OWNERS = True

    def __init__(self, name, sleep):
        super().__init__()
        self.DRIVER = name
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


def main(argv, name):
    """Parse [--sleep SECONDS] and serve as driver `name`; 2 on bad usage."""
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
        print(f"{name} driver: --sleep must be > 0", file=sys.stderr)
        return 2
    lockdriver.main(RedisPyDriver(name, sleep))
