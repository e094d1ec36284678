package impl_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
)

func simpleRedis(t *testing.T) *redis.Client {
	t.Helper()
	return redistest.Client(t, redistest.Start(t, faults.ServerConfig{}))
}

// waitSimpleGone polls until key no longer exists.
func waitSimpleGone(t *testing.T, rdb *redis.Client, key string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n, err := rdb.Exists(t.Context(), key).Result()
		if err != nil {
			t.Fatalf("EXISTS %s: %v", key, err)
		}
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("key %s still exists after 10 s", key)
}

func TestSimpleMutualExclusion(t *testing.T) {
	rdb := simpleRedis(t)
	var lockers []impl.Locker
	for w := range 8 {
		lockers = append(lockers, impl.NewSimple(rdb, "simple-mx", fmt.Sprintf("w%d", w), impl.WithSimpleSeed(uint64(w))))
	}
	var inside, overlap atomic.Int32
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	lost, err := impl.LostUpdates(ctx, lockers, 40, func(ctx context.Context, l impl.Locker, _ int, section func()) error {
		if err := l.Lock(ctx, 10*time.Second); err != nil {
			return err
		}
		if inside.Add(1) > 1 {
			overlap.Add(1)
		}
		section()
		inside.Add(-1)
		return l.Unlock(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := overlap.Load(); got != 0 || lost != 0 {
		t.Errorf("%d overlapping critical sections, %d updates lost", got, lost)
	}
}

func TestSimpleUnlockAfterExpiryIsNotOwner(t *testing.T) {
	rdb := simpleRedis(t)
	ctx := t.Context()
	a := impl.NewSimple(rdb, "simple-cad", "a")
	b := impl.NewSimple(rdb, "simple-cad", "b")
	if err := a.Lock(ctx, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitSimpleGone(t, rdb, "simple-cad")
	if err := b.Lock(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	before, err := rdb.Get(ctx, "simple-cad").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("expired holder's Unlock = %v, want ErrNotOwner", err)
	}
	after, err := rdb.Get(ctx, "simple-cad").Result()
	if err != nil {
		t.Fatalf("new holder's key is gone after the expired holder's Unlock: %v", err)
	}
	if before != after {
		t.Fatalf("key changed from %q to %q", before, after)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatalf("new holder's Unlock: %v", err)
	}
	if err := b.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("second Unlock = %v, want ErrNotOwner", err)
	}
}

func TestSimpleTryLockBounds(t *testing.T) {
	rdb := simpleRedis(t)
	ctx := t.Context()
	a := impl.NewSimple(rdb, "simple-try", "a")
	b := impl.NewSimple(rdb, "simple-try", "b")
	if err := a.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	ttl, err := rdb.PTTL(ctx, "simple-try").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 10*time.Second || ttl > impl.DefaultSimpleLease {
		t.Errorf("lease 0 gave PTTL %v, want the default %v", ttl, impl.DefaultSimpleLease)
	}

	if ok, err := b.TryLock(ctx, 0, time.Second); ok || err != nil {
		t.Fatalf("TryLock(0) on a held lock = %v, %v; want false, nil", ok, err)
	}
	const wait = 150 * time.Millisecond
	start := time.Now()
	ok, err := b.TryLock(ctx, wait, time.Second)
	if ok || err != nil {
		t.Fatalf("TryLock(%v) on a held lock = %v, %v; want false, nil", wait, ok, err)
	}
	if el := time.Since(start); el < wait || el > wait+5*time.Second {
		t.Errorf("TryLock(%v) returned after %v", wait, el)
	}
	// Not reentrant: the holder's own TryLock fails like a contender's.
	if ok, err := a.TryLock(ctx, 0, time.Second); ok || err != nil {
		t.Fatalf("holder's second TryLock = %v, %v; want false, nil (not reentrant)", ok, err)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(ctx, 0, 100*time.Millisecond); !ok || err != nil {
		t.Fatalf("TryLock(0) on a free lock = %v, %v; want true, nil", ok, err)
	}
	// The waiter gets the lock once the holder's lease runs out.
	if ok, err := a.TryLock(ctx, 10*time.Second, time.Second); !ok || err != nil {
		t.Fatalf("TryLock across the holder's expiry = %v, %v; want true, nil", ok, err)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSimpleLockContextEnd(t *testing.T) {
	rdb := simpleRedis(t)
	a := impl.NewSimple(rdb, "simple-ctx", "a")
	b := impl.NewSimple(rdb, "simple-ctx", "b")
	if err := a.Lock(t.Context(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := b.Lock(ctx, time.Second)
	if !errors.Is(err, impl.ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock past ctx = %v, want ErrNotObtained joined with DeadlineExceeded", err)
	}
	if err := b.Unlock(t.Context()); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("Unlock without a hold = %v, want ErrNotOwner", err)
	}
	if err := a.Unlock(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestSimpleMakerClose(t *testing.T) {
	// No Redis needed: a closed Maker's handles fail before any I/O.
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rdb.Close()
	m, err := impl.SimpleMaker()(t.Context(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	l := m.NewLocker("x", "a")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(t.Context(), time.Second); !errors.Is(err, impl.ErrClosed) {
		t.Fatalf("Lock after Close = %v, want ErrClosed", err)
	}
	if err := l.Unlock(t.Context()); !errors.Is(err, impl.ErrClosed) {
		t.Fatalf("Unlock after Close = %v, want ErrClosed", err)
	}
}
