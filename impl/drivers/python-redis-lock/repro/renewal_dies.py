"""python-redis-lock alone: one renewal answered with an error ends auto-renewal.

Usage: renewal_dies.py PORT [--control]

A lock taken with auto_renewal=True and expire=2 is renewed by a thread
every 2 * 2/3 s. Here, from 0.3 s to 1.6 s after the grant, Redis refuses
the default user's scripts (ACL SETUSER default -evalsha -eval: the first
renewal, at 1.33 s, is answered NOPERM); then everything is allowed again.
The holder never unlocks. At 4.5 s the lock key should still be there (two
more renewals due at 2.67 s and 4.0 s). With the bug it is gone: the
renewal thread died of the one error (Lock._lock_renewer calls extend()
with no try), and the lock ran out under its holder.
--control skips the refusal: the key must be there at 4.5 s.
Exit 0 and "REPRODUCED" when the key is gone without --control; "HELD" when
it is there.
"""
import sys
import time

import redis
import redis_lock


def main():
    port = int(sys.argv[1])
    control = "--control" in sys.argv[2:]
    holder = redis.Redis(port=port)
    admin = redis.Redis(port=port)
    lock = redis_lock.Lock(holder, "renewal-dies", expire=2, auto_renewal=True)
    assert lock.acquire(blocking=False)
    granted = time.monotonic()
    if not control:
        time.sleep(0.3)
        admin.execute_command("ACL", "SETUSER", "default", "-evalsha", "-eval")
        time.sleep(1.3)
        admin.execute_command("ACL", "SETUSER", "default", "+@all")
    time.sleep(4.5 - (time.monotonic() - granted))
    held = admin.exists("lock:renewal-dies") == 1
    alive = lock._lock_renewal_thread is not None and lock._lock_renewal_thread.is_alive()
    print(f"python-redis-lock {redis_lock.__version__}: at 4.5 s the key is {'there' if held else 'gone'}, "
          f"the renewal thread is {'alive' if alive else 'dead'}: {'HELD' if held else 'REPRODUCED'}")
    return 0 if (held == control) else 1


if __name__ == "__main__":
    sys.exit(main())
