package permits

import (
	"context"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// HandoverJitter bounds the offset, drawn from the seed, of a handover's
// release after the waiter's call: it spans the waiter's first attempts
// (a driver's request, its subscription, the attempt after it) on a busy
// machine, so that some releases land just as the waiter registers for
// the release's message.
const HandoverJitter = 5 * time.Millisecond

// handoverRound runs the semaphore plan's handover round (Plan.Handovers)
// on the semaphore name, after the other rounds, when no other worker
// acquires: the admin (admin's handles) sets one permit; then, again and
// again for Plan.Handovers, worker 1 (holder) takes it, worker 2
// (waiter) asks for it with a wait of Plan.Wait, and worker 1 gives it back
// 0 to HandoverJitter after the waiter's call; the waiter gives it back
// as soon as it has it. The next handover starts only once the waiter's
// call returned, so that nothing else wakes a waiter that missed the
// release's message: it then waits out Plan.Wait beside a free permit, a
// liveness violation. start is when the round begins, from the run's base.
func handoverRound(ctx context.Context, rec *recorder, admin setter, holder, waiter impl.Semaphore, plan Plan, name string, start time.Duration) {
	rng := plan.rng(plan.Workers + 1)
	if !sleepUntil(ctx, rec.base, start) {
		return
	}
	o := model.Op{Process: 0, Lock: name, Kind: model.SemSet, N: 1}
	if ok, retire := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return admin.TrySetPermits(ctx, 1) }); !ok || retire {
		return
	}
	end := start + plan.Handovers
	for time.Since(rec.base) < end && ctx.Err() == nil {
		offset := time.Duration(rng.Int64N(int64(HandoverJitter) + 1))
		if !handover(ctx, rec, holder, waiter, plan, name, offset) {
			return
		}
	}
}

// handover runs one handover (see handoverRound); false when the round
// must stop (the holder did not get the permit, or a process retired).
func handover(ctx context.Context, rec *recorder, holder, waiter impl.Semaphore, plan Plan, name string, offset time.Duration) bool {
	const pHolder, pWaiter = 1, 2
	o := model.Op{Process: pHolder, Lock: name, Kind: model.SemAcquire, N: 1, Wait: plan.Wait.Nanoseconds()}
	if ok, _ := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return holder.TryAcquire(ctx, 1, plan.Wait) }); !ok {
		return false
	}
	var got, retired bool
	var wg sync.WaitGroup
	called := time.Now()
	wg.Go(func() {
		o := model.Op{Process: pWaiter, Lock: name, Kind: model.SemAcquire, N: 1, Wait: plan.Wait.Nanoseconds()}
		got, retired = rec.call(ctx, o, func(ctx context.Context) (bool, error) { return waiter.TryAcquire(ctx, 1, plan.Wait) })
	})
	time.Sleep(time.Until(called.Add(offset)))
	o = model.Op{Process: pHolder, Lock: name, Kind: model.SemRelease, N: 1}
	_, retire := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return true, holder.Release(ctx, 1) })
	wg.Wait()
	if retire || retired || !got {
		return !retire && !retired
	}
	o = model.Op{Process: pWaiter, Lock: name, Kind: model.SemRelease, N: 1}
	_, retire = rec.call(ctx, o, func(ctx context.Context) (bool, error) { return true, waiter.Release(ctx, 1) })
	return !retire
}
