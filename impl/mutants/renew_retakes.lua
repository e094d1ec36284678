-- renew_retakes.lua: MUTANT. Renewal the way SET key token XX PX lease
-- renews: whenever the key exists, whoever holds it, it makes it the
-- caller's and re-arms the lease. A caller whose field is missing (its
-- lease ran out while it was paused, and another owner took the lock)
-- overwrites the other owner's hash with its own field, count 1, as SET
-- overwrites the value: it takes the lock back.
-- KEYS[1] = lock key
-- ARGV[1] = lease in ms
-- ARGV[2] = owner field
-- Returns 1 when the key existed (it is the caller's now, lease re-armed),
-- 0 when there was no key.
if redis.call('exists', KEYS[1]) == 0 then
    return 0
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    redis.call('del', KEYS[1])
    redis.call('hset', KEYS[1], ARGV[2], 1)
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
