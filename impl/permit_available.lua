-- permit_available.lua: the available permits of a Redisson
-- RPermitExpirableSemaphore. Redisson's
-- RedissonPermitExpirableSemaphore.availablePermitsAsync, unchanged.
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its leases {<name>}:timeout
-- KEYS[3]: its channel redisson_sc:{<name>}
-- ARGV[1]: now, epoch ms of the client's clock
-- ARGV[2]: the publish command (PUBLISH)
-- First returns the expired permits to the pool (publishing the count).
-- Returns the available permits (0 when unset).
local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1);
if #expiredIds > 0 then
  redis.call('zrem', KEYS[2], unpack(expiredIds));
  local value = redis.call('incrby', KEYS[1], #expiredIds);
  if tonumber(value) > 0 then
    redis.call(ARGV[2], KEYS[3], value);
  end;
  return value;
end;
local ret = redis.call('get', KEYS[1]);
return ret == false and 0 or ret;
