-- fair_acquirefailed.lua: remove a waiter that gives up from a Redisson
-- RFairLock's queue (RedissonFairLock.acquireFailedAsync), and pass on a
-- wake-up it may have taken with it. Idempotent: a caller that is not
-- queued changes nothing but the wake-up.
-- KEYS[1]: the wait queue redisson_lock_queue:{<name>}
-- KEYS[2]: the deadlines redisson_lock_timeout:{<name>}
-- KEYS[3]: the lock hash <name>
-- KEYS[4]: the channel prefix redisson_lock__channel:{<name>}; the head
--          waiter is woken on KEYS[4] .. ':' .. <its owner field>
-- ARGV[1]: owner field <clientId>:<owner>
-- ARGV[2]: the caller's wait in ms; every waiter behind it moves that much
--          earlier
-- ARGV[3]: the unlock message, 0
-- ARGV[4]: the publish command, PUBLISH (or SPUBLISH)
-- Returns the number of queue entries removed (0 or 1; Redisson returns nil).
--
-- Beyond Redisson: when the lock is free and a waiter is at the head, the
-- head is woken. An unlock wakes only the head; if that head is the caller,
-- giving up after the message was sent, nobody else would hear of the free
-- lock before its TTL-bounded sleep ended (a whole lease with the watchdog).
local queue = redis.call('lrange', KEYS[1], 0, -1)
local i = 1
while i <= #queue and queue[i] ~= ARGV[1] do
  i = i + 1
end
i = i + 1
while i <= #queue do
  redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i])
  i = i + 1
end
redis.call('zrem', KEYS[2], ARGV[1])
local removed = redis.call('lrem', KEYS[1], 0, ARGV[1])
if redis.call('exists', KEYS[3]) == 0 then
  local head = redis.call('lindex', KEYS[1], 0)
  if head ~= false then
    redis.call(ARGV[4], KEYS[4] .. ':' .. head, ARGV[3])
  end
end
return removed
