package impl

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// RedissonSemaphoreTest.testTrySetPermits / testAddPermits / testAcquireRelease.
func TestSemaphorePermits(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	sem := c.Semaphore("sem")

	if ok, err := sem.TryAcquire(ctx, 1, 0); ok || err != nil {
		t.Fatalf("TryAcquire on an unset semaphore = %v, %v; want false", ok, err)
	}
	if ok, err := sem.TrySetPermits(ctx, 3); !ok || err != nil {
		t.Fatalf("TrySetPermits(3) = %v, %v", ok, err)
	}
	if ok, err := sem.TrySetPermits(ctx, 10); ok || err != nil {
		t.Fatalf("second TrySetPermits = %v, %v; want false", ok, err)
	}
	if err := sem.Acquire(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if ok, err := sem.TryAcquire(ctx, 2, 0); ok || err != nil {
		t.Fatalf("TryAcquire(2) with 1 left = %v, %v; want false", ok, err)
	}
	if err := sem.AddPermits(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if ok, err := sem.TryAcquire(ctx, 2, 0); !ok || err != nil {
		t.Fatalf("TryAcquire(2) after AddPermits(1) = %v, %v", ok, err)
	}
	if err := sem.Release(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if n, err := sem.Available(ctx); n != 4 || err != nil {
		t.Fatalf("Available = %d, %v; want 4", n, err)
	}
	// The key layout is Redisson's: the permits are the string at name.
	if v, err := rdb.Get(ctx, "sem").Result(); v != "4" || err != nil {
		t.Fatalf("GET sem = %q, %v", v, err)
	}
	if err := sem.AddPermits(ctx, -4); err != nil {
		t.Fatal(err)
	}
	if n, _ := sem.Available(ctx); n != 0 {
		t.Fatalf("Available after AddPermits(-4) = %d", n)
	}
	if err := sem.Acquire(ctx, 0); !errors.Is(err, errPermits) {
		t.Fatalf("Acquire(0) = %v", err)
	}
}

// A blocked acquirer is woken by Release, AddPermits and TrySetPermits
// (their messages), well before the watchdog-timeout poll.
func TestSemaphoreWakeups(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s, WithWatchdogTimeout(time.Minute))
	other, _ := newTestClient(t, s)
	ctx := ctxT(t)
	for _, wake := range []struct {
		name string
		do   func(sem *RSemaphore) error
	}{
		{"trySetPermits", func(sem *RSemaphore) error { _, err := sem.TrySetPermits(ctx, 2); return err }},
		{"release", func(sem *RSemaphore) error { return sem.Release(ctx, 2) }},
		{"addPermits", func(sem *RSemaphore) error { return sem.AddPermits(ctx, 2) }},
	} {
		t.Run(wake.name, func(t *testing.T) {
			name := "wake-" + wake.name
			if wake.name != "trySetPermits" {
				if _, err := other.Semaphore(name).TrySetPermits(ctx, 0); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() { done <- c.Semaphore(name).Acquire(ctx, 2) }()
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			if err := wake.do(other.Semaphore(name)); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Acquire not woken by %s", wake.name)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("woken after %v", d)
			}
		})
	}
}

// N goroutines share 2 permits; at no time do more than 2 hold one.
func TestSemaphoreBoundsHolders(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	ctx := ctxT(t)
	c, _ := newTestClient(t, s)
	if _, err := c.Semaphore("bound").TrySetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	var (
		mu            sync.Mutex
		holding, peak int
		wg            sync.WaitGroup
		errs          = make(chan error, 6)
	)
	for i := range 6 {
		cl, _ := newTestClient(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem := cl.Semaphore("bound")
			for range 5 {
				if err := sem.Acquire(ctx, 1); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				holding++
				peak = max(peak, holding)
				mu.Unlock()
				time.Sleep(time.Duration(i) * time.Millisecond)
				mu.Lock()
				holding--
				mu.Unlock()
				if err := sem.Release(ctx, 1); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if peak > 2 {
		t.Fatalf("%d holders at once with 2 permits", peak)
	}
}

func TestSemaphoreTryAcquireWaitAndCancel(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s)
	ctx := ctxT(t)
	sem := c.Semaphore("tw")
	if _, err := sem.TrySetPermits(ctx, 0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if ok, err := sem.TryAcquire(ctx, 1, 150*time.Millisecond); ok || err != nil {
		t.Fatalf("TryAcquire = %v, %v", ok, err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
		t.Fatalf("TryAcquire waited %v; want about 150ms", d)
	}
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := sem.Acquire(cctx, 1); !errors.Is(err, ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire past ctx = %v", err)
	}
	if n, _ := sem.Available(ctx); n != 0 {
		t.Fatalf("Available = %d after failed acquires", n)
	}
}
