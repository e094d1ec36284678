-- reentrant_renew.lua: the watchdog's owner-checked renewal of a Redisson
-- RLock (RedissonBaseLock.renewExpirationAsync).
-- KEYS[1]: the lock hash <name>
-- ARGV[1]: watchdog timeout in ms (PEXPIRE)
-- ARGV[2]: owner field <clientId>:<owner>
-- Returns 1 renewed, 0 this owner holds nothing (renewal must stop).
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 1
end
return 0
