"""lockcheck driver for pottery's Redlock (pottery.Redlock), pottery from PyPI.

Run by the folder's virtualenv (make deps creates it from requirements.txt):
    impl/drivers/pottery-redlock/.venv/bin/python driver.py

The protocol side (banner, requests, deadlines, no retries) is
../pylib/lockdriver.py. Mapping:
  * masters: one redis-py client per address of hello: one on the single
    topology (subject pottery-redlock: the RedLock algorithm with a quorum
    of 1), every independent master on the redlock topology (subject
    pottery-redlock-3: quorum a majority, pottery's own).
  * The key of lock name N is "redlock:N" (pottery's prefix).
  * One Redlock object per lock name per process: the owner is the process
    (the object's random uuid of its latest acquire). Capabilities: none.
    Not reentrant, not fair, not fenced, no watchdog (pottery's extend() is
    manual and capped at num_extensions); lease_ms <= 0 is a plain lease of
    hello's watchdog_ms.
  * The lease is auto_release_time, passed as a Fraction so that pottery's
    int(auto_release_time * 1000) is exactly lease_ms.
  * raise_on_redis_errors=True: without it pottery reports a Redis error or a
    timeout as "not acquired" / "not released", a wrong definite answer.
    QuorumIsImpossible is then error (outcome unknown; redis_error when every
    master's error was an error reply). A failed acquire runs a release of
    its own attempt, whose QuorumIsImpossible replaces the acquire's errors:
    so even "nothing was sent" cannot be told from a lost SET reply.
  * lock: acquire(blocking=True, timeout=what is left of timeout_ms minus a
    margin) -> ok, or fail when it gave up (a refused acquire removed its own
    attempt).
  * trylock: one acquire(blocking=False) first, then, if wait_ms is left,
    acquire(blocking=True, timeout=the rest of wait_ms). pottery's blocking
    acquire checks the elapsed time (rounded to whole ms) before its first
    attempt, so with a timeout under a millisecond a thread descheduled at
    that point makes no attempt and answers False (by reading the code; 0
    of 400 tries on an idle machine): the first non-blocking attempt makes
    every fail an answer of Redis.
  * unlock: release() -> ok; fail on ReleaseUnlockedLock (no master released:
    no key, or another uuid).
  * pottery sleeps uniform(0, 0.2 s) between attempts with the random module;
    the driver seeds it with hello's seed.
"""

import fractions
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))

try:
    from importlib.metadata import version
    from pottery import QuorumIsImpossible, Redlock, ReleaseUnlockedLock
    import lockdriver
except ImportError as e:  # no banner: the protocol wants a non-zero exit
    print(f"pottery-redlock driver: {e} (run make deps; run with .venv/bin/python)", file=sys.stderr)
    sys.exit(1)


def quorum_error(e):
    """The reply for QuorumIsImpossible e."""
    errs = list(getattr(e, "redis_errors", []) or [])
    rep = {"status": "error", "error": f"QuorumIsImpossible: {'; '.join(f'{type(x).__name__}: {x}' for x in errs) or e}"}
    if errs and all(isinstance(x, lockdriver.REDIS_ERRORS) for x in errs):
        rep["redis_error"] = True
    return rep


class PotteryDriver(lockdriver.Driver):
    DRIVER = "pottery-redlock"
    VERSION = version("pottery")
    CAPABILITIES = []  # not reentrant, no watchdog, not fenced, not fair
    TOPOLOGIES = ["redlock"]  # hello's "redis": every master, quorum N/2+1
    MAX_ADDRS = 9

    def __init__(self):
        super().__init__()
        self.locks = {}

    def reset(self):
        self.locks = {}

    def connected(self, req):
        random.seed(self.seed)

    def lock_for(self, req):
        lk = self.locks.get(req["name"])
        if lk is None:
            lk = Redlock(key=req["name"], masters=set(self.clients), raise_on_redis_errors=True)
            self.locks[req["name"]] = lk
        lk.auto_release_time = fractions.Fraction(self.lease_ms(req), 1000)
        return lk

    def acquire(self, lk, **kw):
        try:
            return {"status": "ok" if lk.acquire(**kw) else "fail"}
        except QuorumIsImpossible as e:
            return quorum_error(e)

    def op_lock(self, req, start):
        return self.acquire(self.lock_for(req), blocking=True, timeout=self.wait_left(start))

    def op_trylock(self, req, start):
        lk = self.lock_for(req)
        rep = self.acquire(lk, blocking=False)
        wait = max(0, int(req.get("wait_ms") or 0)) / 1000
        left = min(wait - (lockdriver.time.monotonic() - start), self.wait_left(start))
        if rep["status"] != "fail" or left <= 0:
            return rep
        return self.acquire(lk, blocking=True, timeout=left)

    def op_unlock(self, req, start):
        lk = self.locks.get(req["name"]) or self.lock_for(req)
        try:
            lk.release()
        except ReleaseUnlockedLock:
            return {"status": "fail"}
        except QuorumIsImpossible as e:
            return quorum_error(e)
        return {"status": "ok"}


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(f"usage: {sys.argv[0]}", file=sys.stderr)
        sys.exit(2)
    lockdriver.main(PotteryDriver())
