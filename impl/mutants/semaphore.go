package mutants

import (
	"context"
	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

var (
	//go:embed sem_release_twice.lua
	semReleaseTwiceSrc string
	//go:embed sem_add_nowake.lua
	semAddNoWakeSrc string
	//go:embed sem_acquire_any.lua
	semAcquireAnySrc string
)

// SemMutant is a deliberately broken RSemaphore: the Go port with one of
// its scripts replaced by a flawed one.
type SemMutant struct {
	Name string
	Doc  string
	// Catches names the checker that must catch it.
	Catches string
	Open    impl.SemaphoreMakerFunc
}

// Semaphores returns the semaphore mutants; opts configure their Clients
// (a short watchdog timeout bounds a waiter's poll when wake-ups are lost).
func Semaphores(opts ...impl.Option) []SemMutant {
	return []SemMutant{
		{
			Name:    "mutant-sem-release-twice",
			Doc:     "release applies its INCRBY twice (a retried release): permits beyond the total",
			Catches: "permits-conserved",
			Open:    semMaker(impl.SemaphoreScripts{Release: redis.NewScript(semReleaseTwiceSrc)}, opts),
		},
		{
			Name:    "mutant-sem-add-no-wake",
			Doc:     "addPermits publishes nothing: waiters are not woken by it",
			Catches: "liveness",
			Open:    semMaker(impl.SemaphoreScripts{AddPermits: redis.NewScript(semAddNoWakeSrc)}, opts),
		},
		{
			Name:    "mutant-sem-acquire-any",
			Doc:     "acquire(n) checks for one permit, not n: the count goes negative",
			Catches: "permits-conserved",
			Open:    semMaker(impl.SemaphoreScripts{TryAcquire: redis.NewScript(semAcquireAnySrc)}, opts),
		},
	}
}

// semMaker opens a Client whose semaphores run scripts.
func semMaker(scripts impl.SemaphoreScripts, opts []impl.Option) impl.SemaphoreMakerFunc {
	return func(ctx context.Context, rdb redis.UniversalClient) (impl.SemaphoreMaker, error) {
		m, err := impl.SemaphoreMakerOf(opts...)(ctx, rdb)
		if err != nil {
			return nil, err
		}
		return semMutantMaker{SemaphoreMaker: m, c: m.(*impl.Client), scripts: scripts}, nil
	}
}

type semMutantMaker struct {
	impl.SemaphoreMaker
	c       *impl.Client
	scripts impl.SemaphoreScripts
}

func (m semMutantMaker) NewSemaphore(name string) impl.Semaphore {
	return m.c.SemaphoreWith(name, m.scripts)
}
