package impl

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// fairClean waits until the fair lock name has no queue, no deadlines and
// the server no subscribed channels at all.
func fairClean(t *testing.T, rdb *redis.Client, name string) {
	t.Helper()
	ctx := ctxT(t)
	eventually(t, 5*time.Second, "queue, deadlines and subscriptions gone", func() bool {
		n, err := rdb.Exists(ctx, QueueName(name), TimeoutName(name)).Result()
		chans, cerr := rdb.PubSubChannels(ctx, "*").Result()
		return err == nil && cerr == nil && n == 0 && len(chans) == 0
	})
}

// queueOf reads the queue of lock name.
func queueOf(t *testing.T, rdb *redis.Client, name string) []string {
	t.Helper()
	q, err := rdb.LRange(context.Background(), QueueName(name), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// RedissonFairLockTest.testLeaseTimeout: 8 waiters started 100 ms apart
// with short leases, none unlocking, are granted exactly in order 0..7
// across lease expiries. Each waiter starts once its predecessor is queued
// or granted, so the order does not rest on goroutine scheduling.
func TestFairLeaseTimeoutOrder(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	_, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	const n = 8
	const lease = 400 * time.Millisecond
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
		errs  = make(chan error, n)
	)
	for i := range n {
		c, _ := newTestClient(t, s, WithThreadWaitTime(20*time.Second))
		l := c.Fair("lease-order", fmt.Sprint(i))
		ready := make(chan struct{})
		var once sync.Once
		l.OnEnqueued(func(time.Time) { once.Do(func() { close(ready) }) })
		wg.Go(func() {
			ok, err := l.TryLock(ctx, 10*time.Second, lease)
			if err != nil || !ok {
				errs <- fmt.Errorf("waiter %d: TryLock = %v, %v", i, ok, err)
				once.Do(func() { close(ready) })
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			once.Do(func() { close(ready) })
		})
		<-ready
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7}; !slices.Equal(order, want) {
		t.Fatalf("grant order %v; want %v", order, want)
	}
	fairClean(t, rdb, "lease-order")
}

// RedissonFairLockTest.testMultipleLocks: 500 lockers on one lock (over 10
// clients) all get it, one at a time.
func TestFairManyLockers(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	_, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	const lockers, clients = 500, 10
	cs := make([]*Client, clients)
	for i := range cs {
		cs[i], _ = newTestClient(t, s)
	}
	var (
		inside, done atomic.Int64
		wg           sync.WaitGroup
		errs         = make(chan error, lockers)
	)
	for i := range lockers {
		l := cs[i%clients].Fair("many", fmt.Sprint(i))
		wg.Go(func() {
			if err := l.Lock(ctx, 5*time.Second); err != nil {
				errs <- fmt.Errorf("locker %d: %w", i, err)
				return
			}
			if inside.Add(1) != 1 {
				errs <- fmt.Errorf("locker %d: two holders at once", i)
			}
			time.Sleep(100 * time.Microsecond)
			inside.Add(-1)
			done.Add(1)
			if err := l.Unlock(ctx); err != nil {
				errs <- fmt.Errorf("locker %d: unlock: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if done.Load() != lockers {
		t.Fatalf("%d of %d lockers got the lock", done.Load(), lockers)
	}
	fairClean(t, rdb, "many")
}

// RedissonFairLockTest.testWaitTimeoutDrift: waiters that give up over and
// over against a long-held lock never push the deadlines beyond now + lease
// + threadWaitTime (without the acquire-failed script's correction they
// would drift by one wait per give-up, #1104/#2099).
func TestFairNoDeadlineDrift(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	const threadWait = 2 * time.Second
	const lease = 30 * time.Second
	c, rdb := newTestClient(t, s, WithThreadWaitTime(threadWait))
	ctx := ctxT(t)
	holder := c.Fair("drift", "holder")
	if err := holder.Lock(ctx, lease); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var (
		sampler   sync.WaitGroup
		worst     atomic.Int64 // largest score - (now + lease + threadWait), ms
		samples   atomic.Int64
		sampleErr atomic.Value
	)
	worst.Store(-1 << 62)
	sampler.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			zs, err := rdb.ZRangeWithScores(ctx, TimeoutName("drift"), 0, -1).Result()
			now := time.Now().UnixMilli()
			if err != nil {
				sampleErr.Store(err)
				return
			}
			for _, z := range zs {
				samples.Add(1)
				over := int64(z.Score) - (now + lease.Milliseconds() + threadWait.Milliseconds())
				for {
					w := worst.Load()
					if over <= w || worst.CompareAndSwap(w, over) {
						break
					}
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	})
	// Three workers with different waits give up over and over without
	// pausing, so the queue is rarely empty and enqueues build on earlier
	// deadlines.
	var wg sync.WaitGroup
	for w := range 3 {
		l := c.Fair("drift", fmt.Sprintf("w%d", w))
		wg.Go(func() {
			for round := range 50 {
				if ok, err := l.TryLock(ctx, time.Duration(30+20*w)*time.Millisecond, lease); ok || err != nil {
					t.Errorf("waiter %d round %d: TryLock = %v, %v; want false", w, round, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	if err, _ := sampleErr.Load().(error); err != nil {
		t.Fatal(err)
	}
	if samples.Load() == 0 {
		t.Fatal("the sampler never saw a queued waiter")
	}
	t.Logf("largest deadline - (now + lease + threadWaitTime): %d ms over %d samples", worst.Load(), samples.Load())
	if w := worst.Load(); w > 0 {
		t.Fatalf("a deadline drifted %d ms beyond now + lease + threadWaitTime", w)
	}
	if q := queueOf(t, rdb, "drift"); len(q) != 0 {
		t.Fatalf("queue after the rounds: %v", q)
	}
	if ok, err := holder.ForceUnlock(ctx); !ok || err != nil {
		t.Fatal(ok, err)
	}
	fairClean(t, rdb, "drift")
}

// RedissonFairLockTest.testTryLockNonDelayed: TryLock(0) on a free lock
// succeeds without queueing; a contender that gives up leaves the queue, so
// the lock is obtainable at once after the unlock.
func TestFairTryLockNonDelayed(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	other, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Fair("nondelayed", "1")
	if ok, err := l.TryLock(ctx, 0, 0); !ok || err != nil {
		t.Fatalf("TryLock(0) on a free lock = %v, %v", ok, err)
	}
	if n, _ := rdb.Exists(ctx, QueueName("nondelayed"), TimeoutName("nondelayed")).Result(); n != 0 {
		t.Fatal("TryLock(0) left a queue entry")
	}
	if ok, err := other.Fair("nondelayed", "2").TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock(0) against a holder = %v, %v", ok, err)
	}
	start := time.Now()
	if ok, err := other.Fair("nondelayed", "2").TryLock(ctx, 200*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("TryLock(200ms) against a holder = %v, %v", ok, err)
	}
	if d := time.Since(start); d < 190*time.Millisecond {
		t.Fatalf("TryLock(200ms) gave up after %v", d)
	}
	if q := queueOf(t, rdb, "nondelayed"); len(q) != 0 {
		t.Fatalf("a waiter that gave up is still queued: %v", q)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := other.Fair("nondelayed", "3").TryLock(ctx, 0, 0); !ok || err != nil {
		t.Fatalf("TryLock(0) after the unlock = %v, %v; want at once", ok, err)
	}
	if err := other.Fair("nondelayed", "3").Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	fairClean(t, rdb, "nondelayed")
}

// RedissonFairLockTest.testAbandonedTimeoutDrift: a waiter that stopped
// polling (its process is gone: here a raw queue entry made by the acquire
// script itself, as a dead Redisson client leaves it) blocks the queue until
// its deadline, then is purged and the next waiter gets the lock.
func TestFairAbandonedWaiterPurged(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	const threadWait = 500 * time.Millisecond
	c, rdb := newTestClient(t, s, WithThreadWaitTime(threadWait))
	ctx := ctxT(t)
	holder := c.Fair("abandoned", "holder")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	dead := OwnerField("dead-client", "1")
	vals, err := fairAcquire.Run(ctx, rdb, []string{"abandoned", QueueName("abandoned"), TimeoutName("abandoned"), ChannelName("abandoned")},
		30000, dead, threadWait.Milliseconds(), time.Now().UnixMilli(), unlockMessage, publishCommand).Int64Slice()
	if err != nil || len(vals) != 4 || vals[0] != 0 || vals[3] != 1 {
		t.Fatalf("raw enqueue of the dead waiter = %v, %v", vals, err)
	}
	deadline, err := rdb.ZScore(ctx, TimeoutName("abandoned"), dead).Result()
	if err != nil {
		t.Fatal(err)
	}

	next := c.Fair("abandoned", "next")
	got := make(chan time.Time, 1)
	errc := make(chan error, 1)
	go func() {
		if err := next.Lock(ctx, 0); err != nil {
			errc <- err
			return
		}
		got <- time.Now()
	}()
	eventually(t, 5*time.Second, "next waiter queued behind the dead one", func() bool {
		return len(queueOf(t, rdb, "abandoned")) == 2
	})
	if err := holder.Unlock(ctx); err != nil { // wakes the dead head only
		t.Fatal(err)
	}
	select {
	case at := <-got:
		if at.UnixMilli() < int64(deadline) {
			t.Fatalf("granted at %d, before the dead waiter's deadline %d", at.UnixMilli(), int64(deadline))
		}
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("the next waiter never got the lock")
	}
	if q := queueOf(t, rdb, "abandoned"); len(q) != 0 {
		t.Fatalf("queue after the purge: %v", q)
	}
	if err := next.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	fairClean(t, rdb, "abandoned")
}

// A waiter whose client dies while it waits (here: Close) leaves the queue
// at once, and the next waiter does not wait for its deadline.
func TestFairClosedClientLeavesQueue(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s, WithThreadWaitTime(time.Minute))
	gone, _ := newTestClient(t, s)
	ctx := ctxT(t)
	holder := c.Fair("closed", "holder")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- gone.Fair("closed", "w").Lock(ctx, 0) }()
	eventually(t, 5*time.Second, "waiter queued", func() bool { return len(queueOf(t, rdb, "closed")) == 1 })
	if err := gone.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("Lock of a closed client = %v; want ErrClosed", err)
	}
	if q := queueOf(t, rdb, "closed"); len(q) != 0 {
		t.Fatalf("closed waiter still queued: %v", q)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	fairClean(t, rdb, "closed")
}

// RedissonFairLockTest.testConcurrency_MultiInstance_Ordering: waiters of
// many clients that queue concurrently are granted in queue order.
func TestFairFIFOManyClients(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	const clients, perClient = 6, 4
	c, rdb := newTestClient(t, s, WithThreadWaitTime(time.Minute))
	ctx := ctxT(t)
	holder := c.Fair("fifo", "holder")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 3))
	cs := make([]*Client, clients)
	for i := range cs {
		cs[i], _ = newTestClient(t, s, WithThreadWaitTime(time.Minute))
	}
	var (
		mu     sync.Mutex
		grants []string
		wg     sync.WaitGroup
		errs   = make(chan error, clients*perClient)
	)
	for i := range clients * perClient {
		l := cs[rng.IntN(clients)].Fair("fifo", fmt.Sprint(i))
		wg.Go(func() {
			if err := l.Lock(ctx, 0); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			grants = append(grants, l.Field())
			mu.Unlock()
			time.Sleep(time.Millisecond)
			if err := l.Unlock(ctx); err != nil {
				errs <- err
			}
		})
	}
	eventually(t, 10*time.Second, "all waiters queued", func() bool {
		return len(queueOf(t, rdb, "fifo")) == clients*perClient
	})
	queue := queueOf(t, rdb, "fifo")
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if !slices.Equal(grants, queue) {
		t.Fatalf("grant order differs from queue order:\ngrants %v\nqueue  %v", grants, queue)
	}
	fairClean(t, rdb, "fifo")
}

// RedissonFairLockTest.testAcquireFailedNotCalledOnRedisTimeout (#5019):
// waiters whose attempts time out during CLIENT PAUSE (read timeout 200 ms,
// pause 1.5 s) settle the outcome after the pause; no error reaches the
// callers and the queue and deadlines end empty.
func TestFairClientPause(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	admin := redistest.Client(t, s)
	c, _ := newTestClient(t, s, WithThreadWaitTime(time.Minute))
	ctx := ctxT(t)
	holder := c.Fair("pause", "holder")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	opts := s.Options()
	opts.ReadTimeout = 200 * time.Millisecond
	opts.WriteTimeout = 200 * time.Millisecond
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	wc := NewClient(rdb, WithWatchdogTimeout(testWatchdog), WithThreadWaitTime(time.Minute))
	t.Cleanup(func() { _ = wc.Close() })

	type result struct {
		ok  bool
		err error
	}
	results := make(chan result, 2)
	for i := range 2 {
		l := wc.Fair("pause", fmt.Sprint(i))
		go func() {
			ok, err := l.TryLock(ctx, 5*time.Second, time.Second)
			if ok {
				err = l.Unlock(ctx)
			}
			results <- result{ok, err}
		}()
	}
	eventually(t, 5*time.Second, "waiters queued", func() bool { return len(queueOf(t, admin, "pause")) == 2 })
	if err := admin.Do(ctx, "CLIENT", "PAUSE", 1500, "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	unlocked := make(chan struct{})
	go func() { // the holder lets go while Redis is paused (or its hold expires)
		defer close(unlocked)
		_ = holder.Unlock(ctx)
	}()
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Errorf("waiter: %v", r.err)
		}
	}
	<-unlocked
	fairClean(t, admin, "pause")
}

// RedissonFairLockTest.testReentrancy / testGetHoldCount / testUnlockFail /
// testIsHeldByCurrentThread, and Unlock after the lease ran out.
func TestFairReentrancyAndNotOwner(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	other, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Fair("reentry", "t1")
	for range 2 {
		if err := l.Lock(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := l.HoldCount(ctx); n != 2 || err != nil {
		t.Fatalf("HoldCount = %d, %v; want 2", n, err)
	}
	if ok, err := other.Fair("reentry", "t1").TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("same owner token on another client: TryLock = %v, %v; want false", ok, err)
	}
	if err := c.Fair("reentry", "t2").Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("non-owner Unlock = %v; want ErrNotOwner", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if held, err := l.IsHeldByMe(ctx); !held || err != nil {
		t.Fatalf("IsHeldByMe = %v, %v after a partial unlock", held, err)
	}
	if ttl, err := l.RemainTTL(ctx); ttl <= 0 || ttl > testWatchdog || err != nil {
		t.Fatalf("RemainTTL = %v, %v after a partial unlock", ttl, err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if locked, err := l.IsLocked(ctx); locked || err != nil {
		t.Fatalf("IsLocked = %v, %v after the final unlock", locked, err)
	}
	if err := l.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("third Unlock = %v; want ErrNotOwner", err)
	}

	// An explicit lease runs out: Lost closes, Unlock says ErrNotOwner.
	if err := l.Lock(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed after the lease")
	}
	eventually(t, 5*time.Second, "lock expired", func() bool {
		n, _ := rdb.Exists(ctx, "reentry").Result()
		return n == 0
	})
	if err := l.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock after expiry = %v; want ErrNotOwner", err)
	}
	if l.Lost() != nil {
		t.Fatal("Lost is not nil after the hold is gone")
	}
}

// The watchdog renews a fair hold past its timeout; ForceUnlock ends it,
// Lost closes, and the next TryLock(0) gets the lock.
func TestFairWatchdogAndForceUnlock(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Fair("wd", "1")
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	time.Sleep(3 * testWatchdog)
	if held, err := l.IsHeldByMe(ctx); !held || err != nil {
		t.Fatalf("hold gone after 3 watchdog timeouts: %v, %v", held, err)
	}
	if ok, err := c.Fair("wd", "2").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	select {
	case <-lost:
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed after ForceUnlock")
	}
	if ok, err := c.Fair("wd", "2").TryLock(ctx, 0, time.Second); !ok || err != nil {
		t.Fatalf("TryLock after ForceUnlock = %v, %v", ok, err)
	}
	if ok, err := c.Fair("wd", "2").ForceUnlock(ctx); !ok || err != nil {
		t.Fatal(ok, err)
	}
	fairClean(t, rdb, "wd")
}

// Cancelled waiters leave no queue entry, deadline or subscription, and
// contexts cut at random points of Lock leave no hold.
func TestFairCancelLeavesNothing(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	holder := c.Fair("cancel", "h")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		wctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() { errc <- c.Fair("cancel", fmt.Sprint(i)).Lock(wctx, 0) }()
		eventually(t, 5*time.Second, "waiter queued", func() bool { return len(queueOf(t, rdb, "cancel")) == 1 })
		cancel()
		if err := <-errc; !errors.Is(err, ErrNotObtained) || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Lock = %v; want ErrNotObtained joined with Canceled", err)
		}
		if n, _ := rdb.Exists(ctx, QueueName("cancel"), TimeoutName("cancel")).Result(); n != 0 {
			t.Fatalf("cancelled waiter %d left its queue entry or deadline", i)
		}
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(42, 2))
	l := c.Fair("cancel", "t1")
	for range 200 {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(rng.IntN(400))*time.Microsecond)
		err := l.Lock(cctx, 0)
		cancel()
		if err == nil {
			if err := l.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !errors.Is(err, ErrNotObtained) && !errors.Is(err, errCancelledInFlight) {
			t.Fatalf("cancelled Lock = %v; want ErrNotObtained, or an unknown outcome with the request in flight", err)
		}
	}
	time.Sleep(2 * testWatchdog)
	if n, err := rdb.Exists(ctx, "cancel").Result(); n != 0 || err != nil {
		t.Fatalf("orphan hold left (%v)", err)
	}
	fairClean(t, rdb, "cancel")
}

// OnEnqueued is not called on a grant at the first attempt, and is called
// once, before the grant, when the request queued.
func TestFairOnEnqueued(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	var calls atomic.Int64
	l := c.Fair("enq", "1")
	l.OnEnqueued(func(time.Time) { calls.Add(1) })
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 {
		t.Fatal("OnEnqueued called on the fast path")
	}
	holder := c.Fair("enq", "h")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var at atomic.Int64
	l.OnEnqueued(func(t time.Time) { calls.Add(1); at.Store(t.UnixNano()) })
	errc := make(chan error, 1)
	go func() { errc <- l.Lock(ctx, 0) }()
	eventually(t, 5*time.Second, "OnEnqueued called", func() bool { return calls.Load() == 1 })
	if q := queueOf(t, rdb, "enq"); len(q) != 1 || q[0] != l.Field() {
		t.Fatalf("queue %v when OnEnqueued was called", q)
	}
	unlocked := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || at.Load() > unlocked.UnixNano() {
		t.Fatalf("OnEnqueued calls = %d, at %d (unlock at %d)", calls.Load(), at.Load(), unlocked.UnixNano())
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	fairClean(t, rdb, "enq")
}

// TestFairWireLayout checks the fair lock's keys, types, deadlines and
// per-waiter channels against Redisson's (reference §2.1), and plays a dead
// Java waiter's entry by hand.
func TestFairWireLayout(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{QueueName("orders"), "redisson_lock_queue:{orders}"},
		{TimeoutName("orders"), "redisson_lock_timeout:{orders}"},
		{QueueName("a{b}"), "redisson_lock_queue:a{b}"},
		{FairChannelName("orders", "c:7"), "redisson_lock__channel:{orders}:c:7"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	s := redistest.Start(t, faults.ServerConfig{})
	const threadWait = 10 * time.Second
	c, rdb := newTestClient(t, s, WithThreadWaitTime(threadWait))
	c2, _ := newTestClient(t, s, WithThreadWaitTime(threadWait))
	ctx := ctxT(t)
	holder := c.Fair("fw", "1")
	if err := holder.Lock(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if f, _ := rdb.HGetAll(ctx, "fw").Result(); len(f) != 1 || f[c.ID()+":1"] != "1" {
		t.Fatalf("HGETALL fw = %v", f)
	}
	w := c2.Fair("fw", "2")
	before := time.Now().UnixMilli()
	errc := make(chan error, 1)
	go func() { errc <- w.Lock(ctx, 0) }()
	channel := "redisson_lock__channel:{fw}:" + c2.ID() + ":2"
	eventually(t, 5*time.Second, "waiter subscribed to its own channel", func() bool {
		chans, _ := rdb.PubSubChannels(ctx, "*").Result()
		return len(chans) == 1 && chans[0] == channel
	})
	for key, typ := range map[string]string{"redisson_lock_queue:{fw}": "list", "redisson_lock_timeout:{fw}": "zset"} {
		if got, _ := rdb.Type(ctx, key).Result(); got != typ {
			t.Fatalf("TYPE %s = %q; want %s", key, got, typ)
		}
	}
	if q := queueOf(t, rdb, "fw"); len(q) != 1 || q[0] != c2.ID()+":2" {
		t.Fatalf("queue = %v", q)
	}
	score, _ := rdb.ZScore(ctx, "redisson_lock_timeout:{fw}", c2.ID()+":2").Result()
	lo, hi := before+threadWait.Milliseconds(), time.Now().UnixMilli()+time.Minute.Milliseconds()+threadWait.Milliseconds()
	if int64(score) < lo || int64(score) > hi {
		t.Fatalf("deadline %d not in [%d, %d] (now + PTTL + threadWaitTime)", int64(score), lo, hi)
	}
	ps := rdb.Subscribe(ctx, channel)
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	msg, err := ps.ReceiveMessage(ctx)
	if err != nil || msg.Channel != channel || msg.Payload != "0" {
		t.Fatalf("wake-up = %+v, %v; want \"0\" on %s", msg, err, channel)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := w.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	_ = ps.Close()
	fairClean(t, rdb, "fw")
	if keys, _ := rdb.Keys(ctx, "*fw*").Result(); len(keys) != 0 && !allLatches(keys) {
		t.Fatalf("keys left: %v", keys)
	}
}

func allLatches(keys []string) bool {
	for _, k := range keys {
		if !strings.HasPrefix(k, "redisson_unlock_latch:") {
			return false
		}
	}
	return true
}

// RedissonFairLockTest.testAcquireFailedTimeoutDrift_Descrete and
// testLockAcquiredTimeoutDrift_Descrete, on the scores themselves: waiters
// queue wait apart; one that leaves moves those behind it earlier by its
// wait, and a grant moves everyone left earlier by the grantee's wait, but
// never so far that the new head keeps less than its wait after the new
// hold's lease.
func TestFairDeadlineArithmetic(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	rdb := redistest.Client(t, s)
	ctx := ctxT(t)
	const lease, wait = 30000, 5000
	keys := []string{"arith", QueueName("arith"), TimeoutName("arith"), ChannelName("arith")}
	now := time.Now().UnixMilli()
	if vals, err := fairAcquire.Run(ctx, rdb, keys, lease, "holder", wait, now, unlockMessage, publishCommand).Int64Slice(); err != nil || vals[0] != 1 {
		t.Fatalf("holder: %v, %v", vals, err)
	}
	ttls := make([]int64, 5)
	for i := 1; i <= 4; i++ {
		vals, err := fairAcquire.Run(ctx, rdb, keys, lease, fmt.Sprint("w", i), wait, now, unlockMessage, publishCommand).Int64Slice()
		if err != nil || len(vals) != 4 || vals[0] != 0 || vals[3] != 1 {
			t.Fatalf("waiter %d: %v, %v", i, vals, err)
		}
		ttls[i] = vals[1]
	}
	// Redisson's returns: the lock's PTTL, then the predecessor's deadline.
	for i, want := range []int64{0, 30000, 35000, 40000, 45000} {
		if i > 0 && (ttls[i] < want-100 || ttls[i] > want) {
			t.Errorf("waiter %d ttl %d; want %d (-100)", i, ttls[i], want)
		}
	}
	score := func(m string) int64 {
		v, err := rdb.ZScore(ctx, TimeoutName("arith"), m).Result()
		if err != nil {
			t.Fatalf("zscore %s: %v", m, err)
		}
		return int64(v) - now
	}
	before := []int64{0, score("w1"), score("w2"), score("w3"), score("w4")}
	if err := fairAcquireFailed.Run(ctx, rdb, []string{keys[1], keys[2], keys[0], keys[3]},
		"w2", wait, unlockMessage, publishCommand).Err(); err != nil {
		t.Fatal(err)
	}
	if got := []int64{score("w1"), score("w3"), score("w4")}; !slices.Equal(got, []int64{before[1], before[3] - wait, before[4] - wait}) {
		t.Fatalf("after w2 left: %v; want w1 unchanged, w3, w4 moved %d ms earlier (from %v)", got, wait, before)
	}
	rdb.Del(ctx, "arith") // the holder's lease ends
	if vals, err := fairAcquire.Run(ctx, rdb, keys, lease, "w1", wait, now, unlockMessage, publishCommand).Int64Slice(); err != nil || vals[0] != 1 {
		t.Fatalf("w1 at the head of a free lock: %v, %v", vals, err)
	}
	// Granted at the clock it queued with: Redisson's shift (the grantee's
	// wait) unless that left w3 less than its wait after w1's lease.
	shift := max(-wait, lease-before[1])
	if got := []int64{score("w3"), score("w4")}; !slices.Equal(got, []int64{before[3] - wait + shift, before[4] - wait + shift}) {
		t.Fatalf("after w1's grant: %v; want another %d ms (max(-wait, lease - w1's deadline)) from %v", got, shift, before)
	}
	if q := queueOf(t, rdb, "arith"); !slices.Equal(q, []string{"w3", "w4"}) {
		t.Fatalf("queue %v", q)
	}
}

// Redisson's known behaviour (reference §2.7 item 1): a live waiter whose
// deadline passes while the holder keeps renewing is evicted and queues
// again at the tail, behind a later waiter; OnEnqueued reports the new
// place.
func TestFairLiveWaiterEvictedRequeues(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s, WithThreadWaitTime(100*time.Millisecond))
	ctx := ctxT(t)
	holder := c.Fair("evict", "h")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	first := c.Fair("evict", "first")
	var enq atomic.Int64
	first.OnEnqueued(func(time.Time) { enq.Add(1) })
	order := make(chan string, 2)
	errc := make(chan error, 2)
	go func() {
		if err := first.Lock(ctx, time.Second); err != nil {
			errc <- err
			return
		}
		order <- "first"
	}()
	eventually(t, 5*time.Second, "first queued", func() bool { return enq.Load() == 1 })
	// A second waiter with a long wait queues behind first; first's deadline
	// (lock TTL + threadWaitTime) passes while the holder renews.
	second := c.Fair("evict", "second")
	go func() {
		if ok, err := second.TryLock(ctx, 10*time.Second, time.Second); !ok || err != nil {
			errc <- fmt.Errorf("second: %v, %v", ok, err)
			return
		}
		order <- "second"
	}()
	eventually(t, 5*time.Second, "first queued again behind second", func() bool {
		q := queueOf(t, rdb, "evict")
		return enq.Load() >= 2 && slices.Equal(q, []string{second.Field(), first.Field()})
	})
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 2 {
		select {
		case o := <-order:
			got = append(got, o)
		case err := <-errc:
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, []string{"second", "first"}) {
		t.Fatalf("grant order %v; want second, first", got)
	}
	fairClean(t, rdb, "evict")
}
