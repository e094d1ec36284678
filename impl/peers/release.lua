-- release.lua: compare-and-delete, the same check as bsm/redislock's Release,
-- for a token whose Obtain outcome was never read (no *redislock.Lock exists).
-- KEYS[1] = lock key
-- ARGV[1] = stored value (token; the adapters set no metadata)
-- Returns 1 when the key held ARGV[1] and was deleted, else 0.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
