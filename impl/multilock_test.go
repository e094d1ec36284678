package impl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// newMultiTest returns two Clients on one fresh redis-server: the
// multilock's and another owner's.
func newMultiTest(t *testing.T) (*Client, *Client) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s)
	other, _ := newTestClient(t, s)
	return c, other
}

// members returns c's reentrant handles on the members of name for owner.
func members(c *Client, name, owner string, n int) []Locker {
	var out []Locker
	for _, mn := range MemberNames(name, n) {
		out = append(out, c.Reentrant(mn, owner))
	}
	return out
}

// wantHeld fails unless each member of name is held by owner of c as want
// says (1: held, 0: not).
func wantHeld(t *testing.T, c *Client, name, owner string, want ...int) {
	t.Helper()
	for i, mn := range MemberNames(name, len(want)) {
		n, err := c.Reentrant(mn, owner).HoldCount(ctxT(t))
		if err != nil || n != want[i] {
			t.Errorf("member %s: hold count %d, %v; want %d", mn, n, err, want[i])
		}
	}
}

// RedissonMultiLockTest.testMultiThreads / test: all members or none.
func TestMultiLockAllOrNothing(t *testing.T) {
	c, other := newMultiTest(t)
	ctx := ctxT(t)
	m := NewMultiLock("all", members(c, "all", "o1", 3))
	if ok, err := m.TryLock(ctx, 0, 0); !ok || err != nil {
		t.Fatalf("TryLock on free members = %v, %v", ok, err)
	}
	wantHeld(t, c, "all", "o1", 1, 1, 1)
	if ok, err := NewMultiLock("all", members(other, "all", "o2", 3)).TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("second owner's TryLock = %v, %v; want false", ok, err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wantHeld(t, c, "all", "o1", 0, 0, 0)

	// A plain lock on member 2 makes the multilock fail, and the members it
	// took on the way are released.
	plain := other.Reentrant(MemberNames("all", 3)[2], "o2")
	if err := plain.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if ok, err := m.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock with member 2 held = %v, %v; want false", ok, err)
	}
	wantHeld(t, c, "all", "o1", 0, 0, 0)
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock while holding nothing = %v; want ErrNotOwner", err)
	}
	if err := plain.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// A waiting multilock gets the members once a plain holder lets go, and a
// wait that runs out leaves nothing held.
func TestMultiLockWait(t *testing.T) {
	c, other := newMultiTest(t)
	ctx := ctxT(t)
	m := NewMultiLock("wait", members(c, "wait", "o1", 3))
	plain := other.Reentrant(MemberNames("wait", 3)[1], "o2")
	if ok, err := plain.TryLock(ctx, 0, 300*time.Millisecond); !ok || err != nil {
		t.Fatalf("plain TryLock = %v, %v", ok, err)
	}
	start := time.Now()
	if ok, err := m.TryLock(ctx, 100*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("TryLock(100ms) while member 1 is held = %v, %v; want false", ok, err)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("TryLock(100ms) took %v", d)
	}
	wantHeld(t, c, "wait", "o1", 0, 0, 0)
	if ok, err := m.TryLock(ctx, 3*time.Second, 0); !ok || err != nil {
		t.Fatalf("TryLock(3s) = %v, %v; want true once the plain lease ran out", ok, err)
	}
	wantHeld(t, c, "wait", "o1", 1, 1, 1)
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// RedissonMultiLockTest.testLockSuccess2 (lease): members are locked with
// 2×wait, then re-armed to the lease once all are held.
func TestMultiLockLease(t *testing.T) {
	c, _ := newMultiTest(t)
	ctx := ctxT(t)
	m := NewMultiLock("lease", members(c, "lease", "o1", 3))
	if ok, err := m.TryLock(ctx, 5*time.Second, 400*time.Millisecond); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	for _, l := range m.Members() {
		ttl, err := l.(TTLReporter).RemainTTL(ctx)
		if err != nil || ttl <= 0 || ttl > 400*time.Millisecond {
			t.Errorf("member TTL = %v, %v; want in (0, 400ms] (not 2×wait = 10s)", ttl, err)
		}
	}
	eventually(t, 2*time.Second, "the lease runs out on every member", func() bool {
		for _, l := range m.Members() {
			if ttl, _ := l.(TTLReporter).RemainTTL(ctx); ttl > 0 {
				return false
			}
		}
		return true
	})
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock after the lease ran out = %v; want ErrNotOwner", err)
	}
	if err := m.Lock(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ttl, err := m.Members()[2].(TTLReporter).RemainTTL(ctx)
	if err != nil || ttl <= 0 || ttl > 300*time.Millisecond {
		t.Errorf("Lock(lease 300ms): member TTL = %v, %v", ttl, err)
	}
}

// Lock without a lease is watchdog-renewed on every member, and reentrant.
func TestMultiLockWatchdogReentrant(t *testing.T) {
	c, other := newMultiTest(t)
	ctx := ctxT(t)
	m := NewMultiLock("wd", members(c, "wd", "o1", 2))
	for range 2 {
		if err := m.Lock(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(3 * testWatchdog)
	wantHeld(t, c, "wd", "o1", 2, 2)
	if ok, err := other.Reentrant("wd", "o2").TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("plain TryLock on member 0 = %v, %v; want false", ok, err)
	}
	for range 2 {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wantHeld(t, c, "wd", "o1", 0, 0)
}

// Lock leaves nothing behind when ctx ends while a member is held by
// another owner.
func TestMultiLockCancel(t *testing.T) {
	c, other := newMultiTest(t)
	plain := other.Reentrant(MemberNames("cancel", 3)[2], "o2")
	if err := plain.Lock(ctxT(t), 0); err != nil {
		t.Fatal(err)
	}
	m := NewMultiLock("cancel", members(c, "cancel", "o1", 3))
	ctx, cancel := context.WithTimeout(ctxT(t), 300*time.Millisecond)
	defer cancel()
	err := m.Lock(ctx, 0)
	if !errors.Is(err, ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock = %v; want ErrNotObtained and DeadlineExceeded", err)
	}
	wantHeld(t, c, "cancel", "o1", 0, 0, 0)
	if err := plain.Unlock(ctxT(t)); err != nil {
		t.Fatal(err)
	}
}

// RedissonRedLockTest: a quorum of members is enough; fewer is not, and the
// members taken are then released.
func TestRedissonRedLockQuorum(t *testing.T) {
	c, other := newMultiTest(t)
	ctx := ctxT(t)
	names := MemberNames("red", 3)
	if err := other.Reentrant(names[1], "o2").Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	r := NewRedissonRedLock("red", members(c, "red", "o1", 3))
	if r.Quorum() != 2 {
		t.Fatalf("Quorum = %d; want 2", r.Quorum())
	}
	if ok, err := r.TryLock(ctx, 0, 0); !ok || err != nil {
		t.Fatalf("RedLock TryLock with 1 of 3 members held elsewhere = %v, %v; want true", ok, err)
	}
	wantHeld(t, c, "red", "o1", 1, 0, 1)
	if err := r.Unlock(ctx); err != nil {
		t.Fatalf("Unlock of a quorum = %v", err)
	}
	wantHeld(t, c, "red", "o1", 0, 0, 0)
	if err := other.Reentrant(names[2], "o2").Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if ok, err := r.TryLock(ctx, 200*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("RedLock TryLock with 2 of 3 held elsewhere = %v, %v; want false", ok, err)
	}
	wantHeld(t, c, "red", "o1", 0, 0, 0)
	if err := r.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("RedLock Unlock holding nothing = %v; want ErrNotOwner", err)
	}
}
