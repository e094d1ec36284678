-- permit_tryacquire.lua: take permits, with ids and a lease, of a Redisson
-- RPermitExpirableSemaphore. Redisson's
-- RedissonPermitExpirableSemaphore.tryAcquireAsync(ids, timeoutDate), unchanged.
-- KEYS[1]: the semaphore <name> (a string: the available permits)
-- KEYS[2]: its leases {<name>}:timeout (a ZSET: permit id bytes scored by
--          the epoch ms its lease ends, ARGV[4] for no expiry)
-- KEYS[3]: its channel redisson_sc:{<name>}
-- ARGV[1]: permits to take (the number of ids)
-- ARGV[2]: the lease's end in epoch ms of the client's clock (or ARGV[4])
-- ARGV[3]: now, epoch ms of the client's clock
-- ARGV[4]: the no-expiry score 922337203685477
-- ARGV[5]: the publish command (PUBLISH)
-- ARGV[6..]: the new permits' ids (16 raw bytes each)
-- First returns the expired permits to the pool (publishing the count).
-- Returns 'OK' when taken; ':<score>' (the nearest lease's end) when not
--         and some permit expires; nil when not and none expires.
local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, ARGV[1]);
if #expiredIds > 0 then
  redis.call('zrem', KEYS[2], unpack(expiredIds));
  local value = redis.call('incrby', KEYS[1], #expiredIds);
  if tonumber(value) > 0 then
    redis.call(ARGV[5], KEYS[3], value);
  end;
end;
local value = redis.call('get', KEYS[1]);
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then
  redis.call('decrby', KEYS[1], ARGV[1]);
  for i = 6, #ARGV, 1 do
    redis.call('zadd', KEYS[2], ARGV[2], ARGV[i]);
  end;
  local ttl = redis.call('pttl', KEYS[1]);
  if ttl > 0 then
    redis.call('pexpire', KEYS[2], ttl);
  end;
  return 'OK';
end;
local v = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES');
if v[1] ~= nil and v[2] ~= ARGV[4] then
  return ':' .. tostring(v[2]);
end
return nil;
