package impl

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// Lua scripts of the read-write lock (RReadWriteLock). Each file's header
// names its KEYS, ARGV and return values. The write side renews with
// reentrant_renew.lua (Redisson renews it as an RLock, on its write field).
var (
	//go:embed rwlock_read_acquire.lua
	rwReadAcquireSrc string
	//go:embed rwlock_read_unlock.lua
	rwReadUnlockSrc string
	//go:embed rwlock_read_renew.lua
	rwReadRenewSrc string
	//go:embed rwlock_write_acquire.lua
	rwWriteAcquireSrc string
	//go:embed rwlock_write_unlock.lua
	rwWriteUnlockSrc string
	//go:embed rwlock_forceunlock.lua
	rwForceUnlockSrc string

	rwReadAcquire  = redis.NewScript(rwReadAcquireSrc)
	rwReadUnlock   = redis.NewScript(rwReadUnlockSrc)
	rwReadRenew    = redis.NewScript(rwReadRenewSrc)
	rwWriteAcquire = redis.NewScript(rwWriteAcquireSrc)
	rwWriteUnlock  = redis.NewScript(rwWriteUnlockSrc)
	rwForceUnlock  = redis.NewScript(rwForceUnlockSrc)
)

// Messages on the read-write lock's channel (LockPubSub): a read unlock
// publishes UNLOCK_MESSAGE, a write unlock READ_UNLOCK_MESSAGE (Redisson
// wakes one waiter per client on the first, all on the second; the hub
// wakes every waiter on either).
const (
	rwReadUnlockMessage  = "0"
	rwWriteUnlockMessage = "1"
)
