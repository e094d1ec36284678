-- semaphore_trysetpermits.lua: set a Redisson RSemaphore's permits once.
-- Redisson's RedissonSemaphore.trySetPermitsAsync (and
-- RedissonPermitExpirableSemaphore's), unchanged.
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>}
-- ARGV[1]: permits
-- ARGV[2]: the publish command (PUBLISH)
-- Returns 1 when the semaphore was unset and is now set to ARGV[1]
--         (published), 0 when it was already set (nothing changed).
local value = redis.call('get', KEYS[1]);
if (value == false) then
  redis.call('set', KEYS[1], ARGV[1]);
  redis.call(ARGV[2], KEYS[2], ARGV[1]);
  return 1;
end;
return 0;
