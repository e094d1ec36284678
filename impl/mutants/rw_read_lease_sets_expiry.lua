-- rw_read_lease_sets_expiry.lua: impl/rwlock_read_acquire.lua with Redisson
-- 3.11.0's bug put back (#2144, fixed in 3.11.1: "readLock doesn't take in
-- account expiration date of the last acquired read lock"): a shared or
-- reentrant read hold sets the lock hash's expiry to its own lease, even
-- when another reader holds it for longer. Every read hold has a timeout key of its own,
-- <KEYS[2]>:<n> for the owner's n-th hold, which the unlock script reads to
-- re-arm the hash to the longest lease still held.
-- KEYS[1]: the lock hash <name> (field mode = read|write, one field per holder)
-- KEYS[2]: this owner's timeout prefix {<name>}:<clientId>:<owner>:rwlock_timeout
-- ARGV[1]: lease in ms
-- ARGV[2]: this owner's read field <clientId>:<owner>
-- ARGV[3]: this owner's write field <clientId>:<owner>:write (a write holder
--          may take the read lock: downgrade)
-- Returns {1, holdCount} when granted (first, shared or reentrant read hold),
--         {0, pttl} when another owner holds the write lock (pttl -1: no expiry).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'read')
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':1', 1)
  redis.call('pexpire', KEYS[2] .. ':1', ARGV[1])
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, 1}
end
if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
  local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  local key = KEYS[2] .. ':' .. ind
  redis.call('set', key, 1)
  redis.call('pexpire', key, ARGV[1])
  redis.call('pexpire', KEYS[1], ARGV[1]) -- the bug: the latest reader's lease, however short
  return {1, ind}
end
return {0, redis.call('pttl', KEYS[1])}
