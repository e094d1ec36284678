package impl

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// RedissonLockTest.testGetHoldCount / testReentrancy / testUnlockFail.
func TestReentrantHoldCount(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s)
	other, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("hold", "t1")

	wantCount := func(want int) {
		t.Helper()
		n, err := l.HoldCount(ctx)
		if err != nil || n != want {
			t.Fatalf("HoldCount = %d, %v; want %d", n, err, want)
		}
	}
	wantCount(0)
	for range 2 {
		if err := l.Lock(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	wantCount(2)
	if ok, err := other.Reentrant("hold", "t1").TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("other client's TryLock = %v, %v; want false (same owner token, different client id)", ok, err)
	}
	if ok, err := c.Reentrant("hold", "t2").TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("other owner's TryLock = %v, %v; want false", ok, err)
	}
	if err := c.Reentrant("hold", "t2").Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("non-owner Unlock = %v; want ErrNotOwner", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wantCount(1)
	if held, err := l.IsHeldByMe(ctx); !held || err != nil {
		t.Fatalf("IsHeldByMe = %v, %v after a partial unlock", held, err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wantCount(0)
	if locked, err := l.IsLocked(ctx); locked || err != nil {
		t.Fatalf("IsLocked = %v, %v after the final unlock", locked, err)
	}
	if err := l.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("third Unlock = %v; want ErrNotOwner", err)
	}
}

// RedissonLockTest.testRemainTimeToLive / testRemainTimeToLive2.
func TestReentrantTTL(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("ttl", "t1")

	inRange := func(lo, hi time.Duration) {
		t.Helper()
		ttl, err := l.RemainTTL(ctx)
		if err != nil || ttl < lo || ttl > hi {
			t.Fatalf("RemainTTL = %v, %v; want in [%v, %v]", ttl, err, lo, hi)
		}
	}
	for range 3 {
		if err := l.Lock(ctx, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	// Let some of the lease run so the re-arm is visible.
	time.Sleep(50 * time.Millisecond)
	for range 2 {
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	inRange(9*time.Second, 10*time.Second)
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	inRange(-2*time.Millisecond, -2*time.Millisecond)

	if err := l.Lock(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	inRange(time.Hour-time.Second, time.Hour)
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	inRange(1, testWatchdog)
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// RedissonLockTest.testTryLockWait: TryLock against a watchdog-held lock
// returns false after the wait, not before (and not much later).
func TestReentrantTryLockWaitBounds(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	holder, _ := newTestClient(t, s)
	waiter, _ := newTestClient(t, s)
	ctx := ctxT(t)
	h := holder.Reentrant("wait", "h")
	if err := h.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	const wait = 700 * time.Millisecond // > 2 watchdog periods of renewal
	start := time.Now()
	ok, err := waiter.Reentrant("wait", "w").TryLock(ctx, wait, 0)
	took := time.Since(start)
	if ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false", ok, err)
	}
	if took < wait || took > wait+2*time.Second {
		t.Fatalf("TryLock took %v; want about %v", took, wait)
	}
	if ok, err := waiter.Reentrant("wait", "w").TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock(0) = %v, %v; want false", ok, err)
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// RedissonLockTest.testExpire: an explicit lease runs out, another owner
// gets the lock, and the first owner's Unlock answers ErrNotOwner.
func TestReentrantExpireThenNotOwner(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c1, _ := newTestClient(t, s)
	c2, _ := newTestClient(t, s)
	ctx := ctxT(t)
	a := c1.Reentrant("expire", "a")
	b := c2.Reentrant("expire", "b")
	const lease = 200 * time.Millisecond
	if err := a.Lock(ctx, lease); err != nil {
		t.Fatal(err)
	}
	lost := a.Lost()
	start := time.Now()
	if err := b.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > lease+2*time.Second {
		t.Fatalf("second owner waited %v for a %v lease", took, lease)
	}
	select {
	case <-lost:
	case <-time.After(time.Second):
		t.Fatal("Lost not closed after the lease ran out")
	}
	if err := a.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("expired owner's Unlock = %v; want ErrNotOwner", err)
	}
	if held, err := b.IsHeldByMe(ctx); !held || err != nil {
		t.Fatalf("new owner's hold disturbed: %v, %v", held, err)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// RedissonLockTest.testAutoExpire: a client closed without unlocking leaves a
// lock that expires within the watchdog timeout.
func TestReentrantAutoExpireAfterClose(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	rdb := redistest.Client(t, s)
	c := NewClient(rdb, WithWatchdogTimeout(testWatchdog))
	ctx := ctxT(t)
	l := c.Reentrant("auto", "t1")
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	// Renewal keeps it past the timeout first.
	time.Sleep(2 * testWatchdog)
	if n, _ := rdb.Exists(ctx, "auto").Result(); n != 1 {
		t.Fatal("watchdog did not keep the lock")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	closedAt := time.Now()
	eventually(t, testWatchdog+time.Second, "lock expires after Close", func() bool {
		n, _ := rdb.Exists(ctx, "auto").Result()
		return n == 0
	})
	if d := time.Since(closedAt); d > testWatchdog+time.Second {
		t.Fatalf("expired after %v", d)
	}
	select {
	case <-lost:
	default:
		t.Fatal("Lost not closed by Client.Close")
	}
	if err := l.Lock(ctx, 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("Lock on a closed client = %v; want ErrClosed", err)
	}
}

// RedissonLockTest.testForceUnlock.
func TestReentrantForceUnlock(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("force", "t1")
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	if ok, err := c.Reentrant("force", "other").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	if locked, err := c.Reentrant("force", "fresh").IsLocked(ctx); locked || err != nil {
		t.Fatalf("IsLocked = %v, %v after ForceUnlock", locked, err)
	}
	if ok, err := l.ForceUnlock(ctx); ok || err != nil {
		t.Fatalf("second ForceUnlock = %v, %v; want false", ok, err)
	}
	// The first handle's hold is reported lost.
	eventually(t, 2*testWatchdog, "Lost after force unlock", func() bool {
		select {
		case <-lost:
			return true
		default:
			return false
		}
	})
}

// RedissonLockTest.testSubscriptionsPerConnection: contention over two lock
// names on one client each, then PUBSUB CHANNELS must be empty.
func TestReentrantNoSubscriptionsLeft(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	ctx := ctxT(t)
	var clients []*Client
	for range 4 {
		c, _ := newTestClient(t, s)
		clients = append(clients, c)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			l := clients[i%len(clients)].Reentrant(fmt.Sprintf("subs-%d", i%2), fmt.Sprint(i))
			for range 20 {
				if err := l.Lock(ctx, 0); err != nil {
					errs <- err
					return
				}
				time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
				if err := l.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rdb := redistest.Client(t, s)
	eventually(t, 5*time.Second, "PUBSUB CHANNELS empty", func() bool {
		chans, err := rdb.PubSubChannels(ctx, "*").Result()
		return err == nil && len(chans) == 0
	})
}

// RedissonLockTest.testConcurrencyLoop_MultiInstance: 16 clients x 100
// lock / read-modify-write / unlock cycles lose no increment.
func TestReentrantConcurrencyMultiInstance(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	ctx := ctxT(t)
	counter := redistest.Client(t, s)
	const clients, iterations = 16, 100
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		c, _ := newTestClient(t, s)
		wg.Go(func() {
			l := c.Reentrant("concurrency", fmt.Sprint(i))
			for range iterations {
				if err := l.Lock(ctx, 0); err != nil {
					errs <- err
					return
				}
				// Non-atomic read-modify-write: only mutual exclusion keeps it exact.
				n, err := counter.Get(ctx, "counter").Int()
				if err != nil && !errors.Is(err, redis.Nil) {
					errs <- err
					return
				}
				if err := counter.Set(ctx, "counter", n+1, 0).Err(); err != nil {
					errs <- err
					return
				}
				if err := l.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, err := counter.Get(ctx, "counter").Int(); n != clients*iterations || err != nil {
		t.Fatalf("counter = %d, %v; want %d", n, err, clients*iterations)
	}
}

// RedissonLockExpirationRenewalTest.testLockReentrantRenew and the Redisson
// #7272 race: the watchdog keeps a lock past many timeouts, and after the
// final unlock nothing renews this owner's field any more.
func TestReentrantWatchdogRenewsAndStops(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("wd", "t1")
	for range 2 {
		if err := l.Lock(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Unlock(ctx); err != nil { // reentrant unlock keeps renewal on
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * testWatchdog)
	for time.Now().Before(deadline) {
		if held, err := l.IsHeldByMe(ctx); !held || err != nil {
			t.Fatalf("lost the lock while renewed: %v, %v", held, err)
		}
		time.Sleep(testWatchdog / 4)
	}
	select {
	case <-l.Lost():
		t.Fatal("Lost closed while renewal worked")
	default:
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// Put the owner's field back by hand with a short TTL: a watchdog still
	// running would renew it; a stopped one lets it expire.
	if err := rdb.HSet(ctx, "wd", l.Field(), 1).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.PExpire(ctx, "wd", testWatchdog/2).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*testWatchdog, "field expires after unlock (no renewal)", func() bool {
		n, _ := rdb.Exists(ctx, "wd").Result()
		return n == 0
	})
}

// RedissonLockExpirationRenewalTest.testLockAfterTimeout: a restart without
// persistence loses the lock; the holder learns it (Lost, ErrNotOwner), and
// locking, renewal and waiting work again afterwards.
func TestReentrantAfterRedisRestart(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{Persistence: faults.PersistNone})
	c, _ := newTestClient(t, s)
	c2, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("restart", "t1")
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	// A waiter on another client (subscribed through the hub) rides through
	// the restart.
	waiterDone := make(chan error, 1)
	go func() {
		w := c2.Reentrant("restart", "w")
		err := w.Lock(ctx, 0)
		if err == nil {
			err = w.Unlock(ctx)
		}
		waiterDone <- err
	}()
	time.Sleep(testWatchdog / 2)
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	// The waiter may take the (now free) lock first, so the original
	// holder's renewal finds its field gone: Lost either way.
	select {
	case <-l.Lost():
	case <-time.After(5 * testWatchdog):
		t.Fatal("Lost not closed after the restart lost the lock")
	}
	if err := <-waiterDone; err != nil {
		t.Fatalf("waiter across restart: %v", err)
	}
	if err := l.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock after the lock was lost = %v; want ErrNotOwner", err)
	}
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * testWatchdog)
	if held, err := l.IsHeldByMe(ctx); !held || err != nil {
		t.Fatalf("renewal after restart: held = %v, %v", held, err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// RedissonLockTest.testLockIsNotRenewedAfterInterruptedTryLock, and the same
// for contexts ending at random points of an acquire (before, during and
// after the script): no renewed orphan hold may survive.
func TestReentrantCancelledAcquireLeavesNoOrphan(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)

	// A waiter interrupted while the lock is held.
	holder := c.Reentrant("orphan", "h")
	if err := holder.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	// Its first attempt is refused and it waits, unless a loaded machine
	// keeps that attempt's reply past the deadline: an unknown outcome.
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	ok, err := c.Reentrant("orphan", "w").TryLock(wctx, time.Minute, 0)
	cancel()
	if ok || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotObtained) && !errors.Is(err, errCancelledInFlight) {
		t.Fatalf("interrupted TryLock = %v, %v; want ErrNotObtained (or an unknown outcome) joined with DeadlineExceeded", ok, err)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}

	// Contexts cut at random points of Lock on a free lock.
	rng := rand.New(rand.NewPCG(42, 1))
	l := c.Reentrant("orphan", "t1")
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
	if n, err := rdb.Exists(ctx, "orphan").Result(); n != 0 || err != nil {
		f, _ := rdb.HGetAll(ctx, "orphan").Result()
		t.Fatalf("orphan hold left: %v (%v)", f, err)
	}
}

// TestReentrantUnlockLatchIdempotent runs the unlock script twice with the
// same latch, as a retried unlock does: only one hold is released.
func TestReentrantUnlockLatchIdempotent(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("latch", "t1")
	for range 2 {
		if err := l.Lock(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	latch := UnlockLatchName("latch", newRequestID())
	keys := []string{"latch", ChannelName("latch"), latch}
	for i := range 2 {
		n, err := reentrantUnlock.Run(ctx, rdb, keys, unlockMessage, 60000, l.Field(), publishCommand, 10000).Int64()
		if n != 0 || err != nil {
			t.Fatalf("unlock attempt %d = %d, %v; want 0 (still held)", i, n, err)
		}
	}
	if n, _ := l.HoldCount(ctx); n != 1 {
		t.Fatalf("hold count after a repeated unlock = %d; want 1", n)
	}
	if v, _ := rdb.Get(ctx, latch).Result(); v != "0" {
		t.Fatalf("latch = %q; want \"0\"", v)
	}
	if ttl, _ := rdb.PTTL(ctx, latch).Result(); ttl <= 0 || ttl > 10*time.Second {
		t.Fatalf("latch TTL = %v; want (0, 10s]", ttl)
	}
	other := c.Reentrant("latch", "other")
	if err := other.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("non-owner = %v", err)
	}
}

// NewClient reports a go-redis client that retries commands.
func TestNewClientRejectsRetries(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	c := NewClient(rdb)
	defer c.Close()
	if !errors.Is(c.Err(), ErrRetriesEnabled) {
		t.Fatalf("Err = %v; want ErrRetriesEnabled", c.Err())
	}
	if err := c.Reentrant("x", "y").Lock(context.Background(), 0); !errors.Is(err, ErrRetriesEnabled) {
		t.Fatalf("Lock = %v; want ErrRetriesEnabled", err)
	}
	if _, err := ReentrantMaker()(context.Background(), rdb); !errors.Is(err, ErrRetriesEnabled) {
		t.Fatalf("maker = %v; want ErrRetriesEnabled", err)
	}
	ok := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer ok.Close()
	c2 := NewClient(ok)
	defer c2.Close()
	if c2.Err() != nil {
		t.Fatalf("MaxRetries -1: Err = %v", c2.Err())
	}
}

// A paused Redis (SIGSTOP) answers no renewal: Lost closes once the lease
// could have run out, and not before. After the resume, Unlock releases the
// hold if it survived or answers ErrNotOwner.
func TestReentrantLostWhenRedisPaused(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("paused", "t1")
	lockedAt := time.Now()
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	case <-time.After(testWatchdog + 2*time.Second):
		_ = s.Resume()
		t.Fatal("Lost not closed while Redis was paused past the lease")
	}
	if d := time.Since(lockedAt); d < testWatchdog {
		t.Errorf("Lost %v after Lock: before the %v lease could have run out", d, testWatchdog)
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	err := l.Unlock(ctx)
	if err != nil && !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock after resume = %v", err)
	}
}
