-- redlock_release.lua: release one node's share of a RedLock with a
-- compare-and-delete.
-- KEYS[1] = lock key
-- ARGV[1] = token of the hold being released
-- Returns 1 when the key held ARGV[1] and was deleted, 0 otherwise (missing,
-- or another token's: left untouched).
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
