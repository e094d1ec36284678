package permits

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// PermitLease is the lease of a permit in the permit plan.
const PermitLease = 300 * time.Millisecond

// permitWait is a permit acquire's wait, shorter than the semaphore
// plan's: an acquire refused while a permit had surely expired is the
// violation, and a refusal is only sure once the wait was called after
// the expiry, so refusals must come often.
const permitWait = 600 * time.Millisecond

// permitOverrun is how far past its lease an overrunning worker releases:
// beyond the lease's latest end, so the release must fail.
const permitOverrun = 150 * time.Millisecond

// How a worker ends a hold.
type holdEnd int

const (
	holdShort   holdEnd = iota // release within plan.Hold
	holdOverrun                // release after the lease ran out: it must fail
	holdDie                    // never release: the lease returns the permit
)

// permitWorker takes one permit with a lease of PermitLease, waiting at
// most permitWait, until each round's end; it then releases it after a
// short hold (4 in 6), after its lease ran out (1 in 6: the release must
// fail), or never (1 in 6: a holder that died). Workers 1 and 2 then
// overrun one more hold each after the round, when no other worker
// acquires, so that no acquire returns the expired permits to the pool
// before their releases come.
func permitWorker(ctx context.Context, rec *recorder, m impl.PermitSemaphoreMaker, p int, plan Plan, names []string, from int) {
	rng := plan.rng(p)
	for r := from; r < len(names); r++ {
		name := names[r]
		sem := m.NewPermitSemaphore(name)
		live := roundLoop(ctx, rec, plan, r, func() bool {
			how := holdShort
			switch rng.IntN(6) {
			case 0:
				how = holdDie
			case 1:
				how = holdOverrun
			}
			return permitHold(ctx, rec, sem, p, name, plan, how, rng)
		})
		if !live || ctx.Err() != nil {
			return
		}
		if p <= 2 && !permitHold(ctx, rec, sem, p, name, plan, holdOverrun, rng) {
			return
		}
	}
}

// permitHold runs one acquire and, if granted, the hold's end. It reports
// false when the worker must stop (it crashed, or the run ended).
func permitHold(ctx context.Context, rec *recorder, sem impl.PermitSemaphore, p int, name string, plan Plan, how holdEnd, rng *rand.Rand) bool {
	var id string
	wait := min(plan.Wait, permitWait)
	o := model.Op{Process: p, Lock: name, Kind: model.PermitAcquire, N: 1, Lease: PermitLease.Nanoseconds(), Wait: wait.Nanoseconds()}
	ok, stop := rec.callID(ctx, o, func(ctx context.Context) (string, bool, error) {
		got, ok, err := sem.TryAcquire(ctx, wait, PermitLease)
		id = got
		return got, ok, err
	})
	if stop || !ok || how == holdDie {
		return !stop
	}
	if how == holdOverrun {
		time.Sleep(PermitLease + permitOverrun)
	} else {
		time.Sleep(time.Duration(rng.Int64N(int64(plan.Hold) + 1)))
	}
	return releasePermit(ctx, rec, sem, p, name, id)
}

// releasePermit releases permit id as worker p (fail: it was not held, or
// its lease had run out). It reports false when the worker must stop.
func releasePermit(ctx context.Context, rec *recorder, sem impl.PermitSemaphore, p int, name, id string) bool {
	o := model.Op{Process: p, Lock: name, Kind: model.PermitRelease, N: 1, PermitID: id}
	_, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) {
		err := sem.Release(ctx, id)
		if errors.Is(err, impl.ErrPermitNotHeld) {
			return false, nil
		}
		return err == nil, err
	})
	return !stop
}
