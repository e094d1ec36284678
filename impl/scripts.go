package impl

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// Lua scripts of the reentrant and fenced locks. Each file's header names its
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

	reentrantAcquire     = redis.NewScript(reentrantAcquireSrc)
	fencedAcquire        = redis.NewScript(fencedAcquireSrc)
	reentrantUnlock      = redis.NewScript(reentrantUnlockSrc)
	reentrantRenew       = redis.NewScript(reentrantRenewSrc)
	reentrantForceUnlock = redis.NewScript(reentrantForceUnlockSrc)
)

// publishCommand is the command unlock scripts publish with (Redisson's
// getPublishCommand; SPUBLISH would need sharded subscriptions in the hub).
const publishCommand = "PUBLISH"
