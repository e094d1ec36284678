package driver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

func ownersOptions(n int) Options {
	o := fakeOptions("owners")
	o.Owners = n
	return o
}

// TestOwnersShareOneProcess: owners of one Maker with Owners > 1 share one
// driver process until it is full; their holds are their own (a lock held
// by p1 is held by another for p2), and a blocked request of one owner does
// not hold up another's: replies come back out of order.
func TestOwnersShareOneProcess(t *testing.T) {
	m := openFake(t, ownersOptions(3))
	ctx := ctxFor(t, 10*time.Second)
	l1, l2, l3 := m.NewLocker("l0", "p1"), m.NewLocker("l0", "p2"), m.NewLocker("x", "p3")
	if err := l1.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got, err := l2.TryLock(ctx, 20*time.Millisecond, time.Second); err != nil || got {
		t.Fatalf("p2 trylock on p1's lock: %v %v, want false", got, err)
	}
	granted := make(chan error, 1)
	go func() { granted <- l2.Lock(ctx, 0) }() // blocks until p1 unlocks
	if err := l3.Lock(ctx, 0); err != nil {    // answered while p2 waits
		t.Fatalf("p3 while p2 waits: %v", err)
	}
	select {
	case err := <-granted:
		t.Fatalf("p2 granted while p1 holds: %v", err)
	default:
	}
	if err := l1.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-granted; err != nil {
		t.Fatalf("p2 after p1's unlock: %v", err)
	}
	if m.running("p1") != m.running("p2") || m.running("p2") != m.running("p3") {
		t.Fatal("three owners of a 3-owner Maker in different processes")
	}
	if err := m.NewLocker("y", "p4").Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if m.running("p4") == m.running("p1") {
		t.Fatal("a fourth owner joined a full 3-owner process")
	}
}

// TestOwnersDieTogether: abandoning one owner kills its process, and with it
// every owner in it: a request still waiting ends with ErrDriver, later ones
// fail at once, and a new owner gets a new process.
func TestOwnersDieTogether(t *testing.T) {
	m := openFake(t, ownersOptions(4))
	ctx := ctxFor(t, 10*time.Second)
	l1, l2 := m.NewLocker("l0", "p1"), m.NewLocker("l0", "p2")
	if err := l1.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() { waiting <- l2.Lock(ctx, 0) }()
	old := m.running("p1")
	time.Sleep(50 * time.Millisecond) // let p2's request reach the driver (either way it must fail)
	l1.(impl.Abandoner).Abandon()
	if err := <-waiting; !errors.Is(err, ErrDriver) {
		t.Fatalf("p2's lock in flight when p1 was abandoned: %v, want ErrDriver", err)
	}
	if err := l2.Unlock(ctx); !errors.Is(err, ErrDriver) {
		t.Fatalf("p2 after its process died: %v, want ErrDriver", err)
	}
	if err := m.NewLocker("l0", "p3").Lock(ctx, 0); err != nil {
		t.Fatalf("a new owner after the process died: %v", err)
	}
	if m.running("p3") == old {
		t.Fatal("a new owner joined a dead process")
	}
}

// TestOwnersFrozenTimeDoesNotCount: a request in flight while its process
// is stopped longer than its timeout plus the grace is not a late reply:
// the driver answers once it runs again, and the process lives on.
func TestOwnersFrozenTimeDoesNotCount(t *testing.T) {
	m := openFake(t, ownersOptions(2))
	ctx := ctxFor(t, 10*time.Second)
	l1, l2 := m.NewLocker("l0", "p1"), m.NewLocker("l0", "p2")
	if err := l1.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := l2.TryLock(c, 150*time.Millisecond, time.Second)
		res <- err
	}()
	time.Sleep(20 * time.Millisecond)
	fz := l1.(impl.Freezer)
	if err := fz.Freeze(); err != nil {
		t.Fatal(err)
	}
	waitState(t, m.running("p1").cmd.Process.Pid, "T")
	time.Sleep(600 * time.Millisecond) // > timeout 200 ms + grace 100 ms
	if err := fz.Thaw(); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatalf("p2's trylock across the stop: %v, want an answer", err)
	}
	if err := l1.Unlock(ctx); err != nil {
		t.Fatalf("p1 after the stop: %v", err)
	}
}

// TestOwnersNeedTheCapability: a driver without capability owners is
// refused when owners must share a process.
func TestOwnersNeedTheCapability(t *testing.T) {
	o := fakeOptions("ok")
	o.Owners = 2
	m := openFake(t, o)
	if err := m.NewLocker("l0", "p1").Lock(ctxFor(t, 5*time.Second), 0); !errors.Is(err, ErrDriver) {
		t.Fatalf("lock: %v, want ErrDriver (no capability owners)", err)
	}
}
