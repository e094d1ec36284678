package impl

import (
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// RedissonFencedLockTest.testTokenIncrease, extended across owners and a
// lease expiry: every grant, reentrant ones included, gets a larger token.
func TestFencedTokenIncrease(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Fenced("fenced", "t1")
	if l.Token() != 0 {
		t.Fatalf("Token before any grant = %d", l.Token())
	}
	want := int64(0)
	grant := func(f *FencedLock, do func() error) {
		t.Helper()
		if err := do(); err != nil {
			t.Fatal(err)
		}
		want++
		if got := f.Token(); got != want {
			t.Fatalf("Token = %d; want %d", got, want)
		}
		if cur, err := f.CurrentToken(ctx); cur != want || err != nil {
			t.Fatalf("CurrentToken = %d, %v; want %d", cur, err, want)
		}
	}
	grant(l, func() error { return l.Lock(ctx, 0) })                                               // 1
	grant(l, func() error { return l.Lock(ctx, 0) })                                               // 2, reentrant
	grant(l, func() error { return l.Lock(ctx, 0) })                                               // 3
	grant(l, func() error { return l.Lock(ctx, 10*time.Second) })                                  // 4, with a lease
	grant(l, func() error { ok, err := l.TryLock(ctx, 0, 0); return errors.Join(err, okErr(ok)) }) // 5
	if n, _ := l.HoldCount(ctx); n != 5 {
		t.Fatalf("HoldCount = %d; want 5", n)
	}
	for range 5 {
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if l.Token() != 0 {
		t.Fatalf("Token after release = %d; want 0", l.Token())
	}
	// Another owner, then a lease that runs out and a third owner.
	c2, _ := newTestClient(t, s)
	o := c2.Fenced("fenced", "t2")
	grant(o, func() error { return o.Lock(ctx, 100*time.Millisecond) }) // 6
	grant(l, func() error { return l.Lock(ctx, 0) })                    // 7, after 6 expired
	if err := o.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("expired owner's Unlock = %v; want ErrNotOwner", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := rdb.PTTL(ctx, TokenName("fenced")).Result(); ttl != -1 {
		t.Fatalf("token key TTL = %v; want none", ttl)
	}
}

func okErr(ok bool) error {
	if !ok {
		return ErrNotObtained
	}
	return nil
}
