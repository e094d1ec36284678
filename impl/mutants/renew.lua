-- renew.lua: owner-checked watchdog renewal (Redisson's renewExpiration).
-- KEYS[1] = lock key
-- ARGV[1] = lease in ms
-- ARGV[2] = owner field
-- Returns 1 when ARGV[2] holds the lock and its lease was re-armed, else 0.
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 1
end
return 0
