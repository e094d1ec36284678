package impl

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// Lua scripts of the reentrant, fenced and fair locks. Each file's header names its
// KEYS, ARGV and return values.
var (
	//go:embed reentrant_acquire.lua
	reentrantAcquireSrc string
	//go:embed fenced_acquire.lua
	fencedAcquireSrc string
	//go:embed reentrant_unlock.lua
	reentrantUnlockSrc string
	//go:embed reentrant_renew.lua
	reentrantRenewSrc string
	//go:embed reentrant_forceunlock.lua
	reentrantForceUnlockSrc string

	//go:embed fair_acquire.lua
	fairAcquireSrc string
	//go:embed fair_tryacquire.lua
	fairTryAcquireSrc string
	//go:embed fair_acquirefailed.lua
	fairAcquireFailedSrc string
	//go:embed fair_unlock.lua
	fairUnlockSrc string
	//go:embed fair_forceunlock.lua
	fairForceUnlockSrc string

	reentrantAcquire     = redis.NewScript(reentrantAcquireSrc)
	fencedAcquire        = redis.NewScript(fencedAcquireSrc)
	reentrantUnlock      = redis.NewScript(reentrantUnlockSrc)
	reentrantRenew       = redis.NewScript(reentrantRenewSrc)
	reentrantForceUnlock = redis.NewScript(reentrantForceUnlockSrc)
	fairAcquire          = redis.NewScript(fairAcquireSrc)
	fairTryAcquire       = redis.NewScript(fairTryAcquireSrc)
	fairAcquireFailed    = redis.NewScript(fairAcquireFailedSrc)
	fairUnlock           = redis.NewScript(fairUnlockSrc)
	fairForceUnlock      = redis.NewScript(fairForceUnlockSrc)
)

// publishCommand is the command unlock scripts publish with (Redisson's
// getPublishCommand; SPUBLISH would need sharded subscriptions in the hub).
const publishCommand = "PUBLISH"
