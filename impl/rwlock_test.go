package impl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// tryRW takes one attempt on h and fails the test unless the answer is want.
func tryRW(t *testing.T, ctx context.Context, h *RWHandle, want bool) {
	t.Helper()
	ok, err := h.TryLock(ctx, 0, 0)
	if err != nil || ok != want {
		t.Fatalf("%s TryLock of %s = %v, %v; want %v", h.Mode(), h.Field(), ok, err, want)
	}
}

func unlockRW(t *testing.T, ctx context.Context, h *RWHandle) {
	t.Helper()
	if err := h.Unlock(ctx); err != nil {
		t.Fatalf("%s Unlock of %s: %v", h.Mode(), h.Field(), err)
	}
}

// RedissonReadWriteLockTest: readers share, a writer excludes everyone,
// both sides re-enter, and the final unlock frees the lock for the other side.
func TestRWLockExclusion(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	a, b := c.RWLock("rw", "a"), c.RWLock("rw", "b")

	tryRW(t, ctx, a.ReadLock(), true)
	tryRW(t, ctx, b.ReadLock(), true)
	tryRW(t, ctx, a.ReadLock(), true) // reentry
	tryRW(t, ctx, b.WriteLock(), false)
	tryRW(t, ctx, a.WriteLock(), false) // no upgrade, even for a reader
	if n, _ := a.ReadLock().HoldCount(ctx); n != 2 {
		t.Fatalf("read HoldCount = %d; want 2", n)
	}
	unlockRW(t, ctx, a.ReadLock())
	unlockRW(t, ctx, a.ReadLock())
	unlockRW(t, ctx, b.ReadLock())
	if n, _ := rdb.Exists(ctx, "rw").Result(); n != 0 {
		t.Fatal("the last read unlock left the hash")
	}

	tryRW(t, ctx, a.WriteLock(), true)
	tryRW(t, ctx, a.WriteLock(), true) // reentry
	tryRW(t, ctx, b.WriteLock(), false)
	tryRW(t, ctx, b.ReadLock(), false)
	unlockRW(t, ctx, a.WriteLock())
	tryRW(t, ctx, b.ReadLock(), false) // still one write hold
	unlockRW(t, ctx, a.WriteLock())
	tryRW(t, ctx, b.ReadLock(), true)
	unlockRW(t, ctx, b.ReadLock())
}

// The layout is Redisson's: the mode field, the owner fields, one timeout
// key per read hold.
func TestRWLockKeyLayout(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s, WithClientID("cid"))
	ctx := ctxT(t)
	l := c.RWLock("layout", "7")
	tryRW(t, ctx, l.WriteLock(), true)
	tryRW(t, ctx, l.ReadLock(), true)
	tryRW(t, ctx, l.ReadLock(), true)
	got, err := rdb.HGetAll(ctx, "layout").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"mode": "write", "cid:7:write": "1", "cid:7": "2"}
	if len(got) != len(want) {
		t.Fatalf("hash = %v; want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("hash = %v; want %v", got, want)
		}
	}
	for _, k := range []string{"{layout}:cid:7:rwlock_timeout:1", "{layout}:cid:7:rwlock_timeout:2"} {
		if ttl, _ := rdb.PTTL(ctx, k).Result(); ttl <= 0 {
			t.Fatalf("timeout key %s: PTTL %v", k, ttl)
		}
	}
	if got := RWTimeoutPrefix("{tag}x", "cid:7"); got != "{tag}x:cid:7:rwlock_timeout" {
		t.Fatalf("RWTimeoutPrefix with a hash tag = %q", got)
	}
	unlockRW(t, ctx, l.ReadLock())
	if n, _ := rdb.Exists(ctx, "{layout}:cid:7:rwlock_timeout:2").Result(); n != 0 {
		t.Fatal("a read unlock left its timeout key")
	}
}

// Downgrade: the write holder takes the read lock, releases the write lock
// and stays a reader; other readers join, writers still wait.
func TestRWLockDowngrade(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	a, b := c.RWLock("down", "a"), c.RWLock("down", "b")
	tryRW(t, ctx, a.WriteLock(), true)
	tryRW(t, ctx, a.ReadLock(), true)
	tryRW(t, ctx, b.ReadLock(), false)
	unlockRW(t, ctx, a.WriteLock())
	if mode, _ := a.ReadLock().LockMode(ctx); mode != RWRead {
		t.Fatalf("mode after the write unlock = %q; want read", mode)
	}
	tryRW(t, ctx, b.ReadLock(), true)
	tryRW(t, ctx, b.WriteLock(), false)
	unlockRW(t, ctx, b.ReadLock())
	unlockRW(t, ctx, a.ReadLock())
	if n, _ := rdb.Exists(ctx, "down").Result(); n != 0 {
		t.Fatal("the last read unlock left the hash")
	}

	// The other order: the read hold goes first, the write hold stays.
	tryRW(t, ctx, a.WriteLock(), true)
	tryRW(t, ctx, a.ReadLock(), true)
	unlockRW(t, ctx, a.ReadLock())
	if mode, _ := a.ReadLock().LockMode(ctx); mode != RWWrite {
		t.Fatalf("mode after the read unlock = %q; want write", mode)
	}
	tryRW(t, ctx, b.ReadLock(), false)
	unlockRW(t, ctx, a.WriteLock())
	tryRW(t, ctx, b.WriteLock(), true)
	unlockRW(t, ctx, b.WriteLock())
}

// A late unlock, on another owner's hold, the other side or a missing
// lock, is refused (ErrNotOwner) and changes nothing.
func TestRWLockLateUnlock(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	a, b := c.RWLock("late", "a"), c.RWLock("late", "b")
	for _, h := range []*RWHandle{a.ReadLock(), a.WriteLock()} {
		if err := h.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("%s Unlock of a missing lock = %v; want ErrNotOwner", h.Mode(), err)
		}
	}
	tryRW(t, ctx, a.ReadLock(), true)
	for _, h := range []*RWHandle{b.ReadLock(), a.WriteLock(), b.WriteLock()} {
		if err := h.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("%s Unlock of %s on a's read hold = %v; want ErrNotOwner", h.Mode(), h.Field(), err)
		}
	}
	if n, _ := a.ReadLock().HoldCount(ctx); n != 1 {
		t.Fatalf("a's read hold count = %d after refused unlocks; want 1", n)
	}
	rdb.Del(ctx, "late")
	if err := a.ReadLock().Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("read Unlock after the hash went = %v; want ErrNotOwner", err)
	}
}

// The watchdog renews both sides past several timeouts, and the read
// holds' timeout keys with them; renewal survives a write unlock that
// leaves a read hold (downgrade) behind.
func TestRWLockWatchdog(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	a, b := c.RWLock("wd", "a"), c.RWLock("wd", "b")
	tryRW(t, ctx, a.ReadLock(), true)
	tryRW(t, ctx, b.ReadLock(), true)
	time.Sleep(3 * testWatchdog)
	unlockRW(t, ctx, b.ReadLock()) // re-arms the hash from a's timeout key
	time.Sleep(2 * testWatchdog)
	if n, _ := a.ReadLock().HoldCount(ctx); n != 1 {
		t.Fatalf("a's renewed read hold count = %d; want 1", n)
	}
	select {
	case <-a.ReadLock().Lost():
		t.Fatal("read hold reported lost")
	default:
	}
	unlockRW(t, ctx, a.ReadLock())

	tryRW(t, ctx, a.WriteLock(), true)
	tryRW(t, ctx, a.ReadLock(), true)
	time.Sleep(2 * testWatchdog)
	unlockRW(t, ctx, a.WriteLock())
	time.Sleep(3 * testWatchdog)
	tryRW(t, ctx, b.WriteLock(), false)
	if n, _ := a.ReadLock().HoldCount(ctx); n != 1 {
		t.Fatalf("downgraded read hold count = %d after the write unlock; want 1", n)
	}
	unlockRW(t, ctx, a.ReadLock())
	if n, _ := rdb.Exists(ctx, "wd").Result(); n != 0 {
		t.Fatal("hash left behind")
	}
}

// A read unlock re-arms the hash to the longest lease still held, so a
// short hold leaving does not cut a long one short.
func TestRWLockReadUnlockRearms(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	a, b := c.RWLock("rearm", "a"), c.RWLock("rearm", "b")
	if ok, err := a.ReadLock().TryLock(ctx, 0, 10*time.Second); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := b.ReadLock().TryLock(ctx, 0, 200*time.Millisecond); !ok || err != nil {
		t.Fatal(ok, err)
	}
	unlockRW(t, ctx, b.ReadLock())
	if ttl, _ := rdb.PTTL(ctx, "rearm").Result(); ttl < 5*time.Second {
		t.Fatalf("hash PTTL after b's unlock = %v; want a's ~10s", ttl)
	}
	unlockRW(t, ctx, a.ReadLock())
}

// Wake-ups: a writer waiting on readers, and readers waiting on a writer,
// are granted on the unlock message, long before the holders' leases.
func TestRWLockWakeUps(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s, WithWatchdogTimeout(30*time.Second))
	ctx := ctxT(t)
	a, b, r := c.RWLock("wake", "a"), c.RWLock("wake", "b"), c.RWLock("wake", "r")
	tryRW(t, ctx, a.ReadLock(), true)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- b.WriteLock().Lock(ctx, 0) }()
	time.Sleep(100 * time.Millisecond)
	unlockRW(t, ctx, a.ReadLock())
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("writer granted after %v", d)
	}

	readers := make(chan error, 2)
	start = time.Now()
	for _, h := range []*RWHandle{a.ReadLock(), r.ReadLock()} {
		go func() { readers <- h.Lock(ctx, 0) }()
	}
	time.Sleep(100 * time.Millisecond)
	unlockRW(t, ctx, b.WriteLock())
	for range 2 {
		if err := <-readers; err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("readers granted after %v", d)
	}
	unlockRW(t, ctx, a.ReadLock())
	unlockRW(t, ctx, r.ReadLock())
}

// Abandon leaves a read hold to expire within the watchdog timeout, with
// its timeout key; ForceUnlock deletes only in its own side's mode.
func TestRWLockAbandonAndForce(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	a, b := c.RWLock("ab", "a"), c.RWLock("ab", "b")
	tryRW(t, ctx, a.ReadLock(), true)
	a.ReadLock().Abandon()
	eventually(t, testWatchdog+time.Second, "abandoned read hold expires", func() bool {
		n, _ := rdb.Exists(ctx, "ab", RWTimeoutPrefix("ab", a.ReadLock().Field())+":1").Result()
		return n == 0
	})
	tryRW(t, ctx, a.WriteLock(), true)
	if ok, err := b.ReadLock().ForceUnlock(ctx); ok || err != nil {
		t.Fatalf("read ForceUnlock of a write-locked lock = %v, %v; want false", ok, err)
	}
	if ok, err := b.WriteLock().ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("write ForceUnlock = %v, %v; want true", ok, err)
	}
	if err := a.WriteLock().Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock after ForceUnlock = %v; want ErrNotOwner", err)
	}
}

// A cancelled acquire leaves nothing behind, on either side.
func TestRWLockCancelled(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	a, b := c.RWLock("cancel", "a"), c.RWLock("cancel", "b")
	tryRW(t, ctx, a.WriteLock(), true)
	for _, h := range []*RWHandle{b.ReadLock(), b.WriteLock()} {
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		err := h.Lock(cctx, 0)
		cancel()
		if !errors.Is(err, ErrNotObtained) {
			t.Fatalf("%s Lock on a held lock = %v; want ErrNotObtained", h.Mode(), err)
		}
	}
	unlockRW(t, ctx, a.WriteLock())
	if n, err := rdb.Exists(ctx, "cancel").Result(); n != 0 || err != nil {
		t.Fatalf("EXISTS = %d, %v after the cancelled waits", n, err)
	}
}
