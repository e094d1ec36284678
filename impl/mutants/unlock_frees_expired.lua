-- unlock_frees_expired.lua: MUTANT. Like unlock.lua, but when the caller's
-- field is missing (its lease ran out before the unlock) it frees the lock
-- anyway (deletes the key, whoever holds it now, and publishes the wake-up)
-- before it answers "not owner".
-- KEYS[1] = lock key, KEYS[2] = unlock channel
-- ARGV[1] = lease in ms (re-armed on a partial release)
-- ARGV[2] = owner field
-- Returns -1 when ARGV[2] held nothing (the lock was freed all the same),
-- 0 when one hold of several was released, 1 when the lock was freed.
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    redis.call('del', KEYS[1])
    redis.call('publish', KEYS[2], '0')
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
