package mutants

import (
	"context"
	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

var (
	//go:embed latch_no_publish.lua
	latchNoPublishSrc string
	//go:embed latch_early_open.lua
	latchEarlyOpenSrc string
)

// LatchMutant is a deliberately broken RCountDownLatch: the Go port with
// a flawed countDown script.
type LatchMutant struct {
	Name    string
	Doc     string
	Catches string
	Open    impl.LatchMakerFunc
}

// Latches returns the latch mutants; opts configure their Clients.
func Latches(opts ...impl.Option) []LatchMutant {
	return []LatchMutant{
		{
			Name:    "mutant-latch-no-publish",
			Doc:     "countDown to 0 opens the latch without publishing: waiters are not woken",
			Catches: "liveness",
			Open:    latchMaker(redis.NewScript(latchNoPublishSrc), opts),
		},
		{
			Name:    "mutant-latch-early-open",
			Doc:     "countDown opens the latch at 1, one count early",
			Catches: "linearizable",
			Open:    latchMaker(redis.NewScript(latchEarlyOpenSrc), opts),
		},
	}
}

func latchMaker(countDown *redis.Script, opts []impl.Option) impl.LatchMakerFunc {
	return func(ctx context.Context, rdb redis.UniversalClient) (impl.LatchMaker, error) {
		m, err := impl.LatchMakerOf(opts...)(ctx, rdb)
		if err != nil {
			return nil, err
		}
		return latchMutantMaker{LatchMaker: m, c: m.(*impl.Client), countDown: countDown}, nil
	}
}

type latchMutantMaker struct {
	impl.LatchMaker
	c         *impl.Client
	countDown *redis.Script
}

func (m latchMutantMaker) NewLatch(name string) impl.Latch { return m.c.LatchWith(name, m.countDown) }
