-- sem_release_twice.lua: MUTANT of semaphore_release.lua. A release is
-- applied twice, as a client that re-sends a release whose reply it lost
-- would do (a retried INCRBY): the semaphore ends with more permits than
-- its total ("release adds permits beyond the total").
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>}
-- ARGV[1]: permits to give back (> 0)
-- ARGV[2]: the publish command (PUBLISH)
-- Returns nothing; publishes the new number of available permits.
redis.call('incrby', KEYS[1], ARGV[1]);
local value = redis.call('incrby', KEYS[1], ARGV[1]);
redis.call(ARGV[2], KEYS[2], value);
