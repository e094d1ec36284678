-- rwlock_write_unlock.lua: release one write hold of a Redisson
-- RReadWriteLock (RedissonWriteLock.unlockInnerAsync, with the unlock latch),
-- with explicit integers in place of Redisson's nil. On the final write
-- unlock the hash is deleted (and the read-unlock message, which wakes every
-- waiter, published) unless this owner still holds read holds taken while
-- writing: then the lock goes to read mode.
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the channel redisson_rwlock:{<name>}
-- KEYS[3]: this call's latch redisson_unlock_latch:{<name>}:<requestId>
-- ARGV[1]: the unlock message, 1 (LockPubSub.READ_UNLOCK_MESSAGE)
-- ARGV[2]: lease in ms to re-arm on a partial unlock
-- ARGV[3]: this owner's write field <clientId>:<owner>:write
-- ARGV[4]: the publish command, PUBLISH (or SPUBLISH)
-- ARGV[5]: latch TTL in ms
-- Returns 1 this owner's last write hold released, 0 one of several
-- released, -1 this owner holds no write hold. A call that repeats a request
-- id returns the first call's answer from the latch.
local val = redis.call('get', KEYS[3])
if val ~= false then
  return tonumber(val)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call(ARGV[4], KEYS[2], ARGV[1])
  redis.call('set', KEYS[3], -1, 'px', ARGV[5])
  return -1
end
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return -1
end
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if counter > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('set', KEYS[3], 0, 'px', ARGV[5])
  return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('hlen', KEYS[1]) == 1 then
  redis.call('del', KEYS[1])
  redis.call(ARGV[4], KEYS[2], ARGV[1])
else
  redis.call('hset', KEYS[1], 'mode', 'read')
end
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
