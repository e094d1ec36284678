-- simple_lock.lua: acquire the simple (single-instance) lock from the Redis
-- docs: SET key token NX PX lease, made idempotent for a retried attempt.
-- KEYS[1] = lock key
-- ARGV[1] = token of this acquire attempt (unique per Lock/TryLock call)
-- ARGV[2] = lease in milliseconds
-- Returns 0 when the lock is held by ARGV[1] after the call (granted now, or
-- granted by an earlier run of this same attempt, whose lease is re-armed);
-- otherwise the holder's remaining PTTL in ms (>= 1, or -1 without a TTL).
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 0
end
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == 0 then
    return 1 -- under 1 ms left: never confuse it with a grant
end
return ttl
