-- semaphore_tryacquire.lua: take permits of a Redisson RSemaphore.
-- Redisson's RedissonSemaphore.tryAcquireAsync0, unchanged.
-- KEYS[1]: the semaphore <name> (a string: the available permits)
-- ARGV[1]: permits to take (> 0)
-- Returns 1 when taken (DECRBY), 0 when fewer are available or the
--         semaphore was never set (nothing changed).
local value = redis.call('get', KEYS[1]);
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then
  local val = redis.call('decrby', KEYS[1], ARGV[1]);
  return 1;
end;
return 0;
