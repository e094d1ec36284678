-- fair_unlock.lua: release one hold of a Redisson RFairLock, idempotently
-- (RedissonFairLock.unlockInnerAsync with the unlock latch), with explicit
-- integers instead of nil and one HGET in place of HEXISTS + HINCRBY on
-- the final unlock.
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the wait queue redisson_lock_queue:{<name>}
-- KEYS[3]: the deadlines redisson_lock_timeout:{<name>}
-- KEYS[4]: the channel prefix redisson_lock__channel:{<name>}; the head
--          waiter is woken on KEYS[4] .. ':' .. <its owner field>
-- KEYS[5]: this call's latch redisson_unlock_latch:{<name>}:<requestId>
-- ARGV[1]: the unlock message, 0
-- ARGV[2]: lease in ms to re-arm on a partial unlock
-- ARGV[3]: owner field <clientId>:<owner>
-- ARGV[4]: the caller's clock, epoch ms
-- ARGV[5]: the publish command, PUBLISH (or SPUBLISH)
-- ARGV[6]: latch TTL in ms
-- Returns 1 released (key deleted, head woken), 0 still held (one hold
-- fewer, lease re-armed), -1 another owner holds the lock (Redisson: nil),
-- 2 nobody holds it (Redisson answers 1 here; the head is woken all the
-- same). A call that repeats a request id returns the first call's answer
-- from the latch.
local val = redis.call('get', KEYS[5])
if val ~= false then
  return tonumber(val)
end
while true do
  local first = redis.call('lindex', KEYS[2], 0)
  if first == false then
    break
  end
  local deadline = redis.call('zscore', KEYS[3], first)
  if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
    redis.call('zrem', KEYS[3], first)
    redis.call('lpop', KEYS[2])
  else
    break
  end
end
if redis.call('exists', KEYS[1]) == 0 then
  local head = redis.call('lindex', KEYS[2], 0)
  if head ~= false then
    redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
  end
  redis.call('set', KEYS[5], 2, 'px', ARGV[6])
  return 2
end
local count = redis.call('hget', KEYS[1], ARGV[3])
if count == false then
  return -1
end
if tonumber(count) > 1 then
  redis.call('hincrby', KEYS[1], ARGV[3], -1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('set', KEYS[5], 0, 'px', ARGV[6])
  return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[6])
local head = redis.call('lindex', KEYS[2], 0)
if head ~= false then
  redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
end
return 1
