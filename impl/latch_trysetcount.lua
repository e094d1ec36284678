-- latch_trysetcount.lua: set a Redisson RCountDownLatch's count once.
-- Redisson's RedissonCountDownLatch.trySetCountAsync, unchanged.
-- KEYS[1]: the latch <name> (a string: the count)
-- KEYS[2]: its channel redisson_countdownlatch__channel__{<name>}
-- ARGV[1]: the new-count message (1)
-- ARGV[2]: the count
-- ARGV[3]: the publish command (PUBLISH)
-- Returns 1 when the latch did not exist and now has the count, 0 when it
--         existed (nothing changed).
if redis.call('exists', KEYS[1]) == 0 then
  redis.call('set', KEYS[1], ARGV[2]);
  redis.call(ARGV[3], KEYS[2], ARGV[1]);
  return 1
else
  return 0
end
