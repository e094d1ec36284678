-- renew_any.lua: MUTANT. Renewal without an owner check: it re-creates the
-- owner's field when it is missing (even inside another owner's hash) and
-- extends whatever is there.
-- KEYS[1] = lock key
-- ARGV[1] = lease in ms
-- ARGV[2] = owner field
-- Returns 1 (always "renewed").
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    redis.call('hset', KEYS[1], ARGV[2], 1)
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
