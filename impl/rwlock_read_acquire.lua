-- rwlock_read_acquire.lua: acquire (or re-enter) the read side of a Redisson
-- RReadWriteLock (RedissonReadLock.tryLockInnerAsync), with explicit integer
-- returns. Every read hold has a timeout key of its own,
-- <KEYS[2]>:<n> for the owner's n-th hold, which the unlock script reads to
-- re-arm the hash to the longest lease still held.
-- KEYS[1]: the lock hash <name> (field mode = read|write, one field per holder)
-- KEYS[2]: this owner's timeout prefix {<name>}:<clientId>:<owner>:rwlock_timeout
-- ARGV[1]: lease in ms
-- ARGV[2]: this owner's read field <clientId>:<owner>
-- ARGV[3]: this owner's write field <clientId>:<owner>:write (a write holder
--          may take the read lock: downgrade)
-- Returns {1, holdCount} when granted (first, shared or reentrant read hold),
--         {0, pttl} when another owner holds the write lock (pttl -1: no expiry).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'read')
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':1', 1)
  redis.call('pexpire', KEYS[2] .. ':1', ARGV[1])
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, 1}
end
if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
  local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  local key = KEYS[2] .. ':' .. ind
  redis.call('set', key, 1)
  redis.call('pexpire', key, ARGV[1])
  local remainTime = redis.call('pttl', KEYS[1])
  redis.call('pexpire', KEYS[1], math.max(remainTime, tonumber(ARGV[1])))
  return {1, ind}
end
return {0, redis.call('pttl', KEYS[1])}
