"""Protocol self-test of a Python driver against a real redis-server.

Each Python driver's selftest.py calls run(Config(...)) with the driver's
name and what is particular to its library; it needs redis-server on PATH
and the driver's virtualenv (for the redis package). It starts its own
redis-server on a free port, talks to driver processes over the protocol and
exits non-zero after the first failed check's report.
"""

import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import redis


@dataclass
class Config:
    driver: str  # the banner's driver name
    version: str  # the banner's version
    capabilities: list = field(default_factory=list)
    topologies: list = None  # the banner's "topologies", when it has them
    command: list = None  # the driver's argv (default: this Python, driver.py)
    key: callable = lambda name: name  # the Redis key of a lock name
    watchdog: bool = False  # lease 0 is renewed until unlock
    # Reply to a lock whose commands hang (redis-server stopped): "error",
    # or "fail" when the hanging command cannot have taken the lock.
    hung_lock: str = "error"
    expiry_wake_ms: tuple = (700, 1600)  # a waiter's grant after a 1 s lease ran out
    # Reply to a trylock on a name whose key is a hash: "fail" (SET NX saw
    # a key) or "error" with redis_error (the library ran a command that
    # met WRONGTYPE; lockcheck records it as fail).
    hash_trylock: str = "fail"
    # Reply to the unlock of a hold whose key became a hash: "error" with
    # redis_error and WRONGTYPE, or "fail" when the library reads the
    # WRONGTYPE reply as "not the owner".
    hash_unlock: str = "error"
    extra: callable = None  # extra(t, a, b): the driver's own checks
    owners: bool = False  # protocol 2 with capability owners (see owners())


class Test:
    def __init__(self, cfg):
        self.cfg = cfg
        self.fails = 0
        self.tmp = tempfile.mkdtemp()
        self.drivers = {}
        self.pending = {}  # per driver: bytes read past its last line
        self.ids = 0
        self.took = 0
        port = free_port()
        self.port = port
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--logfile", os.path.join(self.tmp, "redis.log")])
        self.r = redis.Redis(port=port, socket_timeout=5)
        for _ in range(50):
            try:
                self.r.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.1)
        self.r.ping()

    def close(self):
        for p, _ in self.drivers.values():
            p.kill()
            p.wait()
        os.kill(self.redis.pid, signal.SIGCONT)
        self.redis.terminate()
        self.redis.wait()

    def start(self, name):
        here = os.path.dirname(os.path.abspath(sys.argv[0]))
        err = open(os.path.join(self.tmp, name + ".err"), "w")
        argv = self.cfg.command or [sys.executable, os.path.join(here, "driver.py")]
        p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=err, cwd=here)
        self.drivers[name] = (p, err)
        return self.recv(name)

    def recv(self, name, wait=10):
        """The driver's next line, "<no reply>" after wait seconds, or "<EOF>".

        It reads the pipe's file descriptor into a buffer of its own: a
        buffered readline may take two lines at once, and select would then
        wait on an empty descriptor for the line already read."""
        p = self.drivers[name][0]
        buf = self.pending.get(name, b"")
        deadline = time.monotonic() + wait
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([p.stdout], [], [], max(left, 0))
            if not ready:
                self.pending[name] = buf
                return "<no reply>"
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                self.pending[name] = b""
                return buf.decode() or "<EOF>"
            buf += chunk
        line, _, rest = buf.partition(b"\n")
        self.pending[name] = rest
        return line.decode()

    def check(self, desc, got, want):
        """want: a dict of fields the reply must have, or a predicate."""
        ok = want(got) if callable(want) else got == want
        print(("ok   " if ok else "FAIL ") + desc + ("" if ok else f": got {got!r}, want {want!r}"))
        self.fails += 0 if ok else 1

    def rq(self, name, req, status, desc, redis_error=None):
        self.ids += 1
        req = {"id": self.ids, **req}
        p = self.drivers[name][0]
        t0 = time.monotonic()
        p.stdin.write((json.dumps(req) + "\n").encode())
        p.stdin.flush()
        line = self.recv(name)
        self.took = int((time.monotonic() - t0) * 1000)
        try:
            rep = json.loads(line)
        except ValueError:
            rep = {"raw": line}
        good = rep.get("id") == self.ids and rep.get("status") == status
        if status == "error":
            good = good and bool(rep.get("error"))
        if redis_error is not None:
            good = good and bool(rep.get("redis_error")) == redis_error
        self.check(f"{desc} ({self.took} ms)", rep, lambda _: good)
        return rep

    def send(self, name, req):
        p = self.drivers[name][0]
        p.stdin.write((json.dumps(req) + "\n").encode())
        p.stdin.flush()

    def within(self, desc, lo, hi):
        self.check(f"{desc}: {self.took} ms in [{lo}, {hi}]", self.took, lambda t: lo <= t <= hi)

    def hello(self, name, port=None, timeout_ms=2000, desc="hello"):
        return self.rq(name, {"op": "hello", "protocol": 1, "timeout_ms": timeout_ms,
                              "redis": [f"127.0.0.1:{port or self.port}"], "username": "", "password": "",
                              "db": 0, "client": "t", "watchdog_ms": 1500, "seed": 1},
                       "ok" if port is None else "error", desc)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def lock(name, lease, timeout=2000):
    return {"op": "lock", "name": name, "lease_ms": lease, "timeout_ms": timeout}


def trylock(name, wait, lease=5000, timeout=2000):
    return {"op": "trylock", "name": name, "wait_ms": wait, "lease_ms": lease, "timeout_ms": timeout}


def unlock(name, timeout=2000):
    return {"op": "unlock", "name": name, "timeout_ms": timeout}


def basics(t, L):
    cfg = t.cfg
    banner = json.loads(t.start("a"))
    want = {"protocol": 2 if cfg.owners else 1, "driver": cfg.driver, "version": cfg.version,
            "capabilities": cfg.capabilities + (["owners"] if cfg.owners else [])}
    if cfg.topologies:
        want["topologies"] = cfg.topologies
    t.check("banner a", banner, want)
    t.check("banner b", json.loads(t.start("b")).get("driver"), cfg.driver)
    t.rq("a", lock("x", 100, 1000), "error", "lock before hello -> error")
    t.hello("a", desc="hello a")
    t.hello("b", desc="hello b")
    t.rq("a", {"op": "frobnicate", "timeout_ms": 1000}, "error", "unknown op -> error")

    # Mutual exclusion, ownership.
    t.rq("a", lock(L, 5000), "ok", "a lock")
    t.rq("b", trylock(L, 150), "fail", "b trylock while a holds -> fail")
    t.within("b trylock answered within its wait (+ a poll and slack)", 0, 600)
    t.rq("b", trylock(L, 0), "fail", "b trylock wait 0 while a holds -> fail")
    t.rq("b", unlock(L), "fail", "b unlock (not owner) -> fail")
    t.check("key survives b's unlock", t.r.exists(cfg.key(L)), 1)
    t.rq("b", lock(L, 5000, 1500), "fail", "b lock gives up within timeout_ms -> fail")
    t.within("b lock gave up within timeout_ms", 0, 1500)
    t.rq("a", unlock(L), "ok", "a unlock")
    t.check("key gone after a's unlock", t.r.exists(cfg.key(L)), 0)
    t.rq("a", unlock(L), "fail", "a unlock again -> fail")
    t.rq("b", trylock(L, 0), "ok", "b trylock wait 0 on a free lock -> ok")
    t.rq("b", unlock(L), "ok", "b unlock")
    refused = 0
    for wait in (1, 2) * 15:
        rep = t.rq("b", trylock(L, wait), "ok", f"b trylock wait {wait} ms on a free lock -> ok")
        refused += rep.get("status") != "ok"
        t.rq("b", unlock(L), "ok", "b unlock")
    t.check("tiny waits on a free lock never answered fail", refused, 0)


def leases(t, L):
    cfg = t.cfg
    t.rq("a", lock(L, 1000), "ok", "a lock lease 1000 ms")
    t.check("PTTL is the lease", t.r.pttl(cfg.key(L)), lambda v: 800 <= v <= 1000)
    t.rq("b", lock(L, 5000, 3000), "ok", "b lock waits for a's lease to run out")
    t.within("b granted once a's lease ran out", *cfg.expiry_wake_ms)
    t.rq("a", unlock(L), "fail", "a unlock after its lease ran out (b holds) -> fail")
    t.check("a's failed unlock left b's key", t.r.exists(cfg.key(L)), 1)
    t.rq("b", unlock(L), "ok", "b unlock")
    t.rq("a", lock(L, 0), "ok", "a lock lease 0 (watchdog_ms 1500)")
    if cfg.watchdog:
        time.sleep(3)
        t.check("a watchdog hold outlives its lease (renewed)", t.r.exists(cfg.key(L)), 1)
        t.rq("a", unlock(L), "ok", "a unlock of its renewed hold")
    else:
        t.check("lease 0 is a plain lease of watchdog_ms", t.r.pttl(cfg.key(L)), lambda v: 1300 <= v <= 1500)
        t.rq("a", unlock(L), "ok", "a unlock")


def exact_px(t, L):
    """An extra check for SET PX locks: a lease of 1001 ms reaches Redis as
    PX 1001 (redis-py's Lock computes int(timeout * 1000), which truncates a
    float 1.001 to 1000)."""
    px = None
    with t.r.monitor() as m:
        t.rq("a", lock(L, 1001), "ok", "a lock lease 1001 ms")
        for cmd in m.listen():
            words = cmd["command"].upper().split()
            if "PX" in words[:-1]:
                px = words[words.index("PX") + 1]
                break
    t.check("PX is the lease, not truncated to 1000", px, "1001")
    t.rq("a", unlock(L), "ok", "a unlock")


def errors(t, L):
    cfg = t.cfg
    H = "selftest:hash"
    t.rq("a", lock(H, 10000), "ok", f"a lock {H}")
    t.r.delete(cfg.key(H))
    t.r.hset(cfg.key(H), "f", "v")
    if cfg.hash_unlock == "error":
        rep = t.rq("a", unlock(H), "error", "a unlock when the key became a hash -> error, redis_error", redis_error=True)
        t.check("the error says WRONGTYPE", rep.get("error", ""), lambda e: "WRONGTYPE" in e)
    else:
        t.rq("a", unlock(H), "fail", "a unlock when the key became a hash -> fail (the library reads WRONGTYPE as not the owner)")
    if cfg.hash_trylock == "fail":
        t.rq("b", trylock(H, 0, 1000), "fail", "trylock on a hash key -> fail (SET NX: the key exists)")
    else:
        t.rq("b", trylock(H, 0, 1000), "error", "trylock on a hash key -> error, redis_error (WRONGTYPE)", redis_error=True)

    t.start("c")
    os.kill(t.redis.pid, signal.SIGSTOP)
    t.rq("b", lock(L, 5000, 400), cfg.hung_lock, f"lock while redis hangs -> {cfg.hung_lock}")
    t.within("hung lock answered within timeout_ms (+ slack)", 100, 650)
    t.hello("c", port=t.port, timeout_ms=400, desc="hello while redis hangs -> error")
    t.within("hung hello answered within timeout_ms (+ slack)", 100, 650)
    os.kill(t.redis.pid, signal.SIGCONT)
    t.hello("c", port=free_port(), timeout_ms=1000, desc="hello to a closed port -> error")
    t.within("refused hello answered within timeout_ms", 0, 1000)


def owners(t, L):
    """Two owners of one process (protocol 2): p2's lock waits while p1's
    unlock, sent after it, runs on p1's thread and is not queued behind it."""
    O = L + ":owners"
    t.start("o")
    t.ids += 1
    t.send("o", {"id": t.ids, "op": "hello", "protocol": 2, "owners": 2, "timeout_ms": 2000,
                 "redis": [f"127.0.0.1:{t.port}"], "client": "o", "watchdog_ms": 1500})
    t.check("owners hello", json.loads(t.recv("o")).get("status"), "ok")
    t.rq("o", {**lock(O, 5000), "owner": "p1"}, "ok", "p1 lock")
    t.rq("o", {**trylock(O, 0), "owner": "p2"}, "fail", "p2 trylock while p1 holds -> fail")
    t.send("o", {**lock(O, 5000), "owner": "p2", "id": t.ids + 1})
    t.send("o", {**unlock(O), "owner": "p1", "id": t.ids + 2})
    got = [json.loads(t.recv("o")) for _ in range(2)]
    # The two answers come from two threads: once p1's unlock has run in
    # Redis, p2's grant may be written first. What shows p1's unlock was not
    # queued behind p2's lock is that both succeed: queued, p2 would be
    # granted only when p1's lease ran out, and p1's unlock would then fail.
    t.check("p1's unlock and p2's lock, sent after it, both succeed",
            sorted((r.get("id"), r.get("status")) for r in got), [(t.ids + 1, "ok"), (t.ids + 2, "ok")])
    t.ids += 2
    t.rq("o", {**unlock(O), "owner": "p1"}, "fail", "p1 unlock of p2's hold -> fail")
    t.rq("o", {**unlock(O), "owner": "p2"}, "ok", "p2 unlock")


def eof(t):
    E = "selftest:eof"
    t.rq("a", lock(E, 10000), "ok", "a lock before EOF")
    for n, (p, _) in list(t.drivers.items()):
        p.stdin.close()
        t.check(f"driver {n} exits 0 on EOF", p.wait(10), 0)
    t.drivers = {}
    t.check("EOF left a's lock held", t.r.exists(t.cfg.key(E)), 1)


def run(cfg):
    t = Test(cfg)
    try:
        L = "selftest:l0"
        basics(t, L)
        leases(t, L)
        if cfg.extra:
            cfg.extra(t, L)
        if cfg.owners:
            owners(t, L)
        errors(t, L)
        eof(t)
    finally:
        t.close()
    if t.fails:
        print(f"{t.fails} check(s) FAILED; driver stderr:")
        for f in sorted(os.listdir(t.tmp)):
            if f.endswith(".err"):
                print(f"--- {f}")
                print("".join(open(os.path.join(t.tmp, f)).readlines()[-5:]))
        sys.exit(1)
    print("all checks passed")
