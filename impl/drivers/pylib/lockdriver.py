"""The protocol side of lockcheck's Python drivers on redis-py 5 and later.

Speaks lockcheck's driver protocol, version 1 (impl/driver/doc.go): a banner
line on stdout first, then one JSON request per line on stdin and one JSON
reply per line on stdout; logs on stderr; exit 0 on end of input without
unlocking anything. A driver that sets OWNERS speaks version 2 with
capability owners: a request that names an owner runs on that owner's
thread (made at its first request) with a Driver of its own (a shallow copy
made after hello, reset: its own locks, the same redis-py clients), and its
reply is written when it is done, in any order. A driver subclasses Driver with its library's lock, trylock
and unlock and calls main(). Imported by the drivers in impl/drivers/*/
(redis-py-latest, python-redis-lock, pottery-redlock), each running in its own
virtualenv, and by the redis-py driver under Debian's python3-redis
(4.3.4); it needs only the standard library and redis-py >= 4.3.

Deadlines. Every request has timeout_ms. DeadlineConnection sets the socket
(connect, write, read) timeout of each command to what is left of the op's
time, so a command that hangs (a partition) ends in a TimeoutError and an
error reply in time. A command whose op deadline has passed is not sent at
all: OpDeadlineExceeded, raised before anything reached the socket, so the
caller knows that command did not happen. Commands sent from threads other
than those serving requests (a library's renewal thread) use
Driver.background_timeout instead, when the driver sets one, or else the
deadline of the request served last. The deadline is per serving thread
(threading.local), so owners' requests time out apart.

No automatic retry: a retried SET NX or release after a lost reply would turn
an unknown outcome into a wrong definite one (our own key seen as "held",
our own release seen as "not owner"). Every connection gets Retry(NoBackoff(),
0): a command runs exactly once, and a timeout surfaces as error, outcome
unknown, which is the truth.
"""

import copy
import json
import os
import queue
import sys
import threading
import time

import redis
import redis.exceptions as rexc
from redis.backoff import NoBackoff
from redis.connection import Connection, ConnectionPool
from redis.retry import Retry

PROTOCOL = 1
PROTOCOL_OWNERS = 2  # the version of a driver that hosts owners
DEFAULT_LEASE_MS = 30000  # lease_ms <= 0 and hello had no watchdog_ms
DEFAULT_TIMEOUT_MS = 10000  # a request without timeout_ms

# Redis answered the command with an error reply (LOADING and NOAUTH are
# raised as ConnectionError subclasses by redis-py).
REDIS_ERRORS = (rexc.ResponseError, rexc.BusyLoadingError, rexc.AuthenticationError)

# Per serving thread: "deadline", the deadline (time.monotonic()) of the
# request being served, read before each connect, write and read (None
# between requests), and "serving", set on the threads that serve requests.
_local = threading.local()
# The deadline of the request served last, for threads that serve none and
# have no background timeout (a library that sends an op's commands from a
# thread pool: pottery's).
_deadline = None
# Socket timeout (seconds) of commands sent by background threads; None:
# they follow the op deadline too (a library that sends an op's commands
# from a thread pool).
_background_timeout = None


class OpDeadlineExceeded(rexc.TimeoutError):
    """The op's deadline passed before the command was sent: it did not happen."""


def remaining():
    """Seconds left for the command; raises when none are left."""
    if _background_timeout is not None and not getattr(_local, "serving", False):
        return _background_timeout
    dl = deadline()
    if dl is None:
        return None
    left = dl - time.monotonic()
    if left <= 0.001:
        raise OpDeadlineExceeded("op deadline passed before the command was sent")
    return left


def deadline():
    if getattr(_local, "serving", False):
        return getattr(_local, "deadline", None)
    return _deadline


class DeadlineConnection(Connection):
    """A redis-py Connection whose socket timeouts follow the op deadline."""

    def _set_timeouts(self):
        if not self._sock:
            left = remaining()
            # _connect uses socket_connect_timeout for connect(), then
            # socket_timeout for the handshake (AUTH, SELECT, CLIENT ...).
            self.socket_connect_timeout = left
            self.socket_timeout = left

    def connect(self):
        self._set_timeouts()
        super().connect()

    def connect_check_health(self, *args, **kwargs):  # redis-py >= 5.3
        self._set_timeouts()
        super().connect_check_health(*args, **kwargs)

    def send_packed_command(self, command, check_health=True):
        if not self._sock:
            if hasattr(Connection, "connect_check_health"):
                self.connect_check_health(check_health=False)
            else:  # redis-py 4.3 (Debian)
                self.connect()
        # The read of the reply uses the socket's timeout too.
        self._sock.settimeout(remaining())
        super().send_packed_command(command, check_health=check_health)


def make_client(host, port, username, password, db, client_name, client_class=redis.Redis):
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
        retry=Retry(NoBackoff(), 0),
        health_check_interval=0,
    )
    return client_class(connection_pool=pool)


def parse_addr(addr):
    host, sep, port = addr.rpartition(":")
    if not sep or not host:
        raise ValueError(f"bad redis address {addr!r} (want host:port)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


class Driver:
    """One lock owner. Subclasses set DRIVER, VERSION, CAPABILITIES, and
    implement connect(addrs, req) and op_lock, op_trylock, op_unlock(req,
    start), each returning a reply dict without "id". With OWNERS, one
    process hosts several owners: each a shallow copy of the Driver that
    said hello, reset (see run), on a thread of its own."""

    OWNERS = False
    DRIVER = "?"
    VERSION = "?"
    CAPABILITIES = []
    # Topologies hello may name besides "single" (one address): "redlock"
    # is up to MAX_ADDRS independent masters.
    TOPOLOGIES = []
    MAX_ADDRS = 1
    client_class = redis.Redis

    def __init__(self):
        self.clients = []
        self.watchdog_ms = 0
        self.name = "?"
        self.seed = 0

    def log(self, *args):
        print(f"{self.DRIVER} driver:", *args, file=sys.stderr, flush=True)

    def lease_ms(self, req):
        """The lease of a request; lease_ms <= 0 is the watchdog lease."""
        ms = int(req.get("lease_ms") or 0)
        if ms <= 0:
            ms = self.watchdog_ms if self.watchdog_ms > 0 else DEFAULT_LEASE_MS
        return ms

    def margin(self, start):
        """The last slice of the op's time, kept for the last attempt's round
        trip, so that giving up is a fail and not a TimeoutError."""
        return min(0.25, (deadline() - start) / 5)

    def wait_left(self, start):
        """Seconds a blocking acquire may still wait within the op's time."""
        return max(0.0, deadline() - time.monotonic() - self.margin(start))

    def for_owner(self):
        """A Driver for one more owner of this process: the same clients and
        settings, none of this one's locks."""
        d = copy.copy(self)
        d.reset()
        return d

    def reset(self):
        """Forget the locks of the previous connection (a second hello)."""

    def op_hello(self, req):
        most = PROTOCOL_OWNERS if self.OWNERS else PROTOCOL
        if not PROTOCOL <= int(req.get("protocol") or 0) <= most:
            return {"status": "error",
                    "error": f"protocol {req.get('protocol')} not supported (want {PROTOCOL}..{most})"}
        topology = req.get("topology") or "single"
        if topology != "single" and topology not in self.TOPOLOGIES:
            return {"status": "error", "error": f"{self.DRIVER} does not support the {topology} topology"}
        most = self.MAX_ADDRS if topology == "redlock" else 1
        addrs = req.get("redis") or []
        if not 1 <= len(addrs) <= most:
            return {"status": "error",
                    "error": f"{self.DRIVER} takes 1..{most} Redis addresses on the {topology} topology; got {len(addrs)}"}
        self.name = req.get("client") or "?"
        self.watchdog_ms = int(req.get("watchdog_ms") or 0)
        self.seed = int(req.get("seed") or 0)
        for c in self.clients:
            c.connection_pool.disconnect()
        self.clients = []
        self.reset()
        clients = []
        for addr in addrs:
            host, port = parse_addr(addr)
            c = make_client(host, port, req.get("username"), req.get("password"),
                            int(req.get("db") or 0), self.name, self.client_class)
            c.ping()  # raises: error reply, and no clients for later ops
            clients.append(c)
        self.clients = clients
        self.connected(req)
        self.log(f"{self.name}: connected to {', '.join(addrs)} db {req.get('db') or 0}, "
                 f"{self.DRIVER} {self.VERSION}, redis-py {redis.__version__}")
        return {"status": "ok"}

    def connected(self, req):
        """Called once hello connected self.clients."""

    def serve(self, req):
        global _deadline
        rid = req.get("id")
        op = req.get("op")
        start = time.monotonic()
        tmo = req.get("timeout_ms")
        tmo = DEFAULT_TIMEOUT_MS if not tmo or tmo <= 0 else tmo
        total = tmo / 1000
        # Answer a little before timeout_ms; lockcheck adds a grace on top.
        _local.serving = True
        _local.deadline = _deadline = start + total - min(0.1, total / 20)
        try:
            if op == "hello":
                rep = self.op_hello(req)
            elif op in ("lock", "trylock", "unlock"):
                if not self.clients:
                    rep = {"status": "error", "error": f"{op} before hello"}
                elif not req.get("name"):
                    rep = {"status": "error", "error": f"{op} without a name"}
                else:
                    rep = getattr(self, "op_" + op)(req, start)
            else:
                rep = {"status": "error", "error": f"unknown op {op!r}"}
        except REDIS_ERRORS as e:
            rep = {"status": "error", "redis_error": True, "error": f"{type(e).__name__}: {e}"}
        except Exception as e:  # timeouts, connection errors, anything else
            rep = {"status": "error", "error": f"{type(e).__name__}: {e}"}
        finally:
            _local.deadline = _deadline = None
        if rep["status"] == "error":
            self.log(f"{self.name}: {op} {req.get('name', '')} #{rid}: {rep['error']}")
        rep = {"id": rid, **rep}
        if rep["status"] == "fail":
            rep.pop("error", None)  # the protocol's fail carries no message
        return rep


_write_lock = threading.Lock()


def write(obj):
    """Writes one line on stdout (owners' threads write one at a time)."""
    line = json.dumps(obj, separators=(",", ":")) + "\n"
    with _write_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def set_background_timeout(seconds):
    """Commands of threads other than the serving one get this socket timeout."""
    global _background_timeout
    _background_timeout = seconds


class Owners:
    """The owner threads of a process (Driver.OWNERS): each serves its
    owner's requests, one at a time in the order they came, with the owner's
    Driver, and writes each reply when it is done. Daemons: the end of input
    ends the process without waiting for them."""

    def __init__(self, driver):
        self.driver = driver
        self.queues = {}

    def dispatch(self, owner, req):
        q = self.queues.get(owner)
        if q is None:
            q = queue.Queue()
            self.queues[owner] = q
            d = self.driver.for_owner()
            threading.Thread(target=self.serve, args=(d, q), name=f"owner-{owner}", daemon=True).start()
        q.put(req)

    @staticmethod
    def serve(d, q):
        while True:
            write(d.serve(q.get()))


def run(driver):
    caps = list(driver.CAPABILITIES)
    if driver.OWNERS:
        caps.append("owners")
    banner = {"protocol": PROTOCOL_OWNERS if driver.OWNERS else PROTOCOL, "driver": driver.DRIVER,
              "version": driver.VERSION, "capabilities": caps}
    if driver.TOPOLOGIES:
        banner["topologies"] = ["single", *driver.TOPOLOGIES]
    write(banner)
    owners = Owners(driver)
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return 0  # end of input: exit 0 without unlocking anything
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            if not isinstance(req, dict) or not isinstance(req.get("id"), int):
                raise ValueError("not a request object with an integer id")
        except ValueError as e:
            driver.log(f"bad request line {line[:200]!r}: {e}")
            return 2
        if driver.OWNERS and req.get("owner") and req.get("op") != "hello":
            owners.dispatch(str(req["owner"]), req)
            continue
        write(driver.serve(req))


def main(driver):
    try:
        code = run(driver)
    except BrokenPipeError:
        # lockcheck went away; nothing to say it to.
        try:
            sys.stdout = None
        finally:
            os._exit(1)
    sys.exit(code)
