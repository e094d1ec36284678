-- rwlock_forceunlock.lua: delete a Redisson RReadWriteLock whoever holds it,
-- if it is in the given mode (RedissonReadLock / RedissonWriteLock
-- forceUnlockAsync).
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the channel redisson_rwlock:{<name>}
-- ARGV[1]: the message: 0 for the read side, 1 for the write side
-- ARGV[2]: the publish command, PUBLISH (or SPUBLISH)
-- ARGV[3]: the mode the lock must be in, read or write
-- Returns 1 when the lock was in that mode (deleted, message published), else 0.
if redis.call('hget', KEYS[1], 'mode') == ARGV[3] then
  redis.call('del', KEYS[1])
  redis.call(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
