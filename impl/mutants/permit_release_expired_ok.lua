-- permit_release_expired_ok.lua: MUTANT of permit_release.lua. The lease
-- is not checked: releasing a permit whose lease ran out reports success
-- ("an expired permit's release reported success"), so its owner believes
-- it held the permit all along while another may have taken it.
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its channel redisson_sc:{<name>}
-- KEYS[3]: its leases {<name>}:timeout
-- ARGV[1]: the permit id (16 raw bytes)
-- ARGV[2]: permits it counts for (1)
-- ARGV[3]: now, epoch ms (unused: the flaw)
-- ARGV[4]: the publish command (PUBLISH)
-- Returns 1 when the id was in the lease set, 0 when not.
local removed = redis.call('zrem', KEYS[3], ARGV[1]);
if tonumber(removed) ~= 1 then
  return 0;
end;
local value = redis.call('incrby', KEYS[1], ARGV[2]);
redis.call(ARGV[4], KEYS[2], value);
return 1;
