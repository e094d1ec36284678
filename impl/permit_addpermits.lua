-- permit_addpermits.lua: change a Redisson RPermitExpirableSemaphore's
-- permits by n. Redisson's RedissonPermitExpirableSemaphore.addPermitsAsync,
-- unchanged (it publishes n, not the new count, and only when n > 0).
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>}
-- ARGV[1]: n, the change in permits
-- ARGV[2]: the publish command (PUBLISH)
-- Returns nothing.
local value = redis.call('get', KEYS[1]);
if (value == false) then
  value = 0;
end;
redis.call('set', KEYS[1], tonumber(value) + tonumber(ARGV[1]));
if tonumber(ARGV[1]) > 0 then
  redis.call(ARGV[2], KEYS[2], ARGV[1]);
end;
