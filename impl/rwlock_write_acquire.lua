-- rwlock_write_acquire.lua: acquire (or re-enter) the write side of a
-- Redisson RReadWriteLock (RedissonWriteLock.tryLockInnerAsync), with
-- explicit integer returns. A read holder asking for the write lock is
-- refused like any other owner (no upgrade).
-- KEYS[1]: the lock hash <name>
-- ARGV[1]: lease in ms (a reentry adds it to the remaining TTL, as Redisson)
-- ARGV[2]: this owner's write field <clientId>:<owner>:write
-- Returns {1, holdCount} when granted (first hold or reentry),
--         {0, pttl} when held by others or in read mode (pttl -1: no expiry).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'write')
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, 1}
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  local currentExpire = redis.call('pttl', KEYS[1])
  redis.call('pexpire', KEYS[1], currentExpire + ARGV[1])
  return {1, count}
end
return {0, redis.call('pttl', KEYS[1])}
