package mutants

import (
	"context"
	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

var (
	//go:embed permit_release_expired_ok.lua
	permitReleaseExpiredOKSrc string
	//go:embed permit_acquire_no_reclaim.lua
	permitAcquireNoReclaimSrc string
)

// PermitMutant is a deliberately broken RPermitExpirableSemaphore: the Go
// port with one of its scripts replaced by a flawed one.
type PermitMutant struct {
	Name    string
	Doc     string
	Catches string
	Open    impl.PermitSemaphoreMakerFunc
}

// PermitSemaphores returns the permit semaphore mutants; opts configure
// their Clients.
func PermitSemaphores(opts ...impl.Option) []PermitMutant {
	return []PermitMutant{
		{
			Name:    "mutant-permit-expired-release-ok",
			Doc:     "release(id) reports success for a permit whose lease ran out",
			Catches: "linearizable",
			Open:    permitMaker(impl.PermitScripts{Release: redis.NewScript(permitReleaseExpiredOKSrc)}, opts),
		},
		{
			Name:    "mutant-permit-no-reclaim",
			Doc:     "acquire never returns expired permits to the pool: a dead holder's permit is lost",
			Catches: "linearizable",
			Open:    permitMaker(impl.PermitScripts{TryAcquire: redis.NewScript(permitAcquireNoReclaimSrc)}, opts),
		},
	}
}

func permitMaker(scripts impl.PermitScripts, opts []impl.Option) impl.PermitSemaphoreMakerFunc {
	return func(ctx context.Context, rdb redis.UniversalClient) (impl.PermitSemaphoreMaker, error) {
		m, err := impl.PermitSemaphoreMakerOf(opts...)(ctx, rdb)
		if err != nil {
			return nil, err
		}
		return permitMutantMaker{PermitSemaphoreMaker: m, c: m.(*impl.Client), scripts: scripts}, nil
	}
}

type permitMutantMaker struct {
	impl.PermitSemaphoreMaker
	c       *impl.Client
	scripts impl.PermitScripts
}

func (m permitMutantMaker) NewPermitSemaphore(name string) impl.PermitSemaphore {
	return m.c.PermitSemaphoreWith(name, m.scripts)
}
