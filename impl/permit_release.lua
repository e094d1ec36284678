-- permit_release.lua: release one permit of a Redisson
-- RPermitExpirableSemaphore by id. Redisson's
-- RedissonPermitExpirableSemaphore.tryReleaseAsync(permitId), unchanged.
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>}
-- KEYS[3]: its leases {<name>}:timeout
-- ARGV[1]: the permit id (16 raw bytes)
-- ARGV[2]: permits it counts for (1)
-- ARGV[3]: now, epoch ms of the client's clock
-- ARGV[4]: the publish command (PUBLISH)
-- Returns 1 when the permit was held and its lease had not run out;
--         0 when it was unknown (already released or returned), or its
--         lease had run out (then it goes back to the pool all the same).
local expire = redis.call('zscore', KEYS[3], ARGV[1]);
local removed = redis.call('zrem', KEYS[3], ARGV[1]);
if tonumber(removed) ~= 1 then
  return 0;
end;
local value = redis.call('incrby', KEYS[1], ARGV[2]);
redis.call(ARGV[4], KEYS[2], value);
if tonumber(expire) <= tonumber(ARGV[3]) then
  return 0;
end;
return 1;
