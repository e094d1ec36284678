package mutants

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
)

const rwTestLease = 300 * time.Millisecond

// rwHandles opens the named read-write mutant (or, for "", the port) with a
// 300 ms watchdog lease and returns owner a's and b's handles on lock rw.
func rwHandles(t *testing.T, name string) (a, b impl.Sided, exists func() bool) {
	t.Helper()
	srv := redistest.Start(t, faults.ServerConfig{})
	rdb := redistest.Client(t, srv)
	open := impl.RWLockMaker(impl.WithWatchdogTimeout(rwTestLease))
	for _, m := range AllWithLease(rwTestLease) {
		if m.Name == name {
			open = m.Open
		}
	}
	m, err := open(t.Context(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	exists = func() bool { n, _ := rdb.Exists(context.Background(), "rw").Result(); return n == 1 }
	return m.NewLocker("rw", "a").(impl.Sided), m.NewLocker("rw", "b").(impl.Sided), exists
}

func mustRW(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Two readers; a holds past several leases; b's unlock then re-arms the
// hash from a's timeout keys. The port keeps a's hold; with the timeout
// keys not renewed, b's unlock deletes the lock under a.
func TestRWReadTimeoutsNotRenewed(t *testing.T) {
	for name, wantHeld := range map[string]bool{"": true, "mutant-rw-read-timeouts-not-renewed": false} {
		t.Run("subject="+name, func(t *testing.T) {
			a, b, exists := rwHandles(t, name)
			ctx := t.Context()
			mustRW(t, a.Side(impl.ModeRead).Lock(ctx, 0))
			time.Sleep(3 * rwTestLease)
			mustRW(t, b.Side(impl.ModeRead).Lock(ctx, 0))
			mustRW(t, b.Side(impl.ModeRead).Unlock(ctx))
			if exists() != wantHeld {
				t.Fatalf("a's read hold in Redis after b's unlock: %v, want %v", exists(), wantHeld)
			}
		})
	}
}

// a writes, downgrades, releases the write lock and reads on past several
// leases: the port renews the read hold; the mutant lets it run out.
func TestRWDowngradeRenewal(t *testing.T) {
	for name, wantHeld := range map[string]bool{"": true, "mutant-rw-downgrade-renewal": false} {
		t.Run("subject="+name, func(t *testing.T) {
			a, _, exists := rwHandles(t, name)
			ctx := t.Context()
			mustRW(t, a.Side(impl.ModeWrite).Lock(ctx, 0))
			mustRW(t, a.Side(impl.ModeRead).Lock(ctx, 0))
			mustRW(t, a.Side(impl.ModeWrite).Unlock(ctx))
			time.Sleep(4 * rwTestLease)
			if exists() != wantHeld {
				t.Fatalf("the downgraded read hold in Redis: %v, want %v", exists(), wantHeld)
			}
		})
	}
}

// A read unlock of a lock that is not there: refused by the port, answered
// released by the mutant.
func TestRWLateReadUnlock(t *testing.T) {
	for name, wantOK := range map[string]bool{"": false, "mutant-rw-late-read-unlock-ok": true} {
		t.Run("subject="+name, func(t *testing.T) {
			a, _, _ := rwHandles(t, name)
			err := a.Side(impl.ModeRead).Unlock(t.Context())
			if (err == nil) != wantOK || (err != nil && !errors.Is(err, impl.ErrNotOwner)) {
				t.Fatalf("read unlock of a missing lock: %v, want ok=%v", err, wantOK)
			}
		})
	}
}
