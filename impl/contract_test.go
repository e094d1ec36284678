package impl

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// TryLock with a wait of 0-1 ms (or a ctx of 0-1 ms) racing grants: every
// "not granted" answer (false with a nil error, or ErrNotObtained) leaves
// no hold of the caller in Redis and, for the fair lock, no queue entry;
// the lockcheck runner records these as definite fails.
func TestTryLockRacingGrantsLeavesNothing(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	other, _ := newTestClient(t, s)
	ctx := ctxT(t)
	for _, kind := range []string{"reentrant", "fair"} {
		t.Run(kind, func(t *testing.T) {
			name := "race-" + kind
			mk := func(c *Client, owner string) Locker {
				if kind == "fair" {
					return c.Fair(name, owner)
				}
				return c.Reentrant(name, owner)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() { // another owner locks and unlocks all the time
				l := mk(other, "busy")
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := l.Lock(ctx, 0); err != nil {
						t.Error(err)
						return
					}
					if err := l.Unlock(ctx); err != nil {
						t.Error(err)
						return
					}
				}
			})
			defer func() { close(stop); wg.Wait() }()
			rng := rand.New(rand.NewPCG(3, 7))
			l := mk(c, "t")
			field := OwnerField(c.ID(), "t")
			var granted, refused, unknown int
		attempts:
			for range 300 {
				wait := time.Duration(rng.IntN(1001)) * time.Microsecond
				cctx, cancel := ctx, context.CancelFunc(func() {})
				if rng.IntN(2) == 0 {
					cctx, cancel = context.WithTimeout(ctx, wait)
					wait = time.Second
				}
				ok, err := l.TryLock(cctx, wait, 0)
				cancel()
				switch {
				case ok:
					granted++
					if err := l.Unlock(ctx); err != nil {
						t.Fatal(err)
					}
					continue
				case errors.Is(err, errCancelledInFlight):
					// Unknown: the script may land after the call
					// returned. Give it a moment, then release whatever
					// it took so the next attempts are about refusals.
					unknown++
					time.Sleep(2 * time.Millisecond)
					for l.Unlock(ctx) == nil {
					}
					continue
				case err != nil && !errors.Is(err, ErrNotObtained):
					// An outcome the contract calls unknown (a socket
					// timeout on a loaded machine): it may have left a
					// hold that only its lease ends, so later checks
					// would not be about refusals any more.
					t.Logf("stopping after %d attempts: TryLock: %v", granted+refused, err)
					break attempts
				}
				refused++
				if n, err := c.Reentrant(name, "t").HoldCount(ctx); n != 0 || err != nil {
					t.Fatalf("refused TryLock left %d holds (%v)", n, err)
				}
				if q := queueOf(t, rdb, name); slices.Contains(q, field) {
					t.Fatalf("refused TryLock left its queue entry: %v", q)
				}
			}
			t.Logf("%d granted, %d refused, %d cancelled in flight", granted, refused, unknown)
			if granted == 0 || refused == 0 {
				t.Fatalf("%d granted, %d refused: the race was not exercised", granted, refused)
			}
		})
	}
}
