-- acquire_nocount.lua: MUTANT. Like acquire.lua, but a reentrant acquire
-- sets the count to 1 instead of incrementing it, so the holder's first
-- unlock frees the lock while it still believes it holds it.
-- KEYS[1] = lock key
-- ARGV[1] = lease in ms
-- ARGV[2] = owner field
-- Returns 0 when acquired, else the holder's PTTL in ms (>= 1, or -1).
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 0
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == 0 then
    return 1
end
return ttl
