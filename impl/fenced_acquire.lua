-- fenced_acquire.lua: acquire (or re-enter) a Redisson RFencedLock.
-- RLock's acquire plus INCR of the token counter in the same script, so every
-- grant, reentrant ones included, gets a strictly larger token
-- (RedissonFencedLock). The token key has no TTL; unlock never touches it.
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the token counter redisson_lock_token:{<name>}
-- ARGV[1]: lease in ms
-- ARGV[2]: owner field <clientId>:<owner>
-- Returns {1, holdCount, token} when granted,
--         {0, pttl, -1} when another owner holds it (pttl -1: no expiry).
if (redis.call('exists', KEYS[1]) == 0)
    or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  local token = redis.call('incr', KEYS[2])
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, count, token}
end
return {0, redis.call('pttl', KEYS[1]), -1}
