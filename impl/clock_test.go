package impl

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// The watchdog judges a lease lost on its Client's Clock: a clock that
// jumps a whole lease ahead while a renewal is in flight makes the hold
// lost although the renewal succeeded; on the real clock it is kept.
func TestWatchdogLostOnClock(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, jump := range []bool{false, true} {
		clock := &OffsetClock{}
		r := newRenewer(timeout, clock)
		var renewals atomic.Int32
		renew := func(context.Context) (bool, error) {
			if jump {
				clock.Set(clock.Offset() + 2*timeout)
			}
			renewals.Add(1)
			return true, nil
		}
		lost := newLostSignal()
		w, err := r.add(time.Now(), renew, lost)
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "two renewals", func() bool { return renewals.Load() >= 2 })
		w.stop()
		r.close()
		select {
		case <-lost.c:
			if !jump {
				t.Error("real clock: hold judged lost though every renewal succeeded")
			}
		default:
			if jump {
				t.Error("clock jumped past the lease during a renewal: hold not judged lost")
			}
		}
	}
}

// stepClock moves a whole step ahead at every second reading: a RedLock
// attempt measured on it took longer than the step.
type stepClock struct {
	step  time.Duration
	calls atomic.Int64
}

func (c *stepClock) Now() time.Time {
	n := c.calls.Add(1)
	return time.Now().Add(time.Duration(n/2) * c.step)
}

// A RedLock measures its validity on its Clock: when the clock says the
// attempt took the whole lease, the quorum's grant is refused and taken
// back on every node.
func TestRedlockValidityOnClock(t *testing.T) {
	_, clients := startRedlockNodes(t, 3)
	ctx := ctxT(t)
	const lease = 2 * time.Second
	m := newRedlockMaker(t, clients, WithRedlockClock(&stepClock{step: lease}))
	ok, err := m.NewLocker("rv", "a").TryLock(ctx, 0, lease)
	if err != nil || ok {
		t.Fatalf("attempt the clock says took the lease: TryLock = %v, %v; want false", ok, err)
	}
	for i, c := range clients {
		if n, err := c.Exists(ctx, "rv").Result(); err != nil || n != 0 {
			t.Errorf("node %d keeps the refused grant: exists %d, %v", i, n, err)
		}
	}
	real := newRedlockMaker(t, clients)
	if ok, err := real.NewLocker("rv", "b").TryLock(ctx, 0, lease); err != nil || !ok {
		t.Fatalf("real clock: TryLock = %v, %v; want true", ok, err)
	}
}

// The fair lock sends its Clock's time to its scripts: a client whose clock
// is a queue timeout ahead evicts a live waiter at the head of the queue
// (Redisson's wire format compares deadlines written with one client's
// clock against another's); a client on the real clock does not.
func TestFairScriptTimeFromClock(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	const threadWait = 2 * time.Second
	for _, ahead := range []time.Duration{0, 2 * threadWait} {
		c, rdb := newTestClient(t, s, WithThreadWaitTime(threadWait))
		skewed := &OffsetClock{}
		skewed.Set(ahead)
		cs, _ := newTestClient(t, s, WithThreadWaitTime(threadWait), WithClock(skewed))
		ctx := ctxT(t)
		holder := c.Fair("skew", "holder")
		if err := holder.Lock(ctx, 0); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Fair("skew", "waiter").Lock(wctx, 0) }()
		eventually(t, 5*time.Second, "waiter queued", func() bool { return len(queueOf(t, rdb, "skew")) == 1 })
		if ok, err := cs.Fair("skew", "skewed").TryLock(ctx, 0, 0); err != nil || ok {
			t.Fatalf("skewed TryLock on a held lock = %v, %v", ok, err)
		}
		waiter := OwnerField(c.ID(), "waiter")
		evicted := !slices.Contains(queueOf(t, rdb, "skew"), waiter)
		if evicted != (ahead > threadWait) {
			t.Errorf("clock %v ahead: waiter evicted %v, want %v", ahead, evicted, ahead > threadWait)
		}
		cancel()
		<-done
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		fairClean(t, rdb, "skew")
	}
}
