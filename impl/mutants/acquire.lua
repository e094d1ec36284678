-- acquire.lua: Redisson's reentrant acquire (hash <name>, field = owner,
-- value = hold count), returning integers instead of nil.
-- KEYS[1] = lock key
-- ARGV[1] = lease in ms
-- ARGV[2] = owner field
-- Returns 0 when acquired (first or reentrant hold; the lease is re-armed),
-- else the holder's PTTL in ms (>= 1, or -1 without a TTL).
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 0
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == 0 then
    return 1
end
return ttl
