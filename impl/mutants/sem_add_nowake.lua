-- sem_add_nowake.lua: MUTANT of semaphore_addpermits.lua. addPermits
-- changes the permits but publishes nothing, so waiters sleep on permits
-- that are there ("waiters not woken by addPermits").
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>} (unused: the flaw)
-- ARGV[1]: n, the change in permits
-- ARGV[2]: the publish command (unused)
-- Returns nothing.
local value = redis.call('get', KEYS[1]);
if (value == false) then
  value = 0;
end;
redis.call('set', KEYS[1], value + ARGV[1]);
