-- fair_acquirefailed.lua: remove a waiter that gives up from a Redisson
-- RFairLock's queue (RedissonFairLock.acquireFailedAsync). Idempotent: a
-- caller that is not queued changes nothing.
-- KEYS[1]: the wait queue redisson_lock_queue:{<name>}
-- KEYS[2]: the deadlines redisson_lock_timeout:{<name>}
-- ARGV[1]: owner field <clientId>:<owner>
-- ARGV[2]: the caller's wait in ms; every waiter behind it moves that much
--          earlier
-- Returns the number of queue entries removed (0 or 1; Redisson returns nil).
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
return redis.call('lrem', KEYS[1], 0, ARGV[1])
