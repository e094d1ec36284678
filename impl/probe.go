package impl

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// RefusalsOnFreeLock probes the part of the Locker contract that says a false
// from TryLock means another owner held the lock: on a lock no one else
// touches, it makes n TryLock(wait, lease) + Unlock cycles with l and counts
// the TryLocks that answered false. A correct lock answers 0 at every wait,
// even a wait shorter than a round trip (the wait bounds retries, never a
// request in flight). An error from TryLock or Unlock ends the probe.
func RefusalsOnFreeLock(ctx context.Context, l Locker, wait, lease time.Duration, n int) (int, error) {
	refused := 0
	for range n {
		ok, err := l.TryLock(ctx, wait, lease)
		if err != nil {
			return refused, fmt.Errorf("trylock (wait %v): %w", wait, err)
		}
		if !ok {
			refused++
			continue
		}
		if err := l.Unlock(ctx); err != nil {
			return refused, fmt.Errorf("unlock (wait %v): %w", wait, err)
		}
	}
	return refused, nil
}

// LostUpdates probes mutual exclusion: every locker, each in its own
// goroutine, makes rounds passes of hold(ctx, l, round, section), and
// section increments a shared counter in two steps (read, yield, write), so
// two sections that overlap lose an increment. hold acquires, runs section
// while it holds, and releases (one Lock + Unlock, or whatever the lock
// under test should be driven through). It returns the increments lost and
// the first error of any hold; every goroutine has ended when it returns.
func LostUpdates(ctx context.Context, lockers []Locker, rounds int, hold func(ctx context.Context, l Locker, round int, section func()) error) (int64, error) {
	var counter atomic.Int64
	section := func() {
		v := counter.Load()
		runtime.Gosched()
		counter.Store(v + 1)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(lockers))
	for _, l := range lockers {
		wg.Go(func() {
			for i := range rounds {
				if err := hold(ctx, l, i, section); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return int64(len(lockers)*rounds) - counter.Load(), <-errs
}
