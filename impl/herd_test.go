package impl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

func TestJitterDelay(t *testing.T) {
	a, b := newJitter(7), newJitter(7)
	for lost := range herdFree + 1 {
		if d := a.delay(lost, 0); d != 0 {
			t.Fatalf("delay(%d) = %v; want 0", lost, d)
		}
	}
	for lost := herdFree + 1; lost <= 40; lost++ {
		span := min(time.Duration(lost-herdFree)*herdStep, herdMax)
		da, db := a.delay(lost, 0), b.delay(lost, 0)
		if da != db {
			t.Fatalf("delay(%d) = %v and %v with the same seed", lost, da, db)
		}
		if da < 0 || da >= span {
			t.Fatalf("delay(%d) = %v; want in [0, %v)", lost, da, span)
		}
		if d := a.delay(lost, herdOld); d != 0 {
			t.Fatalf("delay(%d) at age %v = %v; want 0", lost, herdOld, d)
		}
	}
}

// With n waiters (one Client each, as one process each) on one reentrant
// lock, an unlock message wakes them all. Without spreading their retries
// nearly every woken waiter runs its acquire script for each grant (about
// n-1 failed attempts per grant); waiters that keep losing wait a random
// delay, and wake-ups that arrive meanwhile are answered by one attempt.
// The bound is loose (a loaded machine coalesces wake-ups on its own, which
// only lowers the count).
func TestReentrantHerdSpread(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	stats := redistest.Client(t, s)
	ctx := ctxT(t)
	const waiters, grants = 16, 400
	lockers := make([]*ReentrantLock, waiters)
	for i := range lockers {
		c, _ := newTestClient(t, s, WithWatchdogTimeout(30*time.Second), WithJitterSeed(uint64(i)))
		lockers[i] = c.Reentrant("herd", fmt.Sprint(i))
	}
	_, before := serverCommands(t, stats)
	var (
		remaining atomic.Int64
		wg        sync.WaitGroup
		errc      = make(chan error, waiters)
	)
	remaining.Store(grants)
	for _, l := range lockers {
		wg.Go(func() {
			for remaining.Add(-1) >= 0 {
				if err := l.Lock(ctx, 0); err != nil {
					errc <- err
					return
				}
				if err := l.Unlock(context.Background()); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	_, after := serverCommands(t, stats)
	perGrant := float64(after-before) / grants
	t.Logf("%d waiters: %.1f scripts per grant (2 without contention)", waiters, perGrant)
	if limit := 0.75 * waiters; perGrant > limit {
		t.Fatalf("%.1f scripts per grant with %d waiters; want at most %.0f", perGrant, waiters, limit)
	}
}
