-- rw_read_unlock_missing_ok.lua: mutant-rw-late-read-unlock-ok's read
-- unlock: rwlock_read_unlock.lua, except that on a missing lock (no mode
-- field: the hash expired or was never there) it answers 1, released, as
-- Redisson's read unlock once did, so a late unlock reports success.
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the channel redisson_rwlock:{<name>}
-- KEYS[3]: this owner's timeout prefix {<name>}:<clientId>:<owner>:rwlock_timeout
-- KEYS[4]: the timeout key prefix of every owner, {<name>}
-- KEYS[5]: this call's latch redisson_unlock_latch:{<name>}:<requestId>
-- ARGV[1]: the unlock message, 0 (LockPubSub.UNLOCK_MESSAGE)
-- ARGV[2]: this owner's read field <clientId>:<owner>
-- ARGV[3]: the publish command, PUBLISH (or SPUBLISH)
-- ARGV[4]: latch TTL in ms
-- Returns 1 this owner's last read hold released, 0 one of several released,
-- -1 this owner holds no read hold (Redisson's nil). A call that repeats a
-- request id returns the first call's answer from the latch.
local val = redis.call('get', KEYS[5])
if val ~= false then
  return tonumber(val)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call(ARGV[3], KEYS[2], ARGV[1])
  redis.call('set', KEYS[5], 1, 'px', ARGV[4])
  return 1
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  return -1
end
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1)
local mine = 0
if counter == 0 then
  redis.call('hdel', KEYS[1], ARGV[2])
  mine = 1
end
redis.call('del', KEYS[3] .. ':' .. (counter + 1))
if redis.call('hlen', KEYS[1]) > 1 then
  local maxRemainTime = -3
  for _, key in ipairs(redis.call('hkeys', KEYS[1])) do
    local n = tonumber(redis.call('hget', KEYS[1], key))
    if type(n) == 'number' then
      for i = n, 1, -1 do
        local remainTime = redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i)
        maxRemainTime = math.max(remainTime, maxRemainTime)
      end
    end
  end
  if maxRemainTime > 0 then
    redis.call('pexpire', KEYS[1], maxRemainTime)
    redis.call('set', KEYS[5], mine, 'px', ARGV[4])
    return mine
  end
  if mode == 'write' then
    redis.call('set', KEYS[5], mine, 'px', ARGV[4])
    return mine
  end
end
redis.call('del', KEYS[1])
redis.call(ARGV[3], KEYS[2], ARGV[1])
redis.call('set', KEYS[5], mine, 'px', ARGV[4])
return mine
