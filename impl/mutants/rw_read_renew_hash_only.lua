-- rw_read_renew_hash_only.lua: mutant-rw-read-timeouts-not-renewed's read
-- renewal: the hash is renewed, the owner's per-hold timeout keys are not
-- (rwlock_read_renew.lua without its loop). A read unlock then re-arms the
-- hash from expired timeout keys and deletes it while other readers hold.
-- KEYS[1]: the lock hash <name>
-- KEYS[2]: the timeout key prefix of every owner, {<name>}
-- ARGV[1]: watchdog timeout in ms
-- ARGV[2]: this owner's read field <clientId>:<owner>
-- Returns 1 renewed, 0 this owner holds no read hold.
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  return 0
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
