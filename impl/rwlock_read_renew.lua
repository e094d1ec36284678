-- rwlock_read_renew.lua: the watchdog's owner-checked renewal of one owner's
-- read holds (Redisson's ReadLockTask, for one lock and one owner): every
-- hold's timeout key and the hash are PEXPIREd to the watchdog timeout.
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the timeout key prefix of every owner, {<name>}
-- ARGV[1]: watchdog timeout in ms
-- ARGV[2]: this owner's read field <clientId>:<owner>
-- Returns 1 renewed, 0 this owner holds no read hold (renewal must stop).
local counter = redis.call('hget', KEYS[1], ARGV[2])
if counter == false then
  return 0
end
for c = tonumber(counter), 1, -1 do
  redis.call('pexpire', KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:' .. c, ARGV[1])
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
