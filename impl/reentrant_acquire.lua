-- reentrant_acquire.lua: acquire (or re-enter) a Redisson RLock.
-- Redisson's RedissonLock.tryLockInnerAsync with explicit integer returns.
-- KEYS[1]: the lock hash <name>
-- ARGV[1]: lease in ms (PEXPIRE; reentry resets the TTL to it)
-- ARGV[2]: owner field <clientId>:<owner>
-- Returns {1, holdCount} when granted (first hold or reentry),
--         {0, pttl} when another owner holds it (pttl -1: no expiry).
if (redis.call('exists', KEYS[1]) == 0)
    or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, count}
end
return {0, redis.call('pttl', KEYS[1])}
