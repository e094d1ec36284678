-- latch_early_open.lua: MUTANT of latch_countdown.lua. An off-by-one:
-- the latch is deleted (opened) when the count reaches 1, one countDown
-- early, so awaits return before every party counted down.
-- KEYS[1]: the latch <name>
-- KEYS[2]: its channel redisson_countdownlatch__channel__{<name>}
-- ARGV[1]: the zero-count message (0)
-- ARGV[2]: the publish command (PUBLISH)
-- Returns the count after the decrement.
local v = redis.call('decr', KEYS[1]);
if v <= 1 then redis.call('del', KEYS[1]) end;
if v == 1 then redis.call(ARGV[2], KEYS[2], ARGV[1]) end;
return v;
