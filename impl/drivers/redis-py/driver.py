#!/usr/bin/python3
"""lockcheck driver for redis-py's Lock (redis.lock.Lock).

Speaks lockcheck's driver protocol, version 1 (impl/driver/doc.go): a banner
line on stdout first, then one JSON request per line on stdin and one JSON
reply per line on stdout. Logs go to stderr. On end of input it exits 0
without unlocking anything.

Usage:  /usr/bin/python3 impl/drivers/redis-py/driver.py [--sleep SECONDS]

Written for redis-py 4.3.4 as packaged by Debian (python3-redis); it needs
only the standard library and redis-py, and no hiredis (the pure-Python
parser is what the timeout handling below was checked against).

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
  * unlock: release() -> ok; fail when redis-py says "not owner", which 4.3.4
    says in two ways, both LockError:
      - LockNotOwnedError (a LockError subclass): the release script found
        no key or another token (our lease ran out, maybe someone else holds
        the lock now); nothing was deleted.
      - LockError("Cannot release an unlocked lock"): this Lock object has
        no token, i.e. this driver never acquired (or already released) the
        lock; redis-py does not even ask Redis.
  * A Redis error reply (redis.exceptions.ResponseError: WRONGTYPE, NOSCRIPT,
    READONLY, OOM, ...; also LOADING and NOAUTH, which redis-py raises as
    ConnectionError subclasses) -> error with "redis_error": true. Timeouts
    and connection errors -> error (outcome unknown).

Polling. redis-py's Lock polls with SET NX PX and sleeps `sleep` seconds
between attempts (default 0.1 s). This driver uses 0.005 s (--sleep) so that
a waiter gets a freed lock within a few milliseconds: with the default, a
blocked lock op would add up to 100 ms of pure latency per handover, which
distorts lockcheck's timing (lease expiry, trylock windows of ~150 ms).

Thread-local token. Lock(thread_local=True), redis-py's default, keeps the
token in a threading.local. This driver has one thread and uses
thread_local=False anyway: the owner is the process, not a thread, and a
thread-local token would silently turn an unlock from any other thread (a
future helper thread, a signal handler) into "Cannot release an unlocked
lock" although the process holds the lock.

Lease precision. Lock.do_acquire computes PX as int(timeout * 1000); with a
float timeout of lease_ms / 1000 that truncates, e.g. 1001 ms becomes PX
1000. The driver passes the lease as a fractions.Fraction so that PX is
exactly lease_ms.

Timeouts. Every request has timeout_ms. The driver sets the socket
(connect, write, read) timeout of each command to what is left of the op's
time (DeadlineConnection below), so a command that hangs (a partition) ends
in a TimeoutError and an error reply in time, instead of a reply that never
comes. No automatic retry: see make_client.
"""

import fractions
import json
import os
import sys
import time

try:
    import redis
    import redis.exceptions as rexc
    from redis.connection import Connection, ConnectionPool
    from redis.lock import Lock
except ImportError as e:  # no banner: the protocol wants a non-zero exit
    print(f"redis-py driver: cannot import redis: {e} "
          f"(install python3-redis; run with /usr/bin/python3)", file=sys.stderr)
    sys.exit(1)

PROTOCOL = 1
DRIVER = "redis-py"
CAPABILITIES = []  # see the header: not reentrant, no watchdog, not fenced

DEFAULT_SLEEP = 0.005
DEFAULT_LEASE_MS = 30000  # when lease_ms <= 0 and hello had no watchdog_ms
DEFAULT_TIMEOUT_MS = 10000  # a request without timeout_ms


def log(*args):
    print("redis-py driver:", *args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Deadlines

# The deadline (time.monotonic()) of the request being served; the
# connection reads it before each connect, write and read.
_deadline = None


class OpDeadlineExceeded(rexc.TimeoutError):
    pass


def remaining():
    """Seconds left until the op's deadline; raises when none are left."""
    if _deadline is None:
        return None
    left = _deadline - time.monotonic()
    if left <= 0.001:
        raise OpDeadlineExceeded("op deadline passed before the command was sent")
    return left


class DeadlineConnection(Connection):
    """A redis-py Connection whose socket timeouts follow the op deadline."""

    def connect(self):
        if not self._sock:
            left = remaining()
            # _connect uses socket_connect_timeout for connect(), then
            # socket_timeout for the on_connect commands (AUTH, SELECT, ...).
            self.socket_connect_timeout = left
            self.socket_timeout = left
        super().connect()

    def send_packed_command(self, command, check_health=True):
        if not self._sock:
            self.connect()
        # The read of the reply uses the socket's timeout too.
        self._sock.settimeout(remaining())
        super().send_packed_command(command, check_health=check_health)


def make_client(host, port, username, password, db, client_name):
    # No automatic retry: retry_on_timeout=False, retry=None, no
    # retry_on_error, so redis-py 4.3.4 gives every connection
    # Retry(NoBackoff(), 0) and a command runs exactly once. A retry after a
    # timeout re-sends a command that may already have run, and the lock's
    # commands are not idempotent: a SET NX PX whose reply was lost did take
    # the lock, its retry finds our own key and returns nil, and acquire
    # would then report "not acquired" (or keep polling against itself)
    # while we hold the lock; a release script whose reply was lost did
    # delete the key, and its retry returns 0, i.e. LockNotOwnedError, "not
    # owner" although we just released. Either turns an unknown outcome into
    # a wrong definite one. Without retries a timeout surfaces as an error
    # reply: outcome unknown, which is the truth.
    pool = ConnectionPool(
        connection_class=DeadlineConnection,
        host=host,
        port=port,
        username=username or None,
        password=password or None,
        db=db,
        client_name=client_name or None,
        socket_timeout=None,  # set per command by DeadlineConnection
        socket_connect_timeout=None,
        retry_on_timeout=False,
        retry=None,
        health_check_interval=0,
    )
    return redis.Redis(connection_pool=pool)


def parse_addr(addr):
    host, sep, port = addr.rpartition(":")
    if not sep or not host:
        raise ValueError(f"bad redis address {addr!r} (want host:port)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


# ---------------------------------------------------------------------------
# The driver

class Driver:
    def __init__(self, sleep):
        self.sleep = sleep
        self.client = None
        self.watchdog_ms = 0
        self.name = "?"
        self.locks = {}  # lock name -> Lock (one owner: this process)

    def lock_for(self, name):
        lk = self.locks.get(name)
        if lk is None:
            lk = Lock(self.client, name, sleep=self.sleep, thread_local=False)
            self.locks[name] = lk
        return lk

    def lease(self, req):
        ms = int(req.get("lease_ms") or 0)
        if ms <= 0:
            ms = self.watchdog_ms if self.watchdog_ms > 0 else DEFAULT_LEASE_MS
        # A Fraction, so that Lock.do_acquire's int(timeout * 1000) is exact.
        return fractions.Fraction(ms, 1000)

    # -- ops; each returns a reply dict without "id", or raises

    def op_hello(self, req):
        if int(req.get("protocol") or 0) != PROTOCOL:
            return {"status": "error",
                    "error": f"protocol {req.get('protocol')} not supported (want {PROTOCOL})"}
        addrs = req.get("redis") or []
        if len(addrs) != 1:
            return {"status": "error",
                    "error": f"redis-py's Lock uses one Redis server; got {len(addrs)} addresses"}
        host, port = parse_addr(addrs[0])
        self.name = req.get("client") or "?"
        self.watchdog_ms = int(req.get("watchdog_ms") or 0)
        if self.client is not None:
            self.client.connection_pool.disconnect()
        self.client = None
        self.locks = {}
        client = make_client(host, port, req.get("username"), req.get("password"),
                             int(req.get("db") or 0), self.name)
        client.ping()  # raises: error reply, and no client for later ops
        self.client = client
        log(f"{self.name}: connected to {host}:{port} db {req.get('db') or 0}, "
            f"redis-py {redis.__version__}, sleep {self.sleep}s")
        return {"status": "ok"}

    def _margin(self, start):
        # Leave the last slice of the op's time for the last SET's round
        # trip, so that giving up is a fail and not a TimeoutError.
        total = _deadline - start
        return min(0.25, total / 5)

    def op_lock(self, req, start):
        lk = self.lock_for(req["name"])
        lk.timeout = self.lease(req)
        wait = max(0.0, _deadline - time.monotonic() - self._margin(start))
        if lk.acquire(blocking=True, blocking_timeout=wait):
            return {"status": "ok"}
        return {"status": "fail"}

    def op_trylock(self, req, start):
        lk = self.lock_for(req["name"])
        lk.timeout = self.lease(req)
        wait = max(0, int(req.get("wait_ms") or 0)) / 1000
        if wait <= 0:
            ok = lk.acquire(blocking=False)
        else:
            wait = min(wait, max(0.0, _deadline - time.monotonic() - self._margin(start)))
            ok = lk.acquire(blocking=True, blocking_timeout=wait)
        return {"status": "ok" if ok else "fail"}

    def op_unlock(self, req, start):
        lk = self.lock_for(req["name"])
        try:
            lk.release()
        except rexc.LockError as e:
            # LockNotOwnedError (key gone or another token) and LockError
            # "Cannot release an unlocked lock" (we hold no token): not owner.
            # Note release() drops the token before it runs the script, so
            # even an unlock that ends in an error leaves us without a hold.
            return {"status": "fail", "error": str(e)}
        return {"status": "ok"}

    def serve(self, req):
        global _deadline
        rid = req.get("id")
        op = req.get("op")
        start = time.monotonic()
        tmo = req.get("timeout_ms")
        tmo = DEFAULT_TIMEOUT_MS if not tmo or tmo <= 0 else tmo
        total = tmo / 1000
        # Answer a little before timeout_ms; lockcheck adds a grace on top.
        _deadline = start + total - min(0.1, total / 20)
        try:
            if op == "hello":
                rep = self.op_hello(req)
            elif op in ("lock", "trylock", "unlock"):
                if self.client is None:
                    rep = {"status": "error", "error": f"{op} before hello"}
                elif not req.get("name"):
                    rep = {"status": "error", "error": f"{op} without a name"}
                else:
                    rep = getattr(self, "op_" + op)(req, start)
            else:
                rep = {"status": "error", "error": f"unknown op {op!r}"}
        except (rexc.ResponseError, rexc.BusyLoadingError, rexc.AuthenticationError) as e:
            # Redis answered the command with an error reply.
            rep = {"status": "error", "redis_error": True,
                   "error": f"{type(e).__name__}: {e}"}
        except Exception as e:  # timeouts, connection errors, anything else
            rep = {"status": "error", "error": f"{type(e).__name__}: {e}"}
        finally:
            _deadline = None
        if rep["status"] == "error":
            log(f"{self.name}: {op} {req.get('name', '')} #{rid}: {rep['error']}")
        rep = {"id": rid, **rep}
        if rep["status"] == "fail":
            rep.pop("error", None)  # the protocol's fail carries no message
        return rep


def write(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


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
        print("redis-py driver: --sleep must be > 0", file=sys.stderr)
        return 2

    write({"protocol": PROTOCOL, "driver": DRIVER, "version": redis.__version__,
           "capabilities": CAPABILITIES})
    d = Driver(sleep)
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            # End of input: exit 0 without unlocking anything.
            return 0
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            if not isinstance(req, dict) or not isinstance(req.get("id"), int):
                raise ValueError("not a request object with an integer id")
        except ValueError as e:
            log(f"bad request line {line[:200]!r}: {e}")
            return 2
        write(d.serve(req))


if __name__ == "__main__":
    try:
        code = main(sys.argv)
    except BrokenPipeError:
        # lockcheck went away; nothing to say it to.
        try:
            sys.stdout = None
        finally:
            os._exit(1)
    sys.exit(code)
