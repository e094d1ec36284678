-- fair_forceunlock.lua: delete a Redisson RFairLock whoever holds it and
-- wake the head waiter (RedissonFairLock.forceUnlockAsync). The queue and
-- its deadlines stay (stale heads are purged first).
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the wait queue redisson_lock_queue:{<name>}
-- KEYS[3]: the deadlines redisson_lock_timeout:{<name>}
-- KEYS[4]: the channel prefix redisson_lock__channel:{<name>}
-- ARGV[1]: the unlock message, 0
-- ARGV[2]: the caller's clock, epoch ms
-- ARGV[3]: the publish command, PUBLISH (or SPUBLISH)
-- Returns 1 when the lock existed (deleted, head woken), else 0 (the head
-- is woken all the same when a stale head was purged).
local purged = false
while true do
  local first = redis.call('lindex', KEYS[2], 0)
  if first == false then
    break
  end
  local deadline = redis.call('zscore', KEYS[3], first)
  if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[2]) then
    redis.call('zrem', KEYS[3], first)
    redis.call('lpop', KEYS[2])
    purged = true
  else
    break
  end
end
local deleted = redis.call('del', KEYS[1])
if deleted == 1 or purged then
  local head = redis.call('lindex', KEYS[2], 0)
  if head ~= false then
    redis.call(ARGV[3], KEYS[4] .. ':' .. head, ARGV[1])
  end
end
return deleted
