package permits

import (
	"context"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// javaOrSkip returns Redisson's semaphore subject, or skips without it.
func javaOrSkip(t *testing.T) Subject {
	t.Helper()
	return subjectOrSkip(t, "redisson-semaphore")
}

// openOn opens subj on s, closed in t.Cleanup.
func openOn(t *testing.T, s *faults.Server, subj Subject) impl.SemaphoreMaker {
	t.Helper()
	return openSide(t, s, subj).(impl.SemaphoreMaker)
}

// A waiter of either side is woken by the other side's release and
// addPermits: the Go port and Redisson share keys and channel.
func TestSemaphoreInteropWakeups(t *testing.T) {
	java := javaOrSkip(t)
	port, _ := Lookup("semaphore")
	s := redistest.Start(t, faults.ServerConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sides := map[string]impl.SemaphoreMaker{"go": openOn(t, s, port), "java": openOn(t, s, java)}
	for _, c := range []struct{ waiter, waker, how string }{
		{"java", "go", "release"}, {"java", "go", "add"}, {"go", "java", "release"}, {"go", "java", "add"},
	} {
		name := "interop-" + c.waiter + "-" + c.how
		waiter, waker := sides[c.waiter].NewSemaphore(name), sides[c.waker].NewSemaphore(name)
		if ok, err := waker.TrySetPermits(ctx, 0); !ok || err != nil {
			t.Fatalf("%s: TrySetPermits = %v, %v", name, ok, err)
		}
		if ok, err := waiter.TryAcquire(ctx, 2, 0); ok || err != nil {
			t.Fatalf("%s: TryAcquire with none = %v, %v", name, ok, err)
		}
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			ok, err := waiter.TryAcquire(ctx, 2, 20*time.Second)
			if err == nil && !ok {
				err = context.DeadlineExceeded
			}
			done <- err
		}()
		time.Sleep(300 * time.Millisecond)
		woke := time.Now()
		var err error
		if c.how == "release" {
			err = waker.Release(ctx, 2)
		} else {
			err = waker.AddPermits(ctx, 2)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("%s waiting, %s %s: %v after %v", c.waiter, c.waker, c.how, err, time.Since(start))
		}
		if d := time.Since(woke); d > 3*time.Second {
			t.Fatalf("%s woken %v after %s's %s", c.waiter, d, c.waker, c.how)
		}
		if n, err := waker.Available(ctx); n != 0 || err != nil {
			t.Fatalf("%s: Available = %d, %v after the grant", name, n, err)
		}
	}
}

// Redisson's RSemaphore is valid without faults (one seed in make test;
// LOCKCHECK_SEM_VALID_SEEDS more), and so is a mixed fleet of it and the
// Go port on one semaphore (one seed). The runs go one at a time: 24 JVMs
// starting at once on a busy machine miss their connect timeout. Redisson's
// own runs have no handover round: there its waiter misses a release's
// wake-up now and then, in the pinned release too (results/log/rediscovery.md,
// the semaphore bugs; the repro refused 1 of 6,300 handovers on 3.52.0),
// which would make this test flaky rather than wrong.
func TestRedissonSemaphoreValid(t *testing.T) {
	t.Parallel() // a redis-server of its own; the runs mostly wait
	javaOrSkip(t)
	s := redistest.Start(t, faults.ServerConfig{})
	validRuns(t, s, "redisson-semaphore", seedsEnv(t, "LOCKCHECK_SEM_VALID_SEEDS", 1), model.CheckLiveness, noHandovers)
	validRuns(t, s, "semaphore+redisson-semaphore", 1, model.CheckLiveness)
}
