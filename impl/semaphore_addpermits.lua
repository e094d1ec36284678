-- semaphore_addpermits.lua: change a Redisson RSemaphore's permits by n.
-- Redisson's RedissonSemaphore.addPermitsAsync, unchanged (n may be < 0).
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>}
-- ARGV[1]: n, the change in permits
-- ARGV[2]: the publish command (PUBLISH)
-- Returns nothing; publishes the new number of available permits.
local value = redis.call('get', KEYS[1]);
if (value == false) then
  value = 0;
end;
redis.call('set', KEYS[1], value + ARGV[1]);
redis.call(ARGV[2], KEYS[2], value + ARGV[1]);
