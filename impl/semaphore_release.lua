-- semaphore_release.lua: give permits back to a Redisson RSemaphore.
-- Redisson's RedissonSemaphore.releaseAsync, unchanged: no owner is checked,
-- any client may release (java.util.concurrent.Semaphore's contract).
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>}
-- ARGV[1]: permits to give back (> 0)
-- ARGV[2]: the publish command (PUBLISH)
-- Returns nothing; publishes the new number of available permits.
local value = redis.call('incrby', KEYS[1], ARGV[1]);
redis.call(ARGV[2], KEYS[2], value);
