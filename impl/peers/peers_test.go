package peers_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/peers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// subjects returns every peer subject with a short watchdog lease.
func subjects() []peers.Subject {
	o := &peers.Options{WatchdogLease: 300 * time.Millisecond, Seed: 1}
	return []peers.Subject{
		{Name: "redsync", Open: peers.Redsync(o)},
		{Name: "redsync-tuned", Open: peers.RedsyncTuned(o)},
		{Name: "redislock", Open: peers.Redislock(o)},
		{Name: "redislock-tuned", Open: peers.RedislockTuned(o)},
	}
}

func open(t *testing.T, rdb *redis.Client, s peers.Subject) impl.Maker {
	t.Helper()
	m, err := s.Open(t.Context(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func waitGone(t *testing.T, rdb *redis.Client, key string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		n, err := rdb.Exists(t.Context(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatalf("%s still exists after 10 s", key)
}

func TestAllNamesAndDocs(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range peers.All() {
		if s.Name == "" || s.Doc == "" || s.Open == nil || seen[s.Name] {
			t.Errorf("bad or duplicate subject %+v", s)
		}
		seen[s.Name] = true
	}
	for _, want := range []string{"redsync", "redsync-tuned", "redislock", "redislock-tuned"} {
		if !seen[want] {
			t.Errorf("subject %q missing", want)
		}
	}
}

func TestPeers(t *testing.T) {
	rdb := redistest.Client(t, redistest.Start(t, faults.ServerConfig{}))
	for _, s := range subjects() {
		t.Run(s.Name, func(t *testing.T) {
			t.Run("MutualExclusion", func(t *testing.T) { testMutualExclusion(t, open(t, rdb, s), s.Name+"-mx") })
			t.Run("NotOwnerAfterExpiry", func(t *testing.T) { testNotOwnerAfterExpiry(t, rdb, open(t, rdb, s), s.Name+"-exp") })
			t.Run("TryLockAndCtx", func(t *testing.T) { testTryLockAndCtx(t, rdb, open(t, rdb, s), s.Name+"-try") })
			t.Run("Watchdog", func(t *testing.T) { testWatchdog(t, rdb, open(t, rdb, s), s.Name+"-wd") })
		})
	}
}

func testMutualExclusion(t *testing.T, m impl.Maker, key string) {
	var lockers []impl.Locker
	for w := range 4 {
		lockers = append(lockers, m.NewLocker(key, fmt.Sprintf("w%d", w)))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	lost, err := impl.LostUpdates(ctx, lockers, 10, func(ctx context.Context, l impl.Locker, _ int, section func()) error {
		if err := l.Lock(ctx, 10*time.Second); err != nil {
			return err
		}
		time.Sleep(time.Millisecond) // a section long enough for a retrying peer to poll into it
		section()
		return l.Unlock(ctx)
	})
	if err != nil || lost != 0 {
		t.Fatalf("%d updates lost, err %v", lost, err)
	}
}

func testNotOwnerAfterExpiry(t *testing.T, rdb *redis.Client, m impl.Maker, key string) {
	ctx := t.Context()
	a, b := m.NewLocker(key, "a"), m.NewLocker(key, "b")
	if err := a.Lock(ctx, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitGone(t, rdb, key)
	if err := b.Lock(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	held, err := rdb.Get(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("expired holder's Unlock = %v, want ErrNotOwner", err)
	}
	if now, err := rdb.Get(ctx, key).Result(); err != nil || now != held {
		t.Fatalf("new holder's key after the expired Unlock = %q, %v; want %q", now, err, held)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("second Unlock = %v, want ErrNotOwner", err)
	}
}

func testTryLockAndCtx(t *testing.T, rdb *redis.Client, m impl.Maker, key string) {
	ctx := t.Context()
	a, b := m.NewLocker(key, "a"), m.NewLocker(key, "b")
	if ok, err := a.TryLock(ctx, 0, 10*time.Second); !ok || err != nil {
		t.Fatalf("TryLock(0) on a free lock = %v, %v", ok, err)
	}
	if ok, err := b.TryLock(ctx, 0, time.Second); ok || err != nil {
		t.Fatalf("TryLock(0) on a held lock = %v, %v; want false, nil", ok, err)
	}
	if ok, err := b.TryLock(ctx, 300*time.Millisecond, time.Second); ok || err != nil {
		t.Fatalf("TryLock(300ms) on a held lock = %v, %v; want false, nil", ok, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	// The deadline may cut an attempt in flight: then the outcome is
	// unknown (errInFlight), never "not obtained".
	if err := b.Lock(cctx, time.Second); !errors.Is(err, context.DeadlineExceeded) || (!errors.Is(err, impl.ErrNotObtained) && !strings.Contains(err.Error(), "outcome unknown")) {
		t.Fatalf("Lock past ctx = %v, want ErrNotObtained (or an unknown outcome) and DeadlineExceeded", err)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatalf("holder's Unlock after the waiters gave up: %v", err)
	}
	if n, err := rdb.Exists(ctx, key).Result(); err != nil || n != 0 {
		t.Fatalf("key left behind: %d, %v", n, err)
	}
}

func testWatchdog(t *testing.T, rdb *redis.Client, m impl.Maker, key string) {
	ctx := t.Context()
	a := m.NewLocker(key, "a")
	if err := a.Lock(ctx, 0); err != nil { // watchdog lease 300 ms
		t.Fatal(err)
	}
	// Held across several leases, as long as the renewal runs.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if n, err := rdb.Exists(ctx, key).Result(); err != nil || n != 1 {
			t.Fatalf("watchdog-renewed key gone: %d, %v", n, err)
		}
	}
	if lw, ok := a.(impl.LeaseWatcher); !ok {
		t.Fatal("no LeaseWatcher")
	} else {
		select {
		case <-lw.Lost():
			t.Fatal("Lost closed while renewing")
		default:
		}
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// Abandon stops renewal: the hold runs out within a lease.
	if err := a.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	a.(impl.Abandoner).Abandon()
	waitGone(t, rdb, key)
}

// TestTryLockOnAFreeLockIsGranted probes the contract that a false from
// TryLock means another owner held the lock: on a free lock, even a wait of
// microseconds (shorter than a round trip) must not answer false. The wait
// bounds retries, never a request in flight.
func TestTryLockOnAFreeLockIsGranted(t *testing.T) {
	rdb := redistest.Client(t, redistest.Start(t, faults.ServerConfig{}))
	for _, s := range subjects() {
		t.Run(s.Name, func(t *testing.T) {
			m := open(t, rdb, s)
			for _, wait := range []time.Duration{time.Microsecond, 10 * time.Microsecond, 50 * time.Microsecond, time.Millisecond} {
				l := m.NewLocker(s.Name+"-free", "p1")
				refused, err := impl.RefusalsOnFreeLock(t.Context(), l, wait, time.Second, 100)
				if err != nil {
					t.Fatal(err)
				}
				if refused > 0 {
					t.Errorf("wait %v: %d of 100 TryLocks on a free lock answered false", wait, refused)
				}
			}
		})
	}
}
