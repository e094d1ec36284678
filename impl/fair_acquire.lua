-- fair_acquire.lua: acquire, re-enter or queue for a Redisson RFairLock; the
-- waiting variant of RedissonFairLock.tryLockInnerAsync (EVAL_LONG, used by
-- lock() and tryLock(wait, ...)), with explicit integer returns.
-- Beware: ARGV[3] and ARGV[4] are swapped relative to fair_tryacquire.lua,
-- exactly as in Redisson (reference/redisson-locks.md §2.3).
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the wait queue redisson_lock_queue:{<name>} (LIST of owner fields)
-- KEYS[3]: the deadlines redisson_lock_timeout:{<name>} (ZSET, epoch ms)
-- KEYS[4]: the channel prefix redisson_lock__channel:{<name>}; a waiter is
--          woken on KEYS[4] .. ':' .. <its owner field>
-- ARGV[1]: lease in ms
-- ARGV[2]: owner field <clientId>:<owner>
-- ARGV[3]: wait in ms (threadWaitTime, or the TryLock wait)
-- ARGV[4]: the caller's clock, epoch ms
-- ARGV[5]: the wake-up message, 0
-- ARGV[6]: the publish command, PUBLISH (or SPUBLISH)
-- Returns {1, holdCount} when granted (first hold or reentry), else
--         {0, ttl, pttl, fresh}: ttl is Redisson's return value (the wait
--         ahead in the queue, or max(0, pttl) for a waiter already queued),
--         pttl the lock's PTTL (-2: no lock, -1: no expiry), fresh 1 when
--         this call put the caller in the queue. After a {0, ...} reply the
--         caller is always in the queue.

-- Purge waiters at the head whose deadline has passed.
local purged = false
while true do
  local first = redis.call('lindex', KEYS[2], 0)
  if first == false then
    break
  end
  local deadline = redis.call('zscore', KEYS[3], first)
  if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
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

-- Grant: the lock is free and nobody, or the caller, is at the head. Every
-- remaining waiter's deadline moves by the same amount (their spacing, each
-- one's wait, stays): Redisson moves them ARGV[3] earlier (no timeout
-- drift), which anchors the new head's deadline at the start of the busy
-- period; beyond Redisson, never so far that the new head keeps less than
-- its wait after this hold's lease (deadline >= now + lease + its wait, as
-- if it had queued just now), or a long busy period evicts live waiters.
if (redis.call('exists', KEYS[1]) == 0)
    and ((redis.call('exists', KEYS[2]) == 0)
      or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then
  -- One ZRANGE WITHSCORES reads the caller's deadline and the others'
  -- (no extra command on the uncontended path).
  local all = redis.call('zrange', KEYS[3], 0, -1, 'withscores')
  local shift = -tonumber(ARGV[3])
  for i = 1, #all, 2 do
    if all[i] == ARGV[2] then
      shift = math.max(shift, tonumber(ARGV[4]) + tonumber(ARGV[1]) - tonumber(all[i + 1]))
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

-- Reentry.
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, count}
end

local pttl = redis.call('pttl', KEYS[1])

-- Already queued: the deadline is not refreshed.
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
  return {0, math.max(0, pttl), pttl, 0}
end

-- Enqueue behind the tail: deadline = tail's deadline (or now + the lock's
-- PTTL when the queue is empty) + wait.
local last = redis.call('lindex', KEYS[2], -1)
local ttl
if last ~= false and last ~= ARGV[2] and redis.call('zscore', KEYS[3], last) ~= false then
  ttl = tonumber(redis.call('zscore', KEYS[3], last)) - tonumber(ARGV[4])
else
  ttl = pttl
end
local deadline = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4])
local fresh = 0
if redis.call('zadd', KEYS[3], deadline, ARGV[2]) == 1 then
  redis.call('rpush', KEYS[2], ARGV[2])
  fresh = 1
end
return {0, ttl, pttl, fresh}
