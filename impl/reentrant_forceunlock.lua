-- reentrant_forceunlock.lua: delete a Redisson RLock whoever holds it
-- (RedissonLock.forceUnlockAsync).
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the unlock channel redisson_lock__channel:{<name>}
-- ARGV[1]: the unlock message, 0
-- ARGV[2]: the publish command, PUBLISH (or SPUBLISH)
-- Returns 1 when the lock existed (deleted, message published), else 0.
if redis.call('del', KEYS[1]) == 1 then
  redis.call(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
