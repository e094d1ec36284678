package impl

import (
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// RedissonPermitExpirableSemaphoreTest.testReleaseExpired /
// testExpiration / testBlockingAcquire.
func TestPermitSemaphoreLeases(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	sem := c.PermitSemaphore("ps")
	if ok, err := sem.TrySetPermits(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	id, ok, err := sem.TryAcquire(ctx, 0, 150*time.Millisecond)
	if !ok || err != nil || len(id) != 32 {
		t.Fatalf("TryAcquire = %q, %v, %v", id, ok, err)
	}
	// Redisson's layout: the id's 16 raw bytes in {ps}:timeout.
	if n, err := rdb.ZCard(ctx, "{ps}:timeout").Result(); n != 1 || err != nil {
		t.Fatalf("ZCARD {ps}:timeout = %d, %v", n, err)
	}
	if _, ok, _ := sem.TryAcquire(ctx, 0, 0); ok {
		t.Fatal("a second permit out of 1")
	}
	// A waiter is granted when the lease runs out (the nearest lease's end).
	start := time.Now()
	id2, err := c.PermitSemaphore("ps").Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("granted %v after the lease's end", d)
	}
	// The expired permit's release reports failure.
	if err := sem.Release(ctx, id); !errors.Is(err, ErrPermitNotHeld) {
		t.Fatalf("Release of the expired permit = %v; want ErrPermitNotHeld", err)
	}
	if err := sem.Release(ctx, id2); err != nil {
		t.Fatal(err)
	}
	if err := sem.Release(ctx, id2); !errors.Is(err, ErrPermitNotHeld) {
		t.Fatalf("second Release = %v; want ErrPermitNotHeld", err)
	}
	if n, err := sem.Available(ctx); n != 1 || err != nil {
		t.Fatalf("Available = %d, %v; want 1", n, err)
	}
	if err := sem.AddPermits(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := sem.Available(ctx); n != 2 {
		t.Fatalf("Available after AddPermits(1) = %d", n)
	}
	if err := sem.Release(ctx, "not-hex"); !errors.Is(err, ErrPermitNotHeld) {
		t.Fatalf("Release(garbage) = %v", err)
	}
}

// A blocked acquirer is woken by a release on another client.
func TestPermitSemaphoreWakeup(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s, WithWatchdogTimeout(time.Minute))
	other, _ := newTestClient(t, s)
	ctx := ctxT(t)
	if _, err := c.PermitSemaphore("pw").TrySetPermits(ctx, 1); err != nil {
		t.Fatal(err)
	}
	id, err := other.PermitSemaphore("pw").Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.PermitSemaphore("pw").Acquire(ctx, 0); done <- err }()
	time.Sleep(100 * time.Millisecond)
	if err := other.PermitSemaphore("pw").Release(ctx, id); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not woken by the release")
	}
}

// RedissonCountDownLatchTest.testAwaitTimeout / testCountDown / testTrySetCount.
func TestLatch(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s, WithWatchdogTimeout(time.Minute))
	other, _ := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Latch("latch")
	if ok, err := l.Await(ctx, 0); !ok || err != nil {
		t.Fatalf("Await on an unset latch = %v, %v; want open", ok, err)
	}
	if ok, err := l.TrySetCount(ctx, 2); !ok || err != nil {
		t.Fatalf("TrySetCount = %v, %v", ok, err)
	}
	if ok, err := l.TrySetCount(ctx, 5); ok || err != nil {
		t.Fatalf("second TrySetCount = %v, %v; want false", ok, err)
	}
	if ok, err := l.Await(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("Await at count 2 = %v, %v; want false", ok, err)
	}
	done := make(chan bool, 1)
	go func() { ok, _ := l.Await(ctx, 10*time.Second); done <- ok }()
	for range 2 {
		if err := other.Latch("latch").CountDown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("Await = false after the count reached 0")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Await not woken")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("woken after %v", d)
	}
	if n, err := l.Count(ctx); n != 0 || err != nil {
		t.Fatalf("Count = %d, %v", n, err)
	}
	// Counting an open latch down is a no-op; it can be set again.
	if err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.TrySetCount(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetCount after opening = %v, %v", ok, err)
	}
}
