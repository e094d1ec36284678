-- latch_no_publish.lua: MUTANT of latch_countdown.lua. The count reaches
-- 0 and the latch opens, but nothing is published: waiters sleep on an
-- open latch until they poll.
-- KEYS[1]: the latch <name>
-- KEYS[2]: its channel (unused: the flaw)
-- ARGV[1]: the zero-count message (unused)
-- ARGV[2]: the publish command (unused)
-- Returns the count after the decrement.
local v = redis.call('decr', KEYS[1]);
if v <= 0 then redis.call('del', KEYS[1]) end;
return v;
