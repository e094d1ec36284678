package permits

import (
	"context"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// latchMaker marks the client of a process that runs the latch plan.
type latchMaker struct{ impl.LatchMaker }

// latchCounters is how many workers count each round's latch down (its
// count); the others await it.
func latchCounters(plan Plan) int { return max(1, plan.Workers/2) }

// latchAdmin sets each round's latch to latchCounters after SetDelay/2 to
// SetDelay, while the waiters already await it.
func latchAdmin(ctx context.Context, rec *recorder, m latchMaker, plan Plan, names []string) {
	rng := plan.rng(0)
	for r, name := range names {
		l := m.NewLatch(name)
		at := plan.roundStart(r) + plan.SetDelay/2 + time.Duration(rng.Int64N(int64(plan.SetDelay/2)+1))
		if !sleepUntil(ctx, rec.base, at) {
			return
		}
		n := latchCounters(plan)
		o := model.Op{Process: 0, Lock: name, Kind: model.LatchSet, N: int64(n)}
		if _, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return l.TrySetCount(ctx, int64(n)) }); stop {
			return
		}
	}
}

// latchWorker counts each round's latch down once, at a random instant of
// the round's first half after SetDelay (workers 1..latchCounters), or
// awaits it with plan.Wait again and again until the round ends.
func latchWorker(ctx context.Context, rec *recorder, m latchMaker, p int, plan Plan, names []string, from int) {
	rng := plan.rng(p)
	for r := from; r < len(names); r++ {
		name := names[r]
		l := m.NewLatch(name)
		if p <= latchCounters(plan) {
			at := plan.roundStart(r) + plan.SetDelay + time.Duration(rng.Int64N(int64(plan.Round/2)+1))
			if !sleepUntil(ctx, rec.base, at) {
				return
			}
			o := model.Op{Process: p, Lock: name, Kind: model.LatchCountDown}
			if _, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return true, l.CountDown(ctx) }); stop {
				return
			}
			continue
		}
		live := roundLoop(ctx, rec, plan, r, func() bool {
			o := model.Op{Process: p, Lock: name, Kind: model.LatchAwait, Wait: plan.Wait.Nanoseconds()}
			if _, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return l.Await(ctx, plan.Wait) }); stop {
				return false
			}
			time.Sleep(time.Duration(rng.Int64N(int64(plan.Hold) + 1)))
			return true
		})
		if !live {
			return
		}
	}
}
