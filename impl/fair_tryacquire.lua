-- fair_tryacquire.lua: one attempt at a Redisson RFairLock that never
-- queues; the zero-wait variant of RedissonFairLock.tryLockInnerAsync
-- (EVAL_NULL_BOOLEAN, used by tryLock()), with explicit integer returns.
-- Beware: ARGV[3] and ARGV[4] are swapped relative to fair_acquire.lua,
-- exactly as in Redisson (reference/redisson-locks.md §2.3).
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the wait queue redisson_lock_queue:{<name>}
-- KEYS[3]: the deadlines redisson_lock_timeout:{<name>}
-- KEYS[4]: the channel prefix redisson_lock__channel:{<name>}; a waiter is
--          woken on KEYS[4] .. ':' .. <its owner field>
-- ARGV[1]: lease in ms
-- ARGV[2]: owner field <clientId>:<owner>
-- ARGV[3]: the caller's clock, epoch ms
-- ARGV[4]: wait in ms (subtracted from the remaining deadlines on a grant)
-- ARGV[5]: the wake-up message, 0
-- ARGV[6]: the publish command, PUBLISH (or SPUBLISH)
-- Returns {1, holdCount} when granted (first hold or reentry), else
--         {0, pttl} (the lock's PTTL; -2 when the lock is free but others
--         queue ahead). It never adds the caller to the queue.
local purged = false
while true do
  local first = redis.call('lindex', KEYS[2], 0)
  if first == false then
    break
  end
  local deadline = redis.call('zscore', KEYS[3], first)
  if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[3]) then
    redis.call('zrem', KEYS[3], first)
    redis.call('lpop', KEYS[2])
    purged = true
  else
    break
  end
end

-- A purged head may have taken an unlock's wake-up with it: when the lock
-- is free, wake the new head (unless it is the caller, who goes on here).
if purged and redis.call('exists', KEYS[1]) == 0 then
  local head = redis.call('lindex', KEYS[2], 0)
  if head ~= false and head ~= ARGV[2] then
    redis.call(ARGV[6], KEYS[4] .. ':' .. head, ARGV[5])
  end
end

-- Grant: as in fair_acquire.lua, the remaining deadlines move ARGV[4]
-- earlier (Redisson), but never so far that the new head keeps less than
-- its wait after this hold's lease.
if (redis.call('exists', KEYS[1]) == 0)
    and ((redis.call('exists', KEYS[2]) == 0)
      or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then
  -- One ZRANGE WITHSCORES reads the caller's deadline and the others'
  -- (no extra command on the uncontended path).
  local all = redis.call('zrange', KEYS[3], 0, -1, 'withscores')
  local shift = -tonumber(ARGV[4])
  for i = 1, #all, 2 do
    if all[i] == ARGV[2] then
      shift = math.max(shift, tonumber(ARGV[3]) + tonumber(ARGV[1]) - tonumber(all[i + 1]))
    end
  end
  redis.call('lpop', KEYS[2])
  redis.call('zrem', KEYS[3], ARGV[2])
  for i = 1, #all, 2 do
    if all[i] ~= ARGV[2] then
      redis.call('zincrby', KEYS[3], shift, all[i])
    end
  end
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, 1}
end

if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, count}
end
return {0, redis.call('pttl', KEYS[1])}
