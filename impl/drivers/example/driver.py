#!/usr/bin/python3
# A lockcheck driver (protocol 1) in under 40 lines: SET NX PX, compare-and-delete.
import json, sys, time, uuid
import redis

UNLOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
me, r, watchdog_ms = uuid.uuid4().hex, None, 30000  # one process, one owner

def reply(req, status, **more):
    print(json.dumps({"id": req["id"], "status": status, **more}), flush=True)

print(json.dumps({"protocol": 1, "driver": "example-setnx", "capabilities": []}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    op, name = req["op"], req.get("name")
    try:
        if op == "hello":
            host, port = req["redis"][0].rsplit(":", 1)
            r = redis.Redis(host=host, port=int(port), password=req.get("password") or None,
                            db=req.get("db", 0), socket_timeout=5)  # no retries: a lost reply is info
            r.ping()
            watchdog_ms = req.get("watchdog_ms") or watchdog_ms
            reply(req, "ok")
        elif op in ("lock", "trylock"):
            lease = req.get("lease_ms") if req.get("lease_ms", 0) > 0 else watchdog_ms
            end = time.monotonic() + (req.get("wait_ms", 0) if op == "trylock" else req["timeout_ms"]) / 1000
            while not (got := r.set(name, me, nx=True, px=lease)) and time.monotonic() < end:
                time.sleep(0.005)
            reply(req, "ok" if got else "fail")
        elif op == "unlock":
            reply(req, "ok" if r.eval(UNLOCK, 1, name, me) == 1 else "fail")
        else:
            reply(req, "error", error="unknown op " + op)
    except redis.ResponseError as e:
        reply(req, "error", error=str(e), redis_error=True)
    except Exception as e:
        reply(req, "error", error=repr(e))
