package impl

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// Lua scripts of the semaphores and the latch. Each file's header names its
// KEYS, ARGV and return values.
var (
	//go:embed semaphore_tryacquire.lua
	semaphoreTryAcquireSrc string
	//go:embed semaphore_release.lua
	semaphoreReleaseSrc string
	//go:embed semaphore_addpermits.lua
	semaphoreAddPermitsSrc string
	//go:embed semaphore_trysetpermits.lua
	semaphoreTrySetPermitsSrc string
	//go:embed permit_tryacquire.lua
	permitTryAcquireSrc string
	//go:embed permit_release.lua
	permitReleaseSrc string
	//go:embed permit_addpermits.lua
	permitAddPermitsSrc string
	//go:embed permit_available.lua
	permitAvailableSrc string
	//go:embed latch_trysetcount.lua
	latchTrySetCountSrc string
	//go:embed latch_countdown.lua
	latchCountDownSrc string

	semaphoreTryAcquire    = redis.NewScript(semaphoreTryAcquireSrc)
	semaphoreRelease       = redis.NewScript(semaphoreReleaseSrc)
	semaphoreAddPermits    = redis.NewScript(semaphoreAddPermitsSrc)
	semaphoreTrySetPermits = redis.NewScript(semaphoreTrySetPermitsSrc)
	permitTryAcquire       = redis.NewScript(permitTryAcquireSrc)
	permitRelease          = redis.NewScript(permitReleaseSrc)
	permitAddPermits       = redis.NewScript(permitAddPermitsSrc)
	permitAvailable        = redis.NewScript(permitAvailableSrc)
	latchTrySetCount       = redis.NewScript(latchTrySetCountSrc)
	latchCountDown         = redis.NewScript(latchCountDownSrc)
)
