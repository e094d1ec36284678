package mutants

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type env struct {
	t   *testing.T
	rdb *redis.Client
	m   impl.Maker
}

func newEnv(t *testing.T, f flaw) *env {
	t.Helper()
	rdb := redistest.Client(t, redistest.Start(t, faults.ServerConfig{}))
	m, err := open(config{flaws: f, watchdogLease: 300 * time.Millisecond})(t.Context(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return &env{t: t, rdb: rdb, m: m}
}

func (e *env) locker(name, owner string) *locker { return e.m.NewLocker(name, owner).(*locker) }

// poll waits until cond holds or fails the test after 10 s.
func (e *env) poll(what string, cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	e.t.Fatalf("timed out waiting for %s", what)
}

func (e *env) fields(key string) map[string]string {
	e.t.Helper()
	m, err := e.rdb.HGetAll(e.t.Context(), key).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func TestAllListsDistinctDocumentedMutants(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		if m.Name == "" || m.Doc == "" || m.Catches == "" || m.Open == nil || seen[m.Name] {
			t.Errorf("bad or duplicate mutant %+v", m)
		}
		seen[m.Name] = true
	}
	if len(seen) < 6 {
		t.Fatalf("%d mutants, want at least 6", len(seen))
	}
}

// The base lock without a flaw is a correct reentrant mutex, so each
// mutant's failure is its flaw's.
func TestBaseIsCorrect(t *testing.T) {
	e := newEnv(t, 0)
	const workers, rounds = 4, 25
	var counter atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		l := e.locker("base", fmt.Sprintf("w%d", w))
		wg.Go(func() {
			for i := range rounds {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				lease := 10 * time.Second
				if i%2 == 0 {
					lease = 0 // watchdog
				}
				err := l.Lock(ctx, lease)
				if err == nil {
					err = l.Lock(ctx, lease) // reentrant
				}
				if err == nil {
					err = l.Unlock(ctx) // inner unlock: still held
				}
				if err == nil {
					v := counter.Load()
					runtime.Gosched()
					counter.Store(v + 1)
					err = l.Unlock(ctx)
				}
				cancel()
				if err != nil {
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
	if exp, got := int64(workers*rounds), counter.Load(); exp != got {
		t.Fatalf("counter = %d, want %d", got, exp)
	}
	ctx := t.Context()
	a, b := e.locker("base2", "a"), e.locker("base2", "b")
	if err := a.Lock(ctx, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := b.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("non-owner Unlock = %v, want ErrNotOwner", err)
	}
	// A waiter is bounded by the holder's TTL: it gets an expired lock.
	if ok, err := b.TryLock(ctx, 5*time.Second, time.Second); !ok || err != nil {
		t.Fatalf("TryLock across the holder's expiry = %v, %v", ok, err)
	}
	if ok, err := a.TryLock(ctx, 100*time.Millisecond, time.Second); ok || err != nil {
		t.Fatalf("TryLock(100ms) on a held lock = %v, %v; want false, nil", ok, err)
	}
}

func TestCheckThenSetGrantsTwoOwners(t *testing.T) {
	e := newEnv(t, checkThenSet)
	ctx := t.Context()
	a, b := e.locker("cts", "a"), e.locker("cts", "b")
	var bErr error
	a.hook = func(point string) {
		if point == "checked" { // inside A's check-then-set window
			bErr = b.Lock(ctx, 10*time.Second)
		}
	}
	if err := a.Lock(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if bErr != nil {
		t.Fatal(bErr)
	}
	if f := e.fields("cts"); len(f) != 2 {
		t.Fatalf("hash = %v, want both owners (the bug)", f)
	}
}

func TestUnlockNoOwnerCheckFreesHoldersLock(t *testing.T) {
	e := newEnv(t, unlockNoOwner)
	ctx := t.Context()
	a, b, c := e.locker("del", "a"), e.locker("del", "b"), e.locker("del", "c")
	if err := a.Lock(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatalf("non-owner Unlock = %v; the mutant answers nil", err)
	}
	if ok, err := c.TryLock(ctx, 0, 10*time.Second); !ok || err != nil {
		t.Fatalf("TryLock while a still believes it holds = %v, %v; want true (the bug)", ok, err)
	}
}

func TestReentryNoCountFreesOnFirstUnlock(t *testing.T) {
	for _, tc := range []struct {
		f       flaw
		granted bool
	}{{0, false}, {reentryNoCount, true}} {
		e := newEnv(t, tc.f)
		ctx := t.Context()
		a, b := e.locker("re", "a"), e.locker("re", "b")
		for range 2 {
			if err := a.Lock(ctx, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, err := b.TryLock(ctx, 0, time.Second); ok != tc.granted || err != nil {
			t.Fatalf("flaw %d: TryLock after 2 locks and 1 unlock = %v, %v; want %v", tc.f, ok, err, tc.granted)
		}
	}
}

func TestRenewAnyOwnerResurrectsHold(t *testing.T) {
	e := newEnv(t, renewAnyone)
	ctx := t.Context()
	a, b := e.locker("ren", "a"), e.locker("ren", "b")
	if err := a.Lock(ctx, 300*time.Millisecond); err != nil { // keep-alive every 100 ms
		t.Fatal(err)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	ok, err := b.TryLock(ctx, 0, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// Either way a's unlocked hold comes back: inside b's hash, or alone.
	e.poll("a's field re-created", func() bool { _, ok := e.fields("ren")["a"]; return ok })
	if ok {
		if ok, err := a.TryLock(ctx, 0, time.Second); !ok || err != nil {
			t.Fatalf("a's TryLock while b holds = %v, %v; want true (the bug)", ok, err)
		}
	} else if ok, err := b.TryLock(ctx, 500*time.Millisecond, time.Second); ok || err != nil {
		// a's keep-alive re-created its hold first: a holds nothing, yet
		// the phantom is kept alive and b cannot get the lock.
		t.Fatalf("b's TryLock against a's phantom hold = %v, %v; want false (the bug)", ok, err)
	}
}

func TestPubSubOnlyWaitStuck(t *testing.T) {
	e := newEnv(t, pubsubOnlyWait)
	ctx := t.Context()
	// A holder whose lease runs out publishes nothing.
	a, b := e.locker("ps", "a"), e.locker("ps", "b")
	if err := a.Lock(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	if err := b.Lock(wctx, time.Second); !errors.Is(err, impl.ErrNotObtained) {
		t.Fatalf("Lock with an expired holder = %v; want ErrNotObtained (the bug)", err)
	}
	if n := e.rdb.Exists(ctx, "ps").Val(); n != 0 {
		t.Fatalf("lock still held (%d): the wait should have been for a free lock", n)
	}
	// A release between the failed attempt and the subscription is lost.
	c, d := e.locker("ps2", "c"), e.locker("ps2", "d")
	if err := c.Lock(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	d.hook = func(point string) {
		if point == "failed" {
			if err := c.Unlock(ctx); err != nil {
				t.Error(err)
			}
			d.hook = nil
		}
	}
	wctx2, cancel2 := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel2()
	if err := d.Lock(wctx2, time.Second); !errors.Is(err, impl.ErrNotObtained) {
		t.Fatalf("Lock after a missed wake-up = %v; want ErrNotObtained (the bug)", err)
	}
}

func TestErrorIsSuccessGrantsOnTimeout(t *testing.T) {
	e := newEnv(t, errorIsSuccess)
	ctx := t.Context()
	a, b := e.locker("err", "a"), e.locker("err", "b")
	if err := a.Lock(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(ctx, 100*time.Millisecond, time.Second); !ok || err != nil {
		t.Fatalf("TryLock on a held lock = %v, %v; want true (the bug)", ok, err)
	}
	if f := e.fields("err"); len(f) != 1 || f["a"] == "" {
		t.Fatalf("hash = %v, want only a", f)
	}
}

func TestWakeupIsGrantWakesAll(t *testing.T) {
	e := newEnv(t, wakeupIsGrant)
	ctx := t.Context()
	a := e.locker("wk", "a")
	if err := a.Lock(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, owner := range []string{"b", "c"} {
		l := e.locker("wk", owner)
		wg.Go(func() {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			errs <- l.Lock(wctx, 10*time.Second)
		})
	}
	e.poll("two subscribed waiters", func() bool {
		n := e.rdb.PubSubNumSub(ctx, a.channel).Val()[a.channel]
		return n == 2
	})
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("waiter: %v; want both granted (the bug)", err)
		}
	}
}
