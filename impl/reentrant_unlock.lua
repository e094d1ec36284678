-- reentrant_unlock.lua: release one hold of a Redisson RLock, idempotently.
-- Redisson's RedissonLock.unlockInnerAsync (with the unlock latch), with an
-- explicit integer instead of nil for "not owner", and one HGET in place of
-- HEXISTS + HINCRBY on the final unlock (same effect, one command fewer).
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the unlock channel redisson_lock__channel:{<name>}
-- KEYS[3]: this call's latch redisson_unlock_latch:{<name>}:<requestId>
-- ARGV[1]: the unlock message, 0 (LockPubSub.UNLOCK_MESSAGE)
-- ARGV[2]: lease in ms to re-arm on a partial unlock
-- ARGV[3]: owner field <clientId>:<owner>
-- ARGV[4]: the publish command, PUBLISH (or SPUBLISH)
-- ARGV[5]: latch TTL in ms
-- Returns 1 released (key deleted, message published), 0 still held
-- (one hold fewer, lease re-armed), -1 this owner holds nothing. A call that
-- repeats a request id returns the first call's 0/1 from the latch.
local val = redis.call('get', KEYS[3])
if val ~= false then
  return tonumber(val)
end
local count = redis.call('hget', KEYS[1], ARGV[3])
if count == false then
  return -1
end
if tonumber(count) > 1 then
  redis.call('hincrby', KEYS[1], ARGV[3], -1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('set', KEYS[3], 0, 'px', ARGV[5])
  return 0
end
redis.call('del', KEYS[1])
redis.call(ARGV[4], KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
