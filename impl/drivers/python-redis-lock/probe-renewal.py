"""python-redis-lock alone, no lockcheck: one failed renewal ends renewal
for good, and the Lock object is then unusable.

    impl/drivers/python-redis-lock/.venv/bin/python impl/drivers/python-redis-lock/probe-renewal.py

Starts its own redis-server on a free port. A holder takes a 2 s lease with
auto_renewal=True (renewal every 1.33 s) on a client with a 0.2 s socket
timeout and no retries. The server is stopped for 0.6 s around the first
renewal, far less than what is left of the lease (the key itself never
runs out during the stop). The renewal times out, the renewal thread exits,
and the hold runs out 2 s after the last good renewal although its owner
never released it. Then acquire() on the same object takes the lock in
Redis and raises AlreadyStarted.
"""
import os
import signal
import socket
import subprocess
import time

import redis
import redis_lock
from redis.backoff import NoBackoff
from redis.retry import Retry

s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
srv = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                        "--appendonly", "no"], stdout=subprocess.DEVNULL)
try:
    admin = redis.Redis(port=port)
    for _ in range(50):
        try:
            admin.ping()
            break
        except redis.exceptions.ConnectionError:
            time.sleep(0.1)
    r = redis.Redis(port=port, socket_timeout=0.2, retry=Retry(NoBackoff(), 0))
    lock = redis_lock.Lock(r, "probe", expire=2, auto_renewal=True)
    t0 = time.monotonic()
    assert lock.acquire(blocking=False)
    print(f"acquired, TTL {admin.pttl('lock:probe')} ms; renewal every {lock._lock_renewal_interval:.2f} s")
    time.sleep(1.2)
    os.kill(srv.pid, signal.SIGSTOP)  # the renewal at 1.33 s meets a stopped server
    time.sleep(0.6)
    os.kill(srv.pid, signal.SIGCONT)
    print(f"t={time.monotonic() - t0:.1f}s server back; renewal thread alive: {lock._lock_renewal_thread.is_alive()}, "
          f"TTL {admin.pttl('lock:probe')} ms")
    time.sleep(2.5)
    print(f"t={time.monotonic() - t0:.1f}s never released; key exists: {admin.exists('lock:probe')} "
          f"(a renewed hold would: 1)")
    try:
        lock.acquire(blocking=False)
        print("acquire again: True")
    except redis_lock.AlreadyStarted as e:
        print(f"acquire again on the same Lock: raised AlreadyStarted ({e}); "
              f"key now holds its id: {admin.get('lock:probe') == lock.id.encode()}, TTL {admin.pttl('lock:probe')} ms")
finally:
    os.kill(srv.pid, signal.SIGCONT)
    srv.terminate()
    srv.wait()
