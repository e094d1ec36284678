package mutants

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
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
	srv *faults.Server
	rdb *redis.Client
	m   impl.Maker
}

// newEnv starts a redis-server and opens a Maker with flaw f (0: the base
// lock) and a 300 ms watchdog lease on a client of it.
func newEnv(t *testing.T, f flaw) *env {
	t.Helper()
	srv := redistest.Start(t, faults.ServerConfig{})
	e := &env{t: t, srv: srv, rdb: redistest.Client(t, srv)}
	e.m = e.open(f, e.rdb)
	return e
}

// open opens a Maker with flaw f and a 300 ms watchdog lease on rdb, closed
// when the test ends.
func (e *env) open(f flaw, rdb redis.UniversalClient) impl.Maker {
	e.t.Helper()
	return e.openLease(f, rdb, 300*time.Millisecond)
}

// openLease is open with the given watchdog lease.
func (e *env) openLease(f flaw, rdb redis.UniversalClient, lease time.Duration) impl.Maker {
	e.t.Helper()
	m, err := open(config{flaws: f, watchdogLease: lease})(e.t.Context(), rdb)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = m.Close() })
	return m
}

func (e *env) locker(name, owner string) *locker { return e.m.NewLocker(name, owner).(*locker) }

// poll waits until cond holds or fails the test after 10 s.
func (e *env) poll(what string, cond func() bool) {
	e.t.Helper()
	e.pollWithin(what, 10*time.Second, cond)
}

// pollWithin waits until cond holds or fails the test after d.
func (e *env) pollWithin(what string, d time.Duration, cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	e.t.Fatalf("timed out after %v waiting for %s", d, what)
}

// stays fails the test unless cond holds at every sample for d.
func (e *env) stays(what string, d time.Duration, cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !cond() {
			e.t.Fatalf("%s no longer holds", what)
		}
	}
}

func (e *env) exists(key string) bool {
	e.t.Helper()
	n, err := e.rdb.Exists(e.t.Context(), key).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	return n == 1
}

// fields are the hash fields of key by owner: a plain mutant's field is
// its maker's id, a colon and the owner (maker.id).
func (e *env) fields(key string) map[string]string {
	e.t.Helper()
	m, err := e.rdb.HGetAll(e.t.Context(), key).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	out := make(map[string]string, len(m))
	for f, v := range m {
		if id, owner, ok := strings.Cut(f, ":"); ok && len(id) == 8 {
			f = owner
		}
		out[f] = v
	}
	return out
}

func TestAllListsDistinctDocumentedMutants(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		if m.Name == "" || m.Doc == "" || m.Catches == "" || m.Open == nil || seen[m.Name] {
			t.Errorf("bad or duplicate mutant %+v", m)
		}
		seen[m.Name] = true
	}
	if len(seen) < 15 {
		t.Fatalf("%d mutants, want at least 15", len(seen))
	}
}

// The base lock without a flaw is a correct reentrant mutex, so each
// mutant's failure is its flaw's.
func TestBaseIsCorrect(t *testing.T) {
	e := newEnv(t, 0)
	var lockers []impl.Locker
	for w := range 4 {
		lockers = append(lockers, e.locker("base", fmt.Sprintf("w%d", w)))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	lost, err := impl.LostUpdates(ctx, lockers, 25, func(ctx context.Context, l impl.Locker, i int, section func()) error {
		lease := 10 * time.Second
		if i%2 == 0 {
			lease = 0 // watchdog
		}
		for range 2 { // reentrant
			if err := l.Lock(ctx, lease); err != nil {
				return err
			}
		}
		if err := l.Unlock(ctx); err != nil { // inner unlock: still held
			return err
		}
		section()
		return l.Unlock(ctx)
	})
	if err != nil || lost != 0 {
		t.Fatalf("%d updates lost, err %v", lost, err)
	}
	ctx = t.Context()
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

// With the flaw, the lease runs out before the late renewal: a waiter bounded
// by the holder's TTL is granted although the holder never unlocked.
func TestWatchdogLateGrantsWaiterWhileHolderWorks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       flaw
		granted bool
	}{{"base", 0, false}, {"mutant", watchdogLate, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.f)
			ctx := t.Context()
			a, b := e.locker("late", "a"), e.locker("late", "b")
			if err := a.Lock(ctx, 0); err != nil { // 300 ms watchdog lease
				t.Fatal(err)
			}
			wctx, cancel := context.WithTimeout(ctx, time.Second)
			err := b.Lock(wctx, 10*time.Second)
			cancel()
			if !tc.granted {
				if !errors.Is(err, impl.ErrNotObtained) {
					t.Fatalf("b.Lock while a holds = %v; want ErrNotObtained", err)
				}
				if f := e.fields("late"); len(f) != 1 || f["a"] != "1" {
					t.Fatalf("hash = %v, want a's hold", f)
				}
				return
			}
			if err != nil {
				t.Fatalf("b.Lock while a still works = %v; want granted (the bug)", err)
			}
			if a.holds != 1 {
				t.Fatalf("a believes it holds %d times, want 1", a.holds)
			}
			if f := e.fields("late"); len(f) != 1 || f["b"] != "1" {
				t.Fatalf("hash = %v, want only b", f)
			}
			// The late, owner-checked renewal finds no field of a and stops.
			e.pollWithin("a's keep-alive to stop", time.Second, func() bool { return !a.ren.alive() })
		})
	}
}

// With the flaw, an unlock that comes after its lease ran out frees the next
// holder's lock (and still answers not-owner).
func TestUnlockFreesExpiredFreesNextHolder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     flaw
		freed bool
	}{{"base", 0, false}, {"mutant", unlockFreesExpired, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.f)
			ctx := t.Context()
			a, b, c := e.locker("ufe", "a"), e.locker("ufe", "b"), e.locker("ufe", "c")
			if err := a.Lock(ctx, 100*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			e.poll("a's lease to run out", func() bool { return !e.exists("ufe") })
			if err := b.Lock(ctx, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if err := a.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
				t.Fatalf("late Unlock = %v, want ErrNotOwner", err)
			}
			f := e.fields("ufe")
			if !tc.freed {
				if len(f) != 1 || f["b"] != "1" {
					t.Fatalf("hash = %v after a's late unlock, want b's hold", f)
				}
				return
			}
			if len(f) != 0 {
				t.Fatalf("hash = %v after a's late unlock, want gone (the bug)", f)
			}
			if ok, err := c.TryLock(ctx, 0, 10*time.Second); !ok || err != nil {
				t.Fatalf("c's TryLock while b holds = %v, %v; want true (the bug)", ok, err)
			}
		})
	}
}

// With the flaw, an acquire whose caller gave up goes on in the background,
// is granted once the holder releases, and the hold nobody owns is renewed.
func TestCancelKeepsRenewalOrphansHold(t *testing.T) {
	giveUps := []struct {
		name string
		call func(ctx context.Context, l *locker) error
	}{
		{"TryLock wait ran out", func(ctx context.Context, l *locker) error {
			if ok, err := l.TryLock(ctx, 50*time.Millisecond, 200*time.Millisecond); ok || err != nil {
				return fmt.Errorf("TryLock(50ms) on a held lock = %v, %v; want false, nil", ok, err)
			}
			return nil
		}},
		{"Lock ctx ended", func(ctx context.Context, l *locker) error {
			cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			if err := l.Lock(cctx, 200*time.Millisecond); !errors.Is(err, impl.ErrNotObtained) {
				return fmt.Errorf("Lock on a held lock until ctx ends = %v; want ErrNotObtained", err)
			}
			return nil
		}},
	}
	for _, tc := range []struct {
		name   string
		f      flaw
		orphan bool
	}{{"base", 0, false}, {"mutant", cancelOrphan, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.f)
			ctx := t.Context()
			for i, g := range giveUps {
				key := fmt.Sprintf("orphan%d", i)
				a, b := e.locker(key, "a"), e.locker(key, "b")
				if err := b.Lock(ctx, 10*time.Second); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				if err := g.call(ctx, a); err != nil {
					t.Fatalf("%s: %v", g.name, err)
				}
				if d := time.Since(start); d > orphanBound/2 {
					t.Fatalf("%s: returned after %v; the caller must not wait for the background", g.name, d)
				}
				if err := b.Unlock(ctx); err != nil {
					t.Fatal(err)
				}
				if !tc.orphan {
					e.stays(g.name+": lock free after b's unlock", 300*time.Millisecond, func() bool { return !e.exists(key) })
					continue
				}
				e.poll(g.name+": a's orphan hold", func() bool {
					f := e.fields(key)
					return len(f) == 1 && f["a"] == "1"
				})
				if a.holds != 0 || a.ren != nil {
					t.Fatalf("%s: handle a believes it holds %d (renewer %v); its call failed", g.name, a.holds, a.ren)
				}
				// 1 s is several 300 ms watchdog leases (and five 200 ms
				// explicit ones): only a keep-alive keeps the hold.
				e.stays(g.name+": orphan hold renewed", time.Second, func() bool {
					ttl, err := e.rdb.PTTL(ctx, key).Result()
					return err == nil && ttl > 0 && e.fields(key)["a"] == "1"
				})
			}
		})
	}
}

// dialSwitch is a go-redis Dialer that can drop every connection it made and
// refuse dials until healed.
type dialSwitch struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu      sync.Mutex
	conns   []net.Conn
	down    bool
	refused int
}

var errRefused = errors.New("test: dial refused")

func (s *dialSwitch) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	s.mu.Lock()
	down := s.down
	if down {
		s.refused++
	}
	s.mu.Unlock()
	if down {
		return nil, errRefused
	}
	c, err := s.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down { // cut while dialing
		s.refused++
		_ = c.Close()
		return nil, errRefused
	}
	s.conns = append(s.conns, c)
	return c, nil
}

// cut closes every connection and refuses dials until heal.
func (s *dialSwitch) cut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = true
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.conns = nil
}

func (s *dialSwitch) heal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = false
}

func (s *dialSwitch) refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// With the flaw, one renewal that fails while the holder's connection is
// cut ends the keep-alive: after the reconnect the hold runs out while its
// holder works. The base lock renews again at the next tick.
func TestRenewGivesUpAfterReconnect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       flaw
		expires bool
	}{{"base", 0, false}, {"mutant", renewGivesUp, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 0)
			ctx := t.Context()
			m, sw := e.switched(tc.f)
			a := m.NewLocker("rgu", "a").(*locker)
			if err := a.Lock(ctx, 0); err != nil { // 300 ms watchdog lease, renewed every 100 ms
				t.Fatal(err)
			}
			// Cut until one renewal has failed (only the keep-alive uses rdb
			// now), then reconnect: the hold has 200 ms left at least.
			sw.cut()
			e.poll("a renewal to fail", func() bool { return sw.refusals() > 0 })
			sw.heal()
			if !tc.expires {
				e.stays("a's hold after the reconnect", time.Second, func() bool { return e.exists("rgu") })
				if !a.ren.alive() {
					t.Fatal("base keep-alive stopped")
				}
				return
			}
			e.pollWithin("a's hold to run out (the bug)", time.Second, func() bool { return !e.exists("rgu") })
			if a.holds != 1 || a.ren.alive() {
				t.Fatalf("a holds %d, keep-alive alive %v; want 1 hold it believes in and no keep-alive", a.holds, a.ren.alive())
			}
		})
	}
}

// With the flaw, one renewal that times out during a Redis pause shorter
// than 2/3 of the lease ends the keep-alive: the hold runs out while its
// holder works. The base lock rides the same pauses out (the renewal sent
// during a pause runs when it ends, and the next tick renews again).
func TestRenewGivesUpOnShortPause(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       flaw
		expires bool
	}{{"base", 0, false}, {"mutant", renewGivesUp, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 0)
			ctx := t.Context()
			// 600 ms lease: renewed every 200 ms, each renewal waiting 200 ms
			// for its reply.
			a := e.openLease(tc.f, redistest.Client(t, e.srv), 600*time.Millisecond).NewLocker("rgp", "a").(*locker)
			if err := a.Lock(ctx, 0); err != nil {
				t.Fatal(err)
			}
			// Pauses of 300 ms (under the 400 ms a renewal every third of the
			// lease leaves in hand) every 500 ms: the ticks fall 100 ms apart
			// in alternate pauses, so within two pauses one renewal is sent
			// with 200 ms or more of the pause left, and times out.
			for i := 0; i < 6 && a.ren.alive(); i++ {
				if err := e.srv.Pause(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(300 * time.Millisecond)
				if err := e.srv.Resume(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(200 * time.Millisecond)
				if !e.exists("rgp") {
					t.Fatalf("pause %d: the hold ran out", i)
				}
			}
			if !tc.expires {
				e.stays("a's hold after the pauses", 700*time.Millisecond, func() bool { return e.exists("rgp") })
				if !a.ren.alive() {
					t.Fatal("base keep-alive stopped")
				}
				return
			}
			if a.ren.alive() {
				t.Fatal("the keep-alive survived six pauses (the bug: one timed-out renewal ends it)")
			}
			e.pollWithin("a's hold to run out (the bug)", time.Second, func() bool { return !e.exists("rgp") })
			if a.holds != 1 {
				t.Fatalf("a believes it holds %d times, want 1", a.holds)
			}
		})
	}
}

// switched opens a Maker with flaw f and a 300 ms watchdog lease on a
// client whose connections sw cuts.
func (e *env) switched(f flaw) (impl.Maker, *dialSwitch) {
	e.t.Helper()
	opt := e.srv.Options()
	opt.DialerRetries = 1 // a refused dial fails the command at once
	sw := &dialSwitch{dial: redis.NewDialer(opt)}
	opt.Dialer = sw.Dial
	rdb := redis.NewClient(opt)
	e.t.Cleanup(func() { _ = rdb.Close() })
	return e.open(f, rdb), sw
}

// cutUntilLost cuts a's connections (its keep-alive's renewals fail, as a
// stalled or cut-off client's do) until its hold runs out, lets b take the
// lock for 10 s, and heals the cut: a's keep-alive renews again at its
// next tick.
func (e *env) cutUntilLost(a *locker, sw *dialSwitch, b *locker) {
	e.t.Helper()
	sw.cut()
	e.poll("a's hold to run out while cut off", func() bool { return !e.exists(a.name) })
	if b != nil {
		if err := b.Lock(e.t.Context(), 10*time.Second); err != nil {
			e.t.Fatal(err)
		}
	}
	sw.heal()
}

// The base's renewals fail while its client is cut off; once healed, its
// owner-checked renewal finds the hold gone and ends. With renewRetakes,
// the next renewal overwrites the new holder's hash with the old holder's field: the
// new holder's unlock then fails, and the old holder's answers ok.
func TestRenewRetakesTakesLockBack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       flaw
		retakes bool
	}{{"base", 0, false}, {"mutant", renewRetakes, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.f)
			ctx := t.Context()
			m, sw := e.switched(tc.f)
			a, b := m.NewLocker("rrt", "a").(*locker), e.locker("rrt", "b")
			if err := a.Lock(ctx, 0); err != nil { // 300 ms watchdog lease
				t.Fatal(err)
			}
			e.cutUntilLost(a, sw, b)
			if !tc.retakes {
				e.poll("a's keep-alive to find the hold gone", func() bool { return !a.ren.alive() })
				if f := e.fields("rrt"); len(f) != 1 || f["b"] != "1" {
					t.Fatalf("hash = %v, want b's hold alone", f)
				}
				if err := a.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
					t.Fatalf("late Unlock = %v, want ErrNotOwner", err)
				}
				return
			}
			e.poll("a's renewal to take the lock back (the bug)", func() bool { f := e.fields("rrt"); return len(f) == 1 && f["a"] == "1" })
			if err := b.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
				t.Fatalf("b's Unlock of the hold it was granted = %v; want ErrNotOwner (the bug)", err)
			}
			if err := a.Unlock(ctx); err != nil {
				t.Fatalf("a's Unlock of the lock it took back = %v; want nil (the bug)", err)
			}
		})
	}
}

// With the flaw, an unlock that gets no answer leaves the keep-alive
// running out of the handle's reach, and the hold is renewed for ever by a
// client that gave it up. The base stops its keep-alive at the attempt,
// whatever the answer, and the hold runs out within a lease.
func TestUnlockFailKeepsRenewal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     flaw
		stays bool
	}{{"base", 0, false}, {"mutant", unlockFailKeepsRenewal, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 0)
			ctx := t.Context()
			m, sw := e.switched(tc.f)
			a := m.NewLocker("ufk", "a").(*locker)
			if err := a.Lock(ctx, 0); err != nil { // 300 ms watchdog lease
				t.Fatal(err)
			}
			sw.cut()
			err := a.Unlock(ctx)
			sw.heal()
			if err == nil || errors.Is(err, impl.ErrNotOwner) {
				t.Fatalf("Unlock over a cut connection = %v, want a connection error", err)
			}
			if !tc.stays {
				e.pollWithin("the abandoned hold to run out", time.Second, func() bool { return !e.exists("ufk") })
				return
			}
			// 1 s is more than three 300 ms leases: only a keep-alive keeps it.
			e.stays("the abandoned hold, renewed (the bug)", time.Second, func() bool { return e.exists("ufk") })
		})
	}
}

// With the flaw, a late unlock (the hold ran out while its holder was cut
// off) leaves the renewal entry behind, and the handle's next watchdog
// hold is never renewed. The base renews it.
func TestLateUnlockLeavesRenewal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       flaw
		expires bool
	}{{"base", 0, false}, {"mutant", lateUnlockLeavesRenewal, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.f)
			ctx := t.Context()
			m, sw := e.switched(tc.f)
			a := m.NewLocker("lul", "a").(*locker)
			if err := a.Lock(ctx, 0); err != nil { // 300 ms watchdog lease
				t.Fatal(err)
			}
			e.cutUntilLost(a, sw, nil)
			if err := a.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
				t.Fatalf("late Unlock = %v, want ErrNotOwner", err)
			}
			if err := a.Lock(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if !tc.expires {
				e.stays("a's next hold, renewed", time.Second, func() bool { return e.fields("lul")["a"] == "1" })
				return
			}
			e.pollWithin("a's next hold to run out (the bug)", time.Second, func() bool { return !e.exists("lul") })
			if a.holds != 1 {
				t.Fatalf("a believes it holds %d times, want 1", a.holds)
			}
		})
	}
}

// With the flaw, an acquire whose reply timed out (the server paused past
// the client's read timeout) reports a grant while another owner holds the
// lock; an acquire whose context had ended before anything was sent does
// not. The base returns the timeout.
func TestTimeoutIsGrant(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       flaw
		granted bool
	}{{"base", 0, false}, {"mutant", timeoutIsGrant, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.f)
			ctx := t.Context()
			b := e.locker("tig", "b")
			if err := b.Lock(ctx, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			opt := e.srv.Options()
			opt.ReadTimeout = 100 * time.Millisecond
			rdb := redis.NewClient(opt)
			t.Cleanup(func() { _ = rdb.Close() })
			a := e.open(tc.f, rdb).NewLocker("tig", "a")
			if err := rdb.Ping(ctx).Err(); err != nil { // dial before the pause
				t.Fatal(err)
			}
			ended, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
			defer cancel()
			if ok, err := a.TryLock(ended, 0, time.Second); ok || err == nil {
				t.Fatalf("TryLock with an ended context = %v, %v; want an error", ok, err)
			}
			if err := e.srv.Pause(); err != nil {
				t.Fatal(err)
			}
			ok, err := a.TryLock(ctx, 0, time.Second)
			if err := e.srv.Resume(); err != nil {
				t.Fatal(err)
			}
			if ok != tc.granted || (err == nil) != tc.granted {
				t.Fatalf("TryLock with a timed-out reply = %v, %v; want granted %v", ok, err, tc.granted)
			}
			if f := e.fields("tig"); len(f) != 1 || f["b"] != "1" {
				t.Fatalf("hash = %v, want b's hold alone", f)
			}
		})
	}
}

// With the flaw, the keep-alive goes on after the last unlock: every third
// of a lease it sends its owner-checked renewal for a hold that is gone,
// which answers 0 and changes nothing. The base lock's keep-alive ends with
// the unlock.
func TestRenewOutlivesUnlock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     flaw
		renew bool
	}{{"base", 0, false}, {"mutant", renewOutlivesUnlock, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.f)
			ctx := t.Context()
			a := e.m.NewLocker("rou", "a").(*locker)
			if err := a.Lock(ctx, 0); err != nil { // 300 ms watchdog lease, renewed every 100 ms
				t.Fatal(err)
			}
			if err := a.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			before := e.scriptCalls()
			time.Sleep(400 * time.Millisecond) // four renewal periods
			renewals := e.scriptCalls() - before
			if e.exists("rou") {
				t.Fatal("a renewal re-created the released hold")
			}
			if got := a.ren.alive() && renewals >= 2; got != tc.renew {
				t.Fatalf("keep-alive alive %v, %d scripts run in 400 ms after the unlock; want renewing %v",
					a.ren.alive(), renewals, tc.renew)
			}
		})
	}
}

// scriptCalls is how many scripts the server has run (EVAL and EVALSHA).
func (e *env) scriptCalls() int {
	e.t.Helper()
	info, err := e.rdb.Info(e.t.Context(), "commandstats").Result()
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(line, "cmdstat_eval"); ok {
			_, stats, _ := strings.Cut(rest, ":calls=")
			calls, _, _ := strings.Cut(stats, ",")
			c, _ := strconv.Atoi(calls)
			n += c
		}
	}
	return n
}
