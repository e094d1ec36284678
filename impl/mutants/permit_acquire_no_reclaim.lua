-- permit_acquire_no_reclaim.lua: MUTANT of permit_tryacquire.lua. Expired
-- permits are never returned to the pool: a permit whose holder died
-- without releasing it is lost, and acquirers are refused with permits
-- whose leases ran out.
-- KEYS[1]: the semaphore <name>
-- KEYS[2]: its leases {<name>}:timeout
-- KEYS[3]: its channel redisson_sc:{<name>} (unused)
-- ARGV[1]: permits to take
-- ARGV[2]: the lease's end in epoch ms (or ARGV[4])
-- ARGV[3]: now, epoch ms (unused: the flaw)
-- ARGV[4]: the no-expiry score 922337203685477
-- ARGV[5]: the publish command (unused)
-- ARGV[6..]: the new permits' ids
-- Returns 'OK' when taken; ':<score>' (the nearest lease's end) when not
--         and some permit expires; nil when not and none expires.
local value = redis.call('get', KEYS[1]);
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then
  redis.call('decrby', KEYS[1], ARGV[1]);
  for i = 6, #ARGV, 1 do
    redis.call('zadd', KEYS[2], ARGV[2], ARGV[i]);
  end;
  return 'OK';
end;
local v = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES');
if v[1] ~= nil and v[2] ~= ARGV[4] then
  return ':' .. tostring(v[2]);
end
return nil;
