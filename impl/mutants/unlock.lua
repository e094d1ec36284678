-- unlock.lua: Redisson's reentrant release (before the unlock latch).
-- KEYS[1] = lock key, KEYS[2] = unlock channel
-- ARGV[1] = lease in ms (re-armed on a partial release)
-- ARGV[2] = owner field
-- Returns -1 when ARGV[2] holds nothing, 0 when one hold of several was
-- released, 1 when the lock was freed (key deleted, "0" published).
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return -1
end
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if counter > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 0
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], '0')
return 1
