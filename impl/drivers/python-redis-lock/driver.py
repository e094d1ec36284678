"""lockcheck driver for python-redis-lock's Lock (redis_lock.Lock), from PyPI.

Run by the folder's virtualenv (make deps creates it from requirements.txt):
    impl/drivers/python-redis-lock/.venv/bin/python driver.py

The protocol side (banner, requests, deadlines, no retries) is
../pylib/lockdriver.py. What the library does (4.0.1): the lock is the key
"lock:" + name, taken by SET NX EX <expire> with a random id; release is a
script that checks the id, deletes the key and pushes to the list
"lock-signal:" + name (PEXPIRE 1000 ms), on which waiters block with BLPOP;
auto_renewal runs a daemon thread that EXPIREs the key every expire * 2/3 s
while the id matches, and exits for good at its first error.

Mapping
  * A fresh Lock per acquire (the library's idiom: one Lock per critical
    section); the driver keeps the Lock of each name it holds. The owner is
    the process. Not reentrant: a second acquire of a held name waits like
    anybody else's.
  * Capabilities: "watchdog". lease_ms <= 0 is Lock(expire=watchdog lease,
    auto_renewal=True): renewed by the library's thread until unlock.
  * Leases are whole seconds (expire is an int, EX): the driver rounds
    lease_ms up (ceil), so a hold never ends before the lease asked for;
    one of 200 ms lasts 1 s.
    lockcheck knows (Subject.LeaseGranularity) and asks for whole seconds.
  * Waits are whole seconds too (acquire's timeout is an int, and 0 means
    "no timeout"): lock waits floor(what is left of timeout_ms) seconds,
    trylock floor(wait_ms / 1000) seconds (within timeout_ms), so that it
    does not wait longer than asked; a wait under one second is one attempt
    (blocking=False). Without auto_renewal the library refuses a timeout
    longer than expire (TimeoutTooLarge): the wait is capped at it.
  * An acquire is fail when it returned False, and also when its op
    deadline came while no SET was in flight (before a command was sent, or
    in the GET of its "already held?" check or its BLPOP wait: nothing was
    taken, and its wait was over). One cut off by a connection error is
    error (outcome unknown): a SET whose reply was lost may have taken the
    lock, and a GET or BLPOP cut off early took nothing, but nobody refused
    it either, which is what an early fail claims (restart-aof-always, seed
    20786100: a GET that met the restart was answered fail on a free lock,
    read as a refusal). A SET cut off by its deadline is error too.
  * unlock: release() -> ok; fail on NotAcquired (no key, or another id;
    also for a name this driver does not hold: a fresh Lock's random id).
  * Commands of the renewal thread get a socket timeout of a third of the
    watchdog lease (what is left of the lease at a renewal); the library
    sets none, and without one a hung renewal would hang release (which
    joins the thread) for good.
"""

import math
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))

try:
    import redis
    import redis.exceptions as rexc
    import redis_lock
    import lockdriver
except ImportError as e:  # no banner: the protocol wants a non-zero exit
    print(f"python-redis-lock driver: {e} (run make deps; run with .venv/bin/python)", file=sys.stderr)
    sys.exit(1)


class TrackingRedis(redis.StrictRedis):
    """Remembers, per thread, the last command it ran or tried to run."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tracked = threading.local()

    def execute_command(self, *args, **options):
        self.tracked.cmd = str(args[0]).upper()
        return super().execute_command(*args, **options)

    def last(self):
        return getattr(self.tracked, "cmd", None)


class RedisLockDriver(lockdriver.Driver):
    DRIVER = "python-redis-lock"
    VERSION = redis_lock.__version__
    CAPABILITIES = ["watchdog"]
    client_class = TrackingRedis

    def __init__(self):
        super().__init__()
        self.held = {}  # lock name -> the Lock that holds it

    def reset(self):
        self.held = {}

    def connected(self, req):
        lockdriver.set_background_timeout(self.expire_s(0)[0] / 3)

    def expire_s(self, lease_ms):
        renew = lease_ms <= 0
        ms = self.lease_ms({"lease_ms": lease_ms})
        return max(1, math.ceil(ms / 1000)), renew

    def new_lock(self, req):
        expire, renew = self.expire_s(int(req.get("lease_ms") or 0))
        return redis_lock.Lock(self.clients[0], req["name"], expire=expire, auto_renewal=renew), expire, renew

    def acquire(self, req, wait_s, start):
        """One library acquire waiting wait_s whole seconds (0: one attempt)."""
        lk, expire, renew = self.new_lock(req)
        if not renew:
            wait_s = min(wait_s, expire)
        client = self.clients[0]
        client.tracked.cmd = None
        try:
            ok = lk.acquire(blocking=False) if wait_s < 1 else self.wait_for(lk, wait_s, expire, start)
        except (rexc.TimeoutError, rexc.ConnectionError) as e:
            if isinstance(e, rexc.TimeoutError) and (isinstance(e, lockdriver.OpDeadlineExceeded) or client.last() in ("GET", "BLPOP")):
                return {"status": "fail"}  # its deadline came with no SET in flight: nothing taken, its wait over
            raise  # error: a lost SET may have taken it; a GET or BLPOP cut off early took nothing, and nobody refused it
        if not ok:
            return {"status": "fail"}
        self.held[req["name"]] = lk
        return {"status": "ok"}

    def wait_for(self, lk, wait_s, expire, start):
        """A blocking acquire of wait_s seconds. Releases before 3.0.0 refuse
        a timeout longer than expire even with auto_renewal (TimeoutTooLarge):
        there it is a run of acquires of at most expire seconds each, until
        less than a second of the op's deadline is left."""
        try:
            return lk.acquire(blocking=True, timeout=wait_s)
        except redis_lock.TimeoutTooLarge:
            pass
        while True:
            if lk.acquire(blocking=True, timeout=min(wait_s, expire)):
                return True
            wait_s = min(wait_s - expire, math.floor(self.wait_left(start)))
            if wait_s < 1:
                return False

    def op_lock(self, req, start):
        return self.acquire(req, math.floor(self.wait_left(start)), start)

    def op_trylock(self, req, start):
        wait_ms = max(0, int(req.get("wait_ms") or 0))
        wait_s = min(wait_ms // 1000, math.floor(self.wait_left(start)))
        return self.acquire(req, wait_s, start)

    def op_unlock(self, req, start):
        lk = self.held.pop(req["name"], None)
        if lk is None:
            lk, _, _ = self.new_lock(req)
        try:
            lk.release()
        except redis_lock.NotAcquired:
            return {"status": "fail"}
        return {"status": "ok"}


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(f"usage: {sys.argv[0]}", file=sys.stderr)
        sys.exit(2)
    lockdriver.main(RedisLockDriver())
