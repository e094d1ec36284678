-- latch_countdown.lua: count a Redisson RCountDownLatch down by one.
-- Redisson's RedissonCountDownLatch.countDownAsync with an explicit return.
-- KEYS[1]: the latch <name>
-- KEYS[2]: its channel redisson_countdownlatch__channel__{<name>}
-- ARGV[1]: the zero-count message (0)
-- ARGV[2]: the publish command (PUBLISH)
-- Deletes the latch at 0 or below (an unset latch counts down to -1 and is
-- deleted: a no-op) and publishes ARGV[1] when it reaches exactly 0.
-- Returns the count after the decrement.
local v = redis.call('decr', KEYS[1]);
if v <= 0 then redis.call('del', KEYS[1]) end;
if v == 0 then redis.call(ARGV[2], KEYS[2], ARGV[1]) end;
return v;
