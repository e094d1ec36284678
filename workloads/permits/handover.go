package permits

import (
	"context"
	"io"
	"strconv"
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
// after the other rounds, when no other op runs, on pairs of workers (1
// and 2, 3 and 4, ...; workers[i] is worker i+1's Maker), each pair on a
// semaphore of its own named prefix-handover<k>, whose names it returns.
// The admin (newSetter's handles) sets one permit on each; then, again and
// again for Plan.Handovers, the pair's first worker (the holder) takes it,
// the second (the waiter) asks for it with a wait of Plan.Wait, and the
// holder gives it back 0 to HandoverJitter after the waiter's call; the
// waiter gives it back as soon as it has it. The next handover starts only
// once the waiter's call returned, so that nothing else wakes a waiter that
// missed the release's message: it then waits out Plan.Wait beside a free
// permit, a liveness violation. Pairs run side by side for more handovers
// in the time; each draws its offsets from a random source of its own. A
// pair one of whose workers crashed sits it out, and the round is
// skipped once the admin crashed.
func handoverRound(ctx context.Context, rec *recorder, newSetter func(string) setter, workers []func(string) passer, plan Plan, prefix string) []string {
	start := plan.roundStart(plan.Rounds)
	if !sleepUntil(ctx, rec.base, start) {
		return nil
	}
	var names []string
	var wg sync.WaitGroup
	for k := 0; 2*k+1 < len(workers); k++ {
		if rec.isRetired(0) {
			break
		}
		if rec.isRetired(2*k+1) || rec.isRetired(2*k+2) {
			continue // a crash of the rounds stopped one of the pair
		}
		name := prefix + "-handover" + strconv.Itoa(k)
		names = append(names, name)
		admin := newSetter(name)
		o := model.Op{Process: 0, Lock: name, Kind: model.SemSet, N: 1}
		if ok, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return admin.TrySetPermits(ctx, 1) }); stop {
			break
		} else if !ok {
			continue
		}
		pair := handoverPair{holder: 2*k + 1, waiter: 2*k + 2, holderSem: workers[2*k](name), waiterSem: workers[2*k+1](name)}
		rng := plan.rng(plan.Workers + 1 + k)
		wg.Go(func() {
			for time.Since(rec.base) < start+plan.Handovers && ctx.Err() == nil {
				offset := time.Duration(rng.Int64N(int64(HandoverJitter) + 1))
				if !pair.handover(ctx, rec, plan, offset) {
					return
				}
			}
		})
	}
	wg.Wait()
	return names
}

// handoverPair is a holder and a waiter (workers) passing one permit.
type handoverPair struct {
	holder, waiter       int
	holderSem, waiterSem passer
}

// handover runs one handover (see handoverRound); false when the pair
// must stop (the holder did not get the permit, or a worker stopped).
func (hp handoverPair) handover(ctx context.Context, rec *recorder, plan Plan, offset time.Duration) bool {
	if ok, _ := hp.holderSem.take(ctx, rec, hp.holder, plan); !ok {
		return false
	}
	var got, stopped bool
	var wg sync.WaitGroup
	called := time.Now()
	wg.Go(func() { got, stopped = hp.waiterSem.take(ctx, rec, hp.waiter, plan) })
	time.Sleep(time.Until(called.Add(offset)))
	stop := hp.holderSem.give(ctx, rec, hp.holder)
	wg.Wait()
	if stop || stopped || !got {
		return !stop && !stopped
	}
	return !hp.waiterSem.give(ctx, rec, hp.waiter)
}

// passer is one worker's handle on a handover semaphore: take waits up to
// Plan.Wait for its one permit, give gives back what take took.
type passer interface {
	take(ctx context.Context, rec *recorder, p int, plan Plan) (ok, stop bool)
	give(ctx context.Context, rec *recorder, p int) (stop bool)
}

// countPasser passes a counting semaphore's permit: acquire(1), release(1).
type countPasser struct {
	sem  impl.Semaphore
	name string
}

func (c *countPasser) take(ctx context.Context, rec *recorder, p int, plan Plan) (bool, bool) {
	o := model.Op{Process: p, Lock: c.name, Kind: model.SemAcquire, N: 1, Wait: plan.Wait.Nanoseconds()}
	return rec.call(ctx, o, func(ctx context.Context) (bool, error) { return c.sem.TryAcquire(ctx, 1, plan.Wait) })
}

func (c *countPasser) give(ctx context.Context, rec *recorder, p int) bool {
	o := model.Op{Process: p, Lock: c.name, Kind: model.SemRelease, N: 1}
	_, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return true, c.sem.Release(ctx, 1) })
	return stop
}

// handoverLease is the lease of a handover's permit: longer than a
// handover (a wait and a release), so that no permit expires in the round.
const handoverLease = time.Minute

// permitPasser passes a permit semaphore's permit, with handoverLease;
// give releases the id take got.
type permitPasser struct {
	sem  impl.PermitSemaphore
	name string
	id   string
}

func (c *permitPasser) take(ctx context.Context, rec *recorder, p int, plan Plan) (bool, bool) {
	o := model.Op{Process: p, Lock: c.name, Kind: model.PermitAcquire, N: 1, Lease: handoverLease.Nanoseconds(), Wait: plan.Wait.Nanoseconds()}
	return rec.callID(ctx, o, func(ctx context.Context) (string, bool, error) {
		id, ok, err := c.sem.TryAcquire(ctx, plan.Wait, handoverLease)
		c.id = id
		return id, ok, err
	})
}

func (c *permitPasser) give(ctx context.Context, rec *recorder, p int) bool {
	return !releasePermit(ctx, rec, c.sem, p, c.name, c.id)
}

// passerOf returns how worker Maker m makes its handles on a handover
// semaphore; nil for a latch.
func passerOf(m io.Closer) func(name string) passer {
	switch m := m.(type) {
	case permitMaker:
		return func(name string) passer { return &permitPasser{sem: m.NewPermitSemaphore(name), name: name} }
	case impl.SemaphoreMaker:
		return func(name string) passer { return &countPasser{sem: m.NewSemaphore(name), name: name} }
	}
	return nil
}
