-- unlock_del.lua: MUTANT. Release without an owner check: deletes the lock
-- whoever holds it and publishes the wake-up.
-- KEYS[1] = lock key, KEYS[2] = unlock channel
-- ARGV[1] = lease in ms (unused), ARGV[2] = owner field (unused)
-- Returns 1 (always "freed").
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], '0')
return 1
