-- sem_acquire_any.lua: MUTANT of semaphore_tryacquire.lua. The check
-- compares the available permits with 1, not with the permits asked
-- for, so acquire(n) takes n permits whenever one is there and the count
-- goes negative: more permits held than the total.
-- KEYS[1]: the semaphore <name>
-- ARGV[1]: permits to take (> 0)
-- Returns 1 when taken, 0 when none is available.
local value = redis.call('get', KEYS[1]);
if (value ~= false and tonumber(value) >= 1) then
  redis.call('decrby', KEYS[1], ARGV[1]);
  return 1;
end;
return 0;
