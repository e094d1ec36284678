-- redlock_acquire.lua: take one node's share of a RedLock: SET key token NX
-- PX lease, made idempotent for a retried run of the same attempt.
-- KEYS[1] = lock key
-- ARGV[1] = token of this acquire attempt (unique per attempt)
-- ARGV[2] = lease in milliseconds
-- Returns 1 when the key holds ARGV[1] after the call (set now, or set by an
-- earlier run of this attempt, whose expiry is re-armed), 0 when another
-- token holds it.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
end
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 1
end
return 0
