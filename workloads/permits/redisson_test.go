package permits

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// subjectOrSkip returns subject name, or skips where it cannot run (as
// javaOrSkip: no JVM in -short, no java or driver build here).
func subjectOrSkip(t *testing.T, name string) Subject {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Skip(err)
	}
	return s
}

// openSide opens subj's client of one process on s, closed in t.Cleanup.
func openSide(t *testing.T, s *faults.Server, subj Subject) any {
	t.Helper()
	rdb := redis.NewClient(s.Options())
	m, err := subj.open(context.Background(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = m.Close()
		_ = rdb.Close()
	})
	return m
}

// A permit taken by either side is released by the other, a second
// release of it is refused, and an expired one's release is refused: the
// Go port and Redisson's RPermitExpirableSemaphore share keys and ids.
func TestPermitSemaphoreInterop(t *testing.T) {
	java := subjectOrSkip(t, "redisson-permit-semaphore")
	port, _ := Lookup("permit-semaphore")
	s := redistest.Start(t, faults.ServerConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sides := map[string]permitMaker{"go": openSide(t, s, port).(permitMaker), "java": openSide(t, s, java).(permitMaker)}
	for _, c := range []struct{ taker, releaser string }{{"go", "java"}, {"java", "go"}} {
		name := "psem-interop-" + c.taker
		taker, releaser := sides[c.taker].NewPermitSemaphore(name), sides[c.releaser].NewPermitSemaphore(name)
		if ok, err := taker.TrySetPermits(ctx, 1); !ok || err != nil {
			t.Fatalf("%s: TrySetPermits = %v, %v", name, ok, err)
		}
		id, ok, err := taker.TryAcquire(ctx, 0, time.Minute)
		if !ok || err != nil {
			t.Fatalf("%s: %s's TryAcquire = %q, %v, %v", name, c.taker, id, ok, err)
		}
		if _, ok, err := releaser.TryAcquire(ctx, 100*time.Millisecond, time.Minute); ok || err != nil {
			t.Fatalf("%s: %s took a second permit of one: %v, %v", name, c.releaser, ok, err)
		}
		if err := releaser.Release(ctx, id); err != nil {
			t.Fatalf("%s: %s's Release of %s's permit: %v", name, c.releaser, c.taker, err)
		}
		if err := taker.Release(ctx, id); !errors.Is(err, impl.ErrPermitNotHeld) {
			t.Fatalf("%s: a second Release = %v, want ErrPermitNotHeld", name, err)
		}
		id, ok, err = taker.TryAcquire(ctx, 0, 200*time.Millisecond)
		if !ok || err != nil {
			t.Fatalf("%s: TryAcquire with a lease = %v, %v", name, ok, err)
		}
		time.Sleep(400 * time.Millisecond)
		if n, err := releaser.Available(ctx); n != 1 || err != nil {
			t.Fatalf("%s: Available after the lease = %d, %v; want 1", name, n, err)
		}
		if err := releaser.Release(ctx, id); !errors.Is(err, impl.ErrPermitNotHeld) {
			t.Fatalf("%s: Release of an expired permit = %v, want ErrPermitNotHeld", name, err)
		}
	}
}

// A waiter of either side is woken by the other side's last countDown,
// and both read one count: the Go port and Redisson's RCountDownLatch
// share key and channel.
func TestLatchInterop(t *testing.T) {
	java := subjectOrSkip(t, "redisson-latch")
	port, _ := Lookup("latch")
	s := redistest.Start(t, faults.ServerConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sides := map[string]latchMaker{"go": openSide(t, s, port).(latchMaker), "java": openSide(t, s, java).(latchMaker)}
	for _, c := range []struct{ waiter, counter string }{{"java", "go"}, {"go", "java"}} {
		name := "latch-interop-" + c.waiter
		waiter, counter := sides[c.waiter].NewLatch(name), sides[c.counter].NewLatch(name)
		if ok, err := counter.TrySetCount(ctx, 2); !ok || err != nil {
			t.Fatalf("%s: TrySetCount = %v, %v", name, ok, err)
		}
		if ok, err := waiter.TrySetCount(ctx, 5); ok || err != nil {
			t.Fatalf("%s: TrySetCount on a set latch = %v, %v", name, ok, err)
		}
		if ok, err := waiter.Await(ctx, 100*time.Millisecond); ok || err != nil {
			t.Fatalf("%s: Await of a closed latch = %v, %v", name, ok, err)
		}
		if err := counter.CountDown(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := waiter.Count(ctx); n != 1 || err != nil {
			t.Fatalf("%s: %s's Count = %d, %v; want 1", name, c.waiter, n, err)
		}
		// One request at a time per owner (impl/driver's package doc):
		// nothing more is asked of the waiter while it awaits.
		done := make(chan error, 1)
		go func() {
			ok, err := waiter.Await(ctx, 20*time.Second)
			if err == nil && !ok {
				err = errors.New("not opened")
			}
			done <- err
		}()
		time.Sleep(300 * time.Millisecond)
		opened := time.Now()
		if err := counter.CountDown(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("%s waiting, %s counting down: %v", c.waiter, c.counter, err)
		}
		if d := time.Since(opened); d > 3*time.Second {
			t.Fatalf("%s woken %v after %s's last countDown", c.waiter, d, c.counter)
		}
	}
}

// Redisson's RPermitExpirableSemaphore and RCountDownLatch are valid
// without faults (one seed each in make test; LOCKCHECK_SEM_VALID_SEEDS
// more), and so are the mixed fleets of each and its Go port (one seed).
// One run at a time, and the permit semaphore's without the handover
// round, as TestRedissonSemaphoreValid (its waiters share RSemaphore's
// wake-up path).
func TestRedissonPermitsValid(t *testing.T) {
	t.Parallel() // a redis-server of its own; the runs mostly wait
	subjectOrSkip(t, "redisson-permit-semaphore")
	s := redistest.Start(t, faults.ServerConfig{})
	seeds := seedsEnv(t, "LOCKCHECK_SEM_VALID_SEEDS", 1)
	validRuns(t, s, "redisson-permit-semaphore", seeds, model.CheckLinearizable, noHandovers)
	validRuns(t, s, "redisson-latch", seeds, model.CheckLinearizable)
	validRuns(t, s, "permit-semaphore+redisson-permit-semaphore", 1, model.CheckLinearizable, noHandovers)
	validRuns(t, s, "latch+redisson-latch", 1, model.CheckLinearizable)
}

// noHandovers takes a plan's handover round out.
func noHandovers(p *Plan) { p.Handovers = 0 }

// validRuns runs subject name on s with seeds 1..seeds, one at a time, each
// a subtest that fails unless the run is valid; it logs checker's
// explanation.
func validRuns(t *testing.T, s *faults.Server, name string, seeds int64, checker string, tweaks ...func(*Plan)) {
	t.Helper()
	subj, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	for seed := int64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("%s/%d", name, seed), func(t *testing.T) {
			plan := DefaultPlan(seed)
			for _, tweak := range tweaks {
				tweak(&plan)
			}
			rep := runPlan(t, s, subj, seed, plan)
			if rep.Verdict != model.Valid {
				t.Fatalf("%s seed %d: %s", name, seed, rep)
			}
			res, _ := rep.Result(checker)
			t.Logf("%s seed %d: %s", name, seed, res.Explanation)
		})
	}
}
